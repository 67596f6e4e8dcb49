import SwitchyardCore
import LinkRouting

/// The text of one URL in the forms a decision may need, computed at most once each.
struct Subject {
    let parts: URLParts
    // Path bytes and query items per form (raw/decoded × cased/lowercased); stored properties,
    // not arrays, so that a decision allocates only what it uses.
    private var path0: [UInt8]?, path1: [UInt8]?, path2: [UInt8]?, path3: [UInt8]?
    private var items0: [(name: String, value: String)]?, items1: [(name: String, value: String)]?
    private var items2: [(name: String, value: String)]?, items3: [(name: String, value: String)]?

    init(_ parts: URLParts) { self.parts = parts }

    /// A path (of a URL or a pattern) as iOS compares it: every run of slashes is one slash and a
    /// trailing slash is dropped, so "/buy//" is "/buy", "//a" is "/a" and "/a//b" is "/a/b"; the
    /// root stays "/". Apple's `swcutil` matches "//abc" to "/abc" and "/buy/" to "/buy//";
    /// slashes inside a path are taken the same way (docs/associated-domains.md).
    static func normalise(_ path: String) -> String {
        let u = path.utf8
        let slash = UInt8(ascii: "/")
        var previous: UInt8 = 0
        var clean = true
        for b in u {
            if b == slash && previous == slash { clean = false; break }
            previous = b
        }
        if clean {
            guard u.count > 1, u.last == slash else { return path }
            return String(path.dropLast())
        }
        var out: [UInt8] = []
        out.reserveCapacity(u.count)
        for b in u where !(b == slash && out.last == slash) { out.append(b) }
        if out.count > 1, out.last == slash { out.removeLast() }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text a component compares: raw, or (`percentEncoded: false`) fully decoded, then
    /// lower-cased without case. Decoding is done after the URL was split, so it never changes
    /// which part a character belongs to, but it does decode `%2F`: with `percentEncoded: false`
    /// "/a%2Fb" is the path "/a/b" (as a decoded URL path is everywhere on Apple's platforms),
    /// while with the default the raw "%2F" is compared and only a pattern with "%2F" matches it.
    static func variant(_ s: String, encoded: Bool, cased: Bool) -> String {
        var t = encoded ? s : PercentText.decode(s)
        if !cased { t = t.lowercased() }
        return t
    }

    /// The path's UTF-8 bytes in the requested form, computed once per form.
    mutating func path(encoded: Bool, cased: Bool) -> [UInt8] {
        switch (encoded, cased) {
        case (true, true): if let p = path0 { return p }
        case (true, false): if let p = path1 { return p }
        case (false, true): if let p = path2 { return p }
        case (false, false): if let p = path3 { return p }
        }
        let p = Array(Self.normalise(Self.variant(parts.path, encoded: encoded, cased: cased)).utf8)
        switch (encoded, cased) {
        case (true, true): path0 = p
        case (true, false): path1 = p
        case (false, true): path2 = p
        case (false, false): path3 = p
        }
        return p
    }

    func query(encoded: Bool, cased: Bool) -> String { Self.variant(parts.query ?? "", encoded: encoded, cased: cased) }
    func fragment(encoded: Bool, cased: Bool) -> String { Self.variant(parts.fragment ?? "", encoded: encoded, cased: cased) }

    mutating func queryItems(encoded: Bool, cased: Bool) -> [(name: String, value: String)] {
        switch (encoded, cased) {
        case (true, true): if let i = items0 { return i }
        case (true, false): if let i = items1 { return i }
        case (false, true): if let i = items2 { return i }
        case (false, false): if let i = items3 { return i }
        }
        let i = parts.rawQueryItems.map { (Self.variant($0.name, encoded: encoded, cased: cased), Self.variant($0.value, encoded: encoded, cased: cased)) }
        switch (encoded, cased) {
        case (true, true): items0 = i
        case (true, false): items1 = i
        case (false, true): items2 = i
        case (false, false): items3 = i
        }
        return i
    }
}

/// Which key of a component did not match.
public enum FailedKey: String, Sendable, Equatable {
    case path = "/"
    case query = "?"
    case fragment = "#"
}

struct CompiledComponent: Sendable {
    enum Query: Sendable {
        case whole(Glob)
        case items([(name: String, pattern: Glob)])
    }

    let exclude: Bool
    let caseSensitive: Bool
    let percentEncoded: Bool
    let path: [Glob]?
    let query: Query?
    let fragment: Glob?

    /// The path pattern as iOS reads it: leading "/" optional, slashes taken as `Subject.normalise`
    /// takes them, and "/x/*" also matching "/x" (the path "/x/" with its trailing slash dropped).
    static func pathAlternatives(_ pattern: String) -> [String] {
        var p = pattern
        if !p.hasPrefix("/") && !p.hasPrefix("*") { p = "/" + p }
        p = Subject.normalise(p)
        var out = [p]
        if p.hasSuffix("/*") {
            // "/*" needs no alternative: "*" matches nothing, so it matches "/" already.
            let shorter = String(p.dropLast(2))
            if !shorter.isEmpty { out.append(shorter) }
        }
        return out
    }

