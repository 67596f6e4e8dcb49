import Foundation
import SwitchyardCore
import SwitchyardDocuments

extension LinkRouter {
    /// Loads a route table from a JSON or YAML file (by extension; YAML is a superset of JSON).
    ///
    /// ```yaml
    /// hosts: [rabble.community, www.rabble.community]
    /// routes:
    ///   - name: join
    ///     pattern: /join/{groupId}
    ///     query: {code: code, relay: relay?}
    /// ```
    public init(contentsOf path: String) throws(RouteTableError) {
        let document: JSONValue
        do { document = try StructuredDocument.read(contentsOf: path) } catch {
            throw RouteTableError(error.message, location: error.location, cause: error)
        }
        do { try self.init(table: document) } catch {
            throw RouteTableError(error.message, location: SourceLocation(file: path), cause: error.cause)
        }
    }

    /// The lower-cased host of an http(s) pattern (`https://Shop.example/p/{id}`), or nil.
    static func patternHost(_ pattern: String) -> String? {
        guard let sep = pattern.range(of: "://") else { return nil }
        let scheme = pattern[..<sep.lowerBound].lowercased()
        guard scheme == "https" || scheme == "http" else { return nil }
        let rest = pattern[sep.upperBound...]
        let host = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
        return host.isEmpty ? nil : host
    }

    /// A route table on its own (a file): only `hosts` and `routes` at the top.
    init(table document: JSONValue) throws(RouteTableError) {
        if let problem = DocumentShape.object(Self.tableKeys).problems(in: document).first {
            // A service configuration given where its route table belongs: say which file to give.
            if let table = document["routeTable"]?.stringValue {
                throw RouteTableError("\(problem) — this is a service configuration; give its route table (\(table)) instead")
            }
            throw RouteTableError(problem)
        }
        try self.init(document: document)
    }

    /// The keys of a route table and their shapes (a service configuration embeds them).
    public static let tableKeys: [String: DocumentShape] = [
        "hosts": .array(.string),
        "routes": .array(.object(["name": .string, "pattern": .string, "query": .map(.string), "exclude": .bool])),
    ]

    /// Loads a route table from YAML (or JSON) text; `source` names it in error messages. Throws on invalid
    /// YAML, an empty document or a bad table.
    public init(yaml: String, source: String? = nil) throws(RouteTableError) {
        let location = source.map { SourceLocation(file: $0) }
        let document: JSONValue
        do { document = try StructuredDocument.parse(yaml: yaml, source: source) } catch {
            throw RouteTableError(error.message, location: error.location, cause: error)
        }
        do { try self.init(table: document) } catch { throw RouteTableError(error.message, location: location, cause: error.cause) }
    }

    /// Builds a table from its JSON form: `hosts` and `routes` (each `name`, `pattern`,
    /// optional `query` {item: spec}, optional `exclude`).
    public init(document: JSONValue) throws(RouteTableError) {
        guard case .object = document else { throw RouteTableError("a route table is an object with \"hosts\" and \"routes\"") }
        for key in ["hosts", "routes"] {
            if let value = document[key], let problem = Self.tableKeys[key]!.problems(in: value, at: key).first { throw RouteTableError(problem) }
        }
        var hosts: [String] = []
        if let h = document["hosts"] {
            guard let list = h.arrayValue?.compactMap(\.stringValue), list.count == h.arrayValue?.count else {
                throw RouteTableError("hosts: expected a list of host names")
            }
            for (i, host) in list.enumerated() {
                // A URL or host:port here would never equal a link's host, so nothing would route.
                if host.contains("://") || host.contains("/") || host.contains(":") || host.contains("@") {
                    let bare = URLComponents(string: host.contains("://") ? host : "https://" + host)?.host.map { ": \($0)" } ?? ""
                    throw RouteTableError("hosts[\(i)]: \(JSONWriter.quote(host)) is not a host name; give the host alone, without scheme, port or path\(bare)")
                }
                if host.isEmpty || host.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 }) {
                    throw RouteTableError("hosts[\(i)]: \(JSONWriter.quote(host)) is not a host name")
                }
            }
            hosts = list
        }
        guard let list = document["routes"]?.arrayValue else { throw RouteTableError("routes: expected a list of routes") }
        var routes: [Route] = []
        for (i, r) in list.enumerated() {
            guard let name = r["name"]?.stringValue else { throw RouteTableError("routes[\(i)].name: every route needs a name") }
            guard let pattern = r["pattern"]?.stringValue else { throw RouteTableError("routes[\(i)].pattern: route \(name) needs a pattern") }
            var query: [(String, String)] = []
            if let q = r["query"] {
                guard let members = q.objectMembers else { throw RouteTableError("routes[\(i)].query: expected item: parameter pairs") }
                for m in members {
                    guard let spec = m.value.stringValue else { throw RouteTableError("routes[\(i)].query.\(m.key): expected a parameter name") }
                    query.append((m.key, spec))
                }
            }
            do {
                routes.append(try Route(name: name, pattern: pattern, query: query, exclude: r["exclude"] == .bool(true)))
            } catch { throw RouteTableError("routes[\(i)]: \(error.message)") }
            // A full universal link (`https://host/…`) is matched on the table's hosts: a host
            // of its own there would be silently read as one of them.
            if let host = Self.patternHost(pattern), !hosts.contains(where: { $0.lowercased() == host }) {
                throw RouteTableError("routes[\(i)]: route \(name): the pattern's host \(host) is not one of hosts (\(hosts.joined(separator: ", "))); write the path alone (/…) or add the host to hosts")
            }
        }
        try self.init(hosts: hosts, routes: routes)
    }
}
