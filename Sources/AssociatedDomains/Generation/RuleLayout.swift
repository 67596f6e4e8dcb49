import LinkRouting

/// How a route table becomes association-file patterns that decide every URL as the router does.
///
/// Both platforms try their entries in order and the first match decides; a pattern's `*`
/// (and `?`) also matches `/`, so `/recipes/?*` alone would take `/recipes/1/x`, which no
/// route takes. The layout therefore groups entries by the number of path segments a URL has
/// (the router ignores empty segments, so `/a//b/` has two):
///
/// - first, for routes ending in `{rest:*}` or `{x:url}`, a form for URLs *longer* than any
///   other route (`/docs/?*/?*` matches three or more segments), then an exclusion
///   `/?*/?*/?*` for every other URL that long;
/// - then, from the longest segment count down to the root, the routes (in table order) that
///   take URLs of exactly that many segments, each followed by an exclusion of URLs of that
///   many segments or more that nothing above took.
///
/// Within a segment count the routes keep their table order, as the router's first match
/// does; routes of different counts never take the same URL. A parameter is `?*` (one or more
/// characters, as the router needs a non-empty segment), a UUID is a run of `?` in its
/// 8-4-4-4-12 shape, an enum is one entry per value, a required query item is `?*`. Android
/// compares a trailing slash (`/search/`) that iOS drops and the router ignores, so its rules
/// add the slashed form of every pattern that ends in fixed text.
///
/// What a pattern cannot say: that a segment holds digits (`{id:int}`), hex digits (a UUID),
/// or an embedded URL (`{x:url}`). Both platforms then open such URLs in the app alike, and
/// ``RouteCoverage/check(router:aasa:appID:)`` says so once per route.
struct RuleLayout {
    /// One generated entry: the rule and the route it stands for (nil for a layout exclusion).
    struct Entry {
        var rule: AssetLinks.DynamicRule
        var route: String?
        var comment: String
    }

    /// A route's path as pattern text.
    struct Shape {
        var route: Route
        /// The fixed part of the path, one text per enum combination: `/recipes/?*`; "" at the root.
        var heads: [String]
        /// Segments before the tail.
        var count: Int
        /// Fewest segments the tail takes: nil (no tail), 0 (`{rest:*}`), 1 (`{x:url}`).
        var tail: Int?
        /// The required query items as patterns, one list per enum combination.
        var query: [[AssetLinks.DynamicRule.QueryPattern]]
        /// Enum parameters written as `?*`: past ``mostCombinations``, the route's patterns
        /// would be too many, so they are wider than the route.
        var widened: [String] = []

        /// The most URL shapes one route expands to through its enums; past it, an enum is `?*`.
        static let mostCombinations = 64

        init(_ route: Route) {
            self.route = route
            var heads = [""]
            var count = 0
            var tail: Int?
            for segment in route.segments {
                switch segment {
                case .literal(let text): heads = heads.map { $0 + "/" + text }
                case .parameter(_, .rest): tail = 0
                case .parameter(_, .url): tail = 1
                case .parameter(_, .uuid): heads = heads.map { $0 + "/" + Self.uuidMask }
                case .parameter(_, .oneOf(let values)) where heads.count * values.count <= Self.mostCombinations:
                    heads = heads.flatMap { head in values.map { head + "/" + $0 } }
                case .parameter(let name, let type):
                    if case .oneOf = type { widened.append(name) }
                    heads = heads.map { $0 + "/?*" }
                }
                if tail == nil { count += 1 }
            }
            (self.heads, self.count, self.tail) = (heads, count, tail)
            // A required enum item is one entry per value, within the same bound.
            var queries: [[AssetLinks.DynamicRule.QueryPattern]] = [[]]
            for item in route.query where !item.optional {
                if case .oneOf(let values) = item.type, heads.count * queries.count * values.count <= Self.mostCombinations {
                    queries = queries.flatMap { q in values.map { q + [.init(name: item.item, value: $0)] } }
                } else {
                    if case .oneOf = item.type { widened.append("?" + item.item) }
                    queries = queries.map { $0 + [.init(name: item.item, value: "?*")] }
                }
            }
            query = queries
        }

        /// A UUID's shape: 36 characters, hyphens after the 8th, 12th, 16th and 20th.
        static let uuidMask = "????????-????-????-????-????????????"

