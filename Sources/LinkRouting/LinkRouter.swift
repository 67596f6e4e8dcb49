import Foundation
import SwitchyardCore

/// Routes incoming universal links and custom-scheme URLs to named routes with typed
/// parameters, and builds canonical URLs back from them.
///
/// ```swift
/// let router = try LinkRouter(hosts: ["rabble.community", "www.rabble.community"], routes: [
///     Route(name: "group", pattern: "/g/{groupId}", query: [("relay", "relay?")]),
/// ])
/// router.route("https://www.rabble.community/g/abc?relay=wss%3A%2F%2Fr.example")
/// // .matched(group(groupId: abc, relay: wss://r.example))
/// router.url(for: match)   // "https://rabble.community/g/abc?relay=wss%3A%2F%2Fr.example"
/// ```
///
/// Routes are tried as if in table order (the first that matches wins), but the lookup walks a
/// segment trie, so a table of a thousand routes costs about as much as one of ten.
public struct LinkRouter: Sendable {
    /// Hosts served for universal routes; the first is canonical (used when building URLs).
    public let hosts: [String]
    /// The route table, in the order routes are tried.
    public let routes: [Route]
    private let roots: [String: Node]  // "https" for universal routes, else the scheme

    final class Node: @unchecked Sendable {
        // Built once in init, read-only afterwards.
        /// Keyed by the text's bytes: `é` and `e` + U+0301 are different segments, as they are
        /// to the association files' patterns (Swift's `String` would call them equal).
        var literals: [ExactText: Node] = [:]
        var parameters: [(name: String, type: ParameterType, node: Node)] = []
        /// Routes ending here.
        var terminal: [Int] = []
        /// Routes whose last segment (url or rest) takes everything from here on.
        var rest: [(name: String, type: ParameterType, route: Int)] = []
    }

    /// A router for `routes` on `hosts`, each as browsers send it (lower-cased, a Unicode host as
    /// its punycode: `bücher.example` is `xn--bcher-kva.example`, the host a URL to it is matched
    /// by); throws when two routes share a name or there are universal routes but no host.
    public init(hosts: [String], routes: [Route]) throws(RouteTableError) {
        self.hosts = hosts.map { BrowserURL.host("https://\($0)/") ?? $0.lowercased() }
        self.routes = routes
        var names: [String: Int] = [:]
        for (i, r) in routes.enumerated() {
            if let first = names[r.name] { throw RouteTableError("routes[\(i)]: route name \(r.name) is used twice (routes[\(first)] has it)") }
            names[r.name] = i
        }
        if hosts.isEmpty && routes.contains(where: { $0.kind == .universal }) {
            throw RouteTableError("universal-link routes need at least one host")
        }
        var roots: [String: Node] = [:]
        for (index, route) in routes.enumerated() {
            let key: String
            switch route.kind {
            case .universal: key = "https"
            case .scheme(let s): key = s
            }
            var node = roots[key] ?? Node()
            roots[key] = node
            for segment in route.segments {
                switch segment {
                case .literal(let text):
                    let next = node.literals[ExactText(text)] ?? Node()
                    node.literals[ExactText(text)] = next
                    node = next
                case .parameter(let name, let type) where type == .url || type == .rest:
                    node.rest.append((name, type, index))
                case .parameter(let name, let type):
                    if let existing = node.parameters.first(where: { $0.name == name && $0.type == type }) {
                        node = existing.node
                    } else {
                        let next = Node()
                        node.parameters.append((name, type, next))
                        node = next
                    }
                }
            }
            if case .parameter(_, let t)? = route.segments.last, t == .url || t == .rest { continue }
            node.terminal.append(index)
        }
        self.roots = roots
    }

    /// A URL split into what routing needs.
    struct Input {
        var key: String
        var host: String
        /// Raw (still percent-encoded) path segments; for custom schemes the host comes first.
        var segments: [Substring]
        var query: String?
        var fragment: String?
        var trailingText: (Int) -> String
    }

    static func split(_ url: String) -> (scheme: String, host: String, path: Substring, query: String?, fragment: String?)? {
        guard var parts = URLText.split(url) else { return nil }
        // A Unicode or percent-encoded host as browsers send it (punycode), as the table's hosts are.
        parts.host = BrowserURL.sentHost(parts.host, of: url)
        return (parts.scheme, parts.host, parts.path[...], parts.query, parts.fragment)
    }

    /// How deep embedded URLs are routed (`/i/https://…/i/https://…`).
    static let maximumNesting = 3

    /// Routes `url`: the first route (in table order) that matches, or why none does.
    public func route(_ url: String) -> RouteResult { route(url, depth: 0) }

