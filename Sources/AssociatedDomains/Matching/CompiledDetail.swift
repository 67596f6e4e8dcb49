import LinkRouting

/// The text of one URL in the forms a decision may need, computed at most once each.
struct Subject {
    let parts: URLParts
    private var cache: [String?] = [nil, nil, nil, nil]  // path: raw/decoded × cased/lowercased
    private var items: [[(name: String, value: String)]?] = [nil, nil, nil, nil]

    init(_ parts: URLParts) { self.parts = parts }

    static func normalise(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    static func variant(_ s: String, encoded: Bool, cased: Bool) -> String {
        var t = encoded ? s : PercentText.decode(s)
        if !cased { t = t.lowercased() }
        return t
    }

    mutating func path(encoded: Bool, cased: Bool) -> String {
        let k = (encoded ? 0 : 2) + (cased ? 0 : 1)
        if let p = cache[k] { return p }
        let p = Self.normalise(Self.variant(parts.path, encoded: encoded, cased: cased))
        cache[k] = p
        return p
    }

    func query(encoded: Bool, cased: Bool) -> String { Self.variant(parts.query ?? "", encoded: encoded, cased: cased) }
    func fragment(encoded: Bool, cased: Bool) -> String { Self.variant(parts.fragment ?? "", encoded: encoded, cased: cased) }

    mutating func queryItems(encoded: Bool, cased: Bool) -> [(name: String, value: String)] {
        let k = (encoded ? 0 : 2) + (cased ? 0 : 1)
        if let i = items[k] { return i }
        let i = parts.rawQueryItems.map { (Self.variant($0.name, encoded: encoded, cased: cased), Self.variant($0.value, encoded: encoded, cased: cased)) }
        items[k] = i
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

    /// The path pattern as iOS reads it: leading "/" optional, trailing "/" irrelevant, and
    /// "/x/*" also matching "/x".
    static func pathAlternatives(_ pattern: String) -> [String] {
        var p = pattern
        if !p.hasPrefix("/") && !p.hasPrefix("*") { p = "/" + p }
        p = Subject.normalise(p)
        var out = [p]
        if p.hasSuffix("/*") {
            let shorter = String(p.dropLast(2))
            out.append(shorter.isEmpty ? "/" : shorter)
        }
        return out
    }

    init(_ c: Component, defaults: [MatchingDefaults], variables: [String: [String]]) {
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

    /// nil when every given key matches, else the first key that failed.
    func failure(_ s: inout Subject) -> FailedKey? {
        if let path {
            let text = s.path(encoded: percentEncoded, cased: caseSensitive)
            if !path.contains(where: { $0.matches(text) }) { return .path }
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
        case components([CompiledComponent])
        case paths([(exclude: Bool, globs: [Glob])])
        case nothing
    }
    let kind: Kind

    /// One step of an explanation: a component (or legacy path entry) and how it fared.
    struct Step: Sendable, Equatable {
        var entry: Int
        var failed: FailedKey?
    }

    /// The decision and the entries tried, in order.
    func decide(_ s: inout Subject, explain: Bool) -> (Decision, [Step]) {
        var steps: [Step] = []
        switch kind {
        case .components(let components):
            for (i, c) in components.enumerated() {
                let failed = c.failure(&s)
                if explain { steps.append(Step(entry: i, failed: failed)) }
                if failed == nil { return (c.exclude ? .exclude : .match, steps) }
            }
        case .paths(let entries):
            let path = s.path(encoded: true, cased: true)
            for (i, e) in entries.enumerated() {
                let hit = e.globs.contains { $0.matches(path) }
                if explain { steps.append(Step(entry: i, failed: hit ? nil : .path)) }
                if hit { return (e.exclude ? .exclude : .match, steps) }
            }
        case .nothing: break
        }
        return (.noMatch, steps)
    }
}