    init(_ c: AppLinks.Component, defaults: [MatchingDefaults], variables: [String: [String]]) {
        exclude = c.exclude
        caseSensitive = c.caseSensitive ?? defaults.lazy.compactMap(\.caseSensitive).first ?? true
        percentEncoded = c.percentEncoded ?? defaults.lazy.compactMap(\.percentEncoded).first ?? true
        let lower = !caseSensitive
        path = c.path.map { CompiledComponent.pathAlternatives($0).map { Glob($0, variables: variables, lowercased: lower) } }
        switch c.query {
        case .whole(let s)?: query = .whole(Glob(s, variables: variables, lowercased: lower))
        case .items(let items)?:
            query = .items(items.map { (lower ? $0.name.lowercased() : $0.name, Glob($0.pattern, variables: variables, lowercased: lower)) })
        case .voided?, nil: query = nil
        }
        fragment = c.fragment.map { Glob($0, variables: variables, lowercased: lower) }
    }

    /// The sizes of its patterns, added up (see ``Glob/size``).
    var size: Int {
        var total = (path ?? []).reduce(0) { $0 + $1.size } + (fragment?.size ?? 0)
        switch query {
        case .whole(let g)?: total += g.size
        case .items(let items)?: total += items.reduce(0) { $0 + $1.name.utf8.count + $1.pattern.size }
        case nil: break
        }
        return total
    }

    /// Whether a pattern of `key` was too large to compile: it matched nothing, unchecked.
    func isTooLarge(_ key: FailedKey) -> Bool {
        switch key {
        case .path: return path?.contains { $0.isTooLarge } ?? false
        case .fragment: return fragment?.isTooLarge ?? false
        case .query:
            switch query {
            case .whole(let g)?: return g.isTooLarge
            case .items(let items)?: return items.contains { $0.pattern.isTooLarge }
            case nil: return false
            }
        }
    }

    /// nil when every given key matches, else the first key that failed.
    func failure(_ s: inout Subject) -> FailedKey? {
        let text = path == nil ? [] : s.path(encoded: percentEncoded, cased: caseSensitive)
        return text.withUnsafeBufferPointer { failure(&s, path: $0) }
    }

    /// The same, with the path bytes (in this component's form) already at hand.
    func failure(_ s: inout Subject, path text: UnsafeBufferPointer<UInt8>) -> FailedKey? {
        if let path {
            var hit = false
            for g in path where g.matches(text) {
                hit = true
                break
            }
            if !hit { return .path }
        }
        switch query {
        case .whole(let g)?:
            if !g.matches(s.query(encoded: percentEncoded, cased: caseSensitive)) { return .query }
        case .items(let required)?:
            let items = s.queryItems(encoded: percentEncoded, cased: caseSensitive)
            for (name, pattern) in required {
                var seen = false
                for item in items where item.name == name {
                    seen = true
                    if !pattern.matches(item.value) { return .query }
                }
                if !seen && !pattern.matches("") { return .query }
            }
        case nil: break
        }
        if let fragment, !fragment.matches(s.fragment(encoded: percentEncoded, cased: caseSensitive)) { return .fragment }
        return nil
    }
}

struct CompiledDetail: Sendable {
    enum Kind: Sendable {
        /// Components, and the (percentEncoded, caseSensitive) form they all share, if they do.
        case components([CompiledComponent], uniform: (Bool, Bool)?)
        case paths([(exclude: Bool, globs: [Glob])])
        case nothing
    }
    let kind: Kind

    /// The sizes of its patterns, added up: what a decision may try on each character of a URL.
    var size: Int {
        switch kind {
        case .components(let components, _): return components.reduce(0) { $0 + $1.size }
        case .paths(let entries): return entries.reduce(0) { total, e in total + e.globs.reduce(0) { $0 + $1.size } }
        case .nothing: return 0
        }
    }

    /// Whether any pattern here was too large to compile (and so matches nothing).
    var hasTooLargePattern: Bool {
        switch kind {
        case .components(let components, _): return components.contains { c in [FailedKey.path, .query, .fragment].contains(where: c.isTooLarge) }
        case .paths(let entries): return entries.contains { $0.globs.contains { $0.isTooLarge } }
        case .nothing: return false
        }
    }

    /// One step of an explanation: a component (or legacy path entry) and how it fared.
    struct Step: Sendable, Equatable {
        var entry: Int
        var failed: FailedKey?
        /// The failed key's pattern was too large to compile (it matches nothing).
        var tooLarge = false
    }

    /// The decision and the entries tried, in order.
    func decide(_ s: inout Subject, explain: Bool) -> (AppSiteAssociation.Decision, [Step]) {
        var steps: [Step] = []
        switch kind {
        case .components(let components, let uniform?) where !explain:
            // Usual case: every component compares the same form of the path; fetch it once.
            let bytes = s.path(encoded: uniform.0, cased: uniform.1)
            let decision: AppSiteAssociation.Decision? = bytes.withUnsafeBufferPointer { buffer in
                for i in components.indices where components[i].failure(&s, path: buffer) == nil {
                    return components[i].exclude ? .exclude : .match
                }
                return nil
            }
            if let decision { return (decision, []) }
        case .components(let components, _):
            for i in components.indices {
                let failed = components[i].failure(&s)
                if explain { steps.append(Step(entry: i, failed: failed, tooLarge: failed.map(components[i].isTooLarge) ?? false)) }
                if failed == nil { return (components[i].exclude ? .exclude : .match, steps) }
            }
        case .paths(let entries):
            let path = s.path(encoded: true, cased: true)
            for (i, e) in entries.enumerated() {
                let hit = path.withUnsafeBufferPointer { buffer in e.globs.contains { $0.matches(buffer) } }
                if explain { steps.append(Step(entry: i, failed: hit ? nil : .path, tooLarge: !hit && e.globs.contains { $0.isTooLarge })) }
                if hit { return (e.exclude ? .exclude : .match, steps) }
            }
        case .nothing: break
        }
        return (.noMatch, steps)
    }
}