    /// The names of the routes whose path (and host) match `url`, in table order, whatever its
    /// query holds: the routes that own that path. An importer asks this before it serves
    /// something else at a path (`/join-community` is a route's even without its query items).
    public func routesMatchingPath(_ url: String) -> [String] {
        guard case .candidates(let candidates, _, _, _) = pathCandidates(url) else { return [] }
        return candidates.map { routes[$0.route].name }
    }

    private enum PathOutcome {
        case unmatched(String)
        case candidates([(route: Int, params: [(String, RouteValue)])], Failures, query: String?, decoded: [String])
    }

    /// The routes whose path matches `url` (sorted by table order), or why none can.
    private func pathCandidates(_ url: String) -> PathOutcome {
        guard let (scheme, host, path, query, fragment) = Self.split(url) else {
            return .unmatched("\(JSONWriter.quote(url)) is not an absolute URL")
        }
        let key: String
        var segments: [Substring]
        if scheme == "https" || scheme == "http" {
            guard hosts.contains(host) else {
                return .unmatched("host \(host) is not one of this table's hosts (\(hosts.joined(separator: ", ")))")
            }
            key = "https"
            segments = path.fastSplit(UInt8(ascii: "/"))
        } else {
            key = scheme
            segments = (host.isEmpty ? [] : [Substring(host)]) + path.fastSplit(UInt8(ascii: "/"))
        }
        guard let root = roots[key] else {
            return .unmatched(key == "https" ? "no universal-link routes" : "no routes for the \(scheme): scheme")
        }
        let decoded = segments.map { PercentText.decode(String($0)) }
        var candidates: [(route: Int, params: [(String, RouteValue)])] = []
        var typeFailures = Failures()
        // The raw text from segment i on, "//" and all (for embedded URLs).
        let hostSegment = key != "https" && !host.isEmpty
        let remainder: (Int) -> String = { i in
            if hostSegment && i == 0 { return host + path }
            return String(path[segments[i].startIndex...])
        }
        collect(root, decoded, remainder, 0, [], query: query, fragment: fragment, into: &candidates, failures: &typeFailures)
        candidates.sort { $0.route < $1.route }
        return .candidates(candidates, typeFailures, query: query, decoded: decoded)
    }

    func route(_ url: String, depth: Int) -> RouteResult {
        let candidates: [(route: Int, params: [(String, RouteValue)])]
        let typeFailures: Failures
        let query: String?
        let decoded: [String]
        switch pathCandidates(url) {
        case .unmatched(let reason): return .unmatched(reason: reason)
        case .candidates(let list, let failures, let q, let d): (candidates, typeFailures, query, decoded) = (list, failures, q, d)
        }
        var parsedItems: [(name: String, value: String)]?
        var queryFailures: [String] = []
        for candidate in candidates {
            let route = routes[candidate.route]
            var params = Dictionary(candidate.params, uniquingKeysWith: { a, _ in a })
            var ok = true
            if !route.query.isEmpty && parsedItems == nil { parsedItems = PercentText.queryItems(query) }
            let items = parsedItems ?? []
            for q in route.query {
                // An optional item given empty (`?relay=`) is not given: no value to bind.
                guard let raw = items.first(where: { $0.name == q.item })?.value, !(q.optional && raw.isEmpty) else {
                    if !q.optional {
                        queryFailures.append("route \(route.name) needs the query item \(q.item)")
                        ok = false
                        break
                    }
                    continue
                }
                guard let value = q.type.value(raw) else {
                    queryFailures.append("route \(route.name): query item \(q.item)=\(JSONWriter.quote(raw)) \(q.type.mismatch(raw))")
                    ok = false
                    break
                }
                params[q.parameter] = value
            }
            if ok {
                // Route embedded URLs too, so that their own query is parsed.
                if route.hasURLParameter, depth < Self.maximumNesting {
                    for (name, value) in params {
                        if case .url(let embedded, nil) = value {
                            params[name] = .url(embedded, nested: self.route(embedded, depth: depth + 1).match)
                        }
                    }
                }
                return .matched(RouteMatch(route: route.name, index: candidate.route, parameters: params))
            }
        }
        if let first = queryFailures.first { return .unmatched(reason: first) }
        if let first = typeFailures.first { return .unmatched(reason: first()) }
        return .unmatched(reason: "no route matches the path /" + decoded.joined(separator: "/"))
    }