        /// The paths that take URLs of exactly `segments` segments (or, with `orMore`, that many
        /// or more); empty when the route takes none. `android` adds the trailing-slash form.
        func paths(segments: Int, orMore: Bool, android: Bool) -> [String] {
            let extra = segments - count
            if let tail {
                guard extra >= max(tail, orMore ? 1 : 0) else { return [] }
            } else {
                guard extra == 0, !orMore else { return [] }
            }
            if extra == 0 {
                return heads.flatMap { head -> [String] in
                    if head.isEmpty { return ["/"] }
                    return android && !head.hasSuffix("?*") ? [head, head + "/"] : [head]
                }
            }
            let more = String(repeating: "/?*", count: extra)
            return heads.map { $0 + more }
        }
    }

    let shapes: [Shape]
    /// The segment count of the group before which every longer URL has been decided: one
    /// more than the most segments a route without a tail (or a tail's least) takes.
    let top: Int

    /// The shape of the universal route named `name`.
    func shape(named name: String) -> Shape? { byName[name] }
    private let byName: [String: Shape]

    init(_ router: LinkRouter) {
        shapes = router.routes.filter { $0.kind == .universal }.map(Shape.init)
        byName = Dictionary(shapes.map { ($0.route.name, $0) }, uniquingKeysWith: { a, _ in a })
        top = (shapes.map { $0.count + ($0.tail ?? 0) }.max() ?? 0) + 1
    }

    /// Whether two paths of one group may match the same URL: segment by segment, equal text,
    /// or a wildcard that may match the other's text (a trailing slash is the same URL's).
    static func overlap(_ a: String, _ b: String) -> Bool {
        func parts(_ p: String) -> [Substring] { (p.hasSuffix("/") && p.count > 1 ? p.dropLast() : p[...]).split(separator: "/", omittingEmptySubsequences: false) }
        let (x, y) = (parts(a), parts(b))
        guard x.count == y.count else { return true }  // cannot tell: keep the exclusion
        return zip(x, y).allSatisfy { s, t in
            if s == t { return true }
            let (sWild, tWild) = (s.contains("*") || s.contains("?"), t.contains("*") || t.contains("?"))
            if sWild && tWild { return true }
            if sWild { return Glob(String(s), substitutions: false).matches(String(t)) }
            if tWild { return Glob(String(t), substitutions: false).matches(String(s)) }
            return false
        }
    }

    /// Every entry in the order both platforms should try them.
    func entries(android: Bool) -> [Entry] {
        // Groups from the top (URLs of `top` segments or more) down to the root.
        var groups: [[Entry]] = []
        for segments in stride(from: top, through: 0, by: -1) {
            let orMore = segments == top
            groups.append(shapes.flatMap { shape in
                shape.paths(segments: segments, orMore: orMore, android: android).flatMap { path in
                    shape.query.map { query in
                        Entry(rule: .init(path: path, query: query, exclude: shape.route.exclude), route: shape.route.name, comment: "route \(shape.route.name)")
                    }
                }
            })
        }
        // A route's exclusion matters only where a later route of the same segment count could
        // take its URLs; any other URL of that count reaches no pattern, or the guard below.
        groups = groups.map { group in
            group.enumerated().filter { index, entry in
                !entry.rule.exclude || group[(index + 1)...].contains { !$0.rule.exclude && Self.overlap(entry.rule.path ?? "", $0.rule.path ?? "") }
            }.map(\.element)
        }
        var out: [Entry] = []
        for (i, group) in groups.enumerated() {
            out += group
            let segments = top - i
            // After a group, a URL of that many segments or more that nothing took has no route;
            // it must not reach a later, shorter pattern whose wildcards would cover its slashes.
            let later = groups[(i + 1)...].joined()
            guard segments > 0, later.contains(where: { !$0.rule.exclude && ($0.rule.path ?? "").contains(where: { $0 == "*" || $0 == "?" }) }) else { continue }
            let path = String(repeating: "/?*", count: segments)
            out.append(Entry(rule: .init(path: path, exclude: true), route: nil,
                             comment: "URLs of \(segments) or more path segments that no route above takes"))
        }
        // Exclusions with nothing after them decide nothing: a URL no entry matches stays in the browser too.
        while out.last?.rule.exclude == true { out.removeLast() }
        return out
    }
}