    private func collect(
        _ node: Node, _ decoded: [String], _ remainder: (Int) -> String, _ i: Int, _ params: [(String, RouteValue)],
        query: String?, fragment: String?, into out: inout [(route: Int, params: [(String, RouteValue)])], failures: inout Failures
    ) {
        for (name, type, route) in node.rest {
            var p = params
            if type == .url {
                guard i < decoded.count else { continue }
                var text = remainder(i)
                if !text.contains("://"), PercentText.decode(text).contains("://") { text = PercentText.decode(text) }
                if let query { text += "?" + query }
                if let fragment { text += "#" + fragment }
                guard Self.split(text) != nil else {
                    failures.note { "route \(routes[route].name): \(JSONWriter.quote(text)) is not an embedded URL" }
                    continue
                }
                p.append((name, .url(text, nested: nil)))
            } else {
                p.append((name, .string(decoded[i...].joined(separator: "/"))))
            }
            out.append((route, p))
        }
        if i == decoded.count {
            for r in node.terminal { out.append((r, params)) }
            return
        }
        if let next = node.literals[ExactText(decoded[i])] {
            collect(next, decoded, remainder, i + 1, params, query: query, fragment: fragment, into: &out, failures: &failures)
        }
        for (name, type, next) in node.parameters {
            guard let value = type.value(decoded[i]) else {
                let text = decoded[i]
                failures.note { "\(JSONWriter.quote(text)) \(type.mismatch(text)) for {\(name)}" }
                continue
            }
            var p = params
            p.append((name, value))
            collect(next, decoded, remainder, i + 1, p, query: query, fragment: fragment, into: &out, failures: &failures)
        }
    }

    /// The reference behaviour: every route tried in table order against the URL, parsed
    /// once, without the trie (benchmarks and the equivalence property test).
    public func routeLinearly(_ url: String) -> RouteMatch? {
        guard let (scheme, host, path, query, fragment) = Self.split(url) else { return nil }
        let universal = scheme == "https" || scheme == "http"
        if universal && !hosts.contains(host) { return nil }
        let raw: [Substring] = universal ? path.fastSplit(UInt8(ascii: "/")) : (host.isEmpty ? [] : [Substring(host)]) + path.fastSplit(UInt8(ascii: "/"))
        let decoded = raw.map { PercentText.decode(String($0)) }
        let items = PercentText.queryItems(query)
        routes: for (index, route) in routes.enumerated() {
            switch route.kind {
            case .universal: guard universal else { continue }
            case .scheme(let s): guard s == scheme else { continue }
            }
            var params: [String: RouteValue] = [:]
            var i = 0
            var consumedAll = false
            for segment in route.segments {
                switch segment {
                case .literal(let text):
                    guard i < decoded.count, ExactText.same(decoded[i], text) else { continue routes }
                    i += 1
                case .parameter(let name, .url):
                    guard i < raw.count else { continue routes }
                    var text = !universal && !host.isEmpty && i == 0 ? host + path : String(path[raw[i].startIndex...])
                    if !text.contains("://"), PercentText.decode(text).contains("://") { text = PercentText.decode(text) }
                    if let query { text += "?" + query }
                    if let fragment { text += "#" + fragment }
                    guard Self.split(text) != nil else { continue routes }
                    params[name] = .url(text, nested: nil)
                    consumedAll = true
                case .parameter(let name, .rest):
                    params[name] = .string(decoded[i...].joined(separator: "/"))
                    consumedAll = true
                case .parameter(let name, let type):
                    guard i < decoded.count, let value = type.value(decoded[i]) else { continue routes }
                    params[name] = value
                    i += 1
                }
            }
            guard consumedAll || i == decoded.count else { continue }
            for q in route.query {
                guard let value = items.first(where: { $0.name == q.item })?.value, !(q.optional && value.isEmpty) else {
                    if q.optional { continue } else { continue routes }
                }
                guard let typed = q.type.value(value) else { continue routes }
                params[q.parameter] = typed
            }
            for (k, v) in params { if case .url(let u, nil) = v { params[k] = .url(u, nested: self.route(u, depth: 1).match) } }
            return RouteMatch(route: route.name, index: index, parameters: params)
        }
        return nil
    }
}

/// The first reason a branch failed, formatted only if it is needed.
struct Failures {
    var first: (() -> String)?
    mutating func note(_ reason: @escaping () -> String) { if first == nil { first = reason } }
}

/// Text compared by its UTF-8 bytes, as association-file patterns compare it (not by Unicode
/// canonical equivalence, as `String` does).
struct ExactText: Hashable {
    let text: String
    init(_ text: String) { self.text = text }
    static func == (a: ExactText, b: ExactText) -> Bool { same(a.text, b.text) }
    func hash(into hasher: inout Hasher) { for b in text.utf8 { hasher.combine(b) } }
    /// Whether `a` and `b` are the same bytes.
    static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
}
