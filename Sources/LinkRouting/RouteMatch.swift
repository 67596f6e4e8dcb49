import SwitchyardCore
/// A routed URL: the route's name and its typed parameters. `Hashable` and `Codable`, so it can go
/// into a `NavigationPath` or be saved for state restoration as it is.
public struct RouteMatch: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Name of the matched route.
    public var route: String
    /// Index of the route in its table.
    public var index: Int
    /// Parameter values by name, from the path and the query; an optional query item that was absent has no entry.
    public var parameters: [String: RouteValue]

    /// A match of the route named `route` (at `index` in its table, 0 by default) with `parameters`.
    public init(route: String, index: Int = 0, parameters: [String: RouteValue]) {
        self.route = route
        self.index = index
        self.parameters = parameters
    }

    /// The value of parameter `name`, or nil when the match has none.
    public subscript(_ name: String) -> RouteValue? { parameters[name] }

    /// The value of parameter `name` as text (an integer or URL as it appears in a URL), or nil when absent.
    public func string(_ name: String) -> String? { parameters[name]?.text }

    /// The value of parameter `name` when it is an integer (an `int` parameter), otherwise nil.
    public func int(_ name: String) -> Int? {
        if case .int(let i)? = parameters[name] { return i }
        return nil
    }

    /// `route(name: value, …)`, parameters sorted by name.
    public var description: String {
        route + "(" + parameters.keys.sorted().map { "\($0): \(parameters[$0]!)" }.joined(separator: ", ") + ")"
    }
}

/// The outcome of routing: a match, or the reason nothing matched.
public enum RouteResult: Sendable, Equatable {
    case matched(RouteMatch)
    case unmatched(reason: String)

    /// The match, or nil when nothing matched.
    public var match: RouteMatch? {
        if case .matched(let m) = self { return m }
        return nil
    }
}

extension RouteMatch {
    /// The match as `switchyard route --json` writes it: the route, and its parameters by name
    /// (sorted), integers as numbers and an embedded URL with the route it matched (or null).
    public var json: JSONValue {
        .object([
            ("route", .string(route)),
            ("parameters", .object(parameters.keys.sorted().map { k in
                let v = parameters[k]!
                switch v {
                case .int(let i): return (k, .int(i))
                case .url(let u, let nested): return (k, .object([("url", .string(u)), ("route", nested?.json ?? .null)]))
                default: return (k, .string(v.text))
                }
            })),
        ])
    }
}

extension LinkRouter {
    /// `url` routed as `switchyard route` routes it: read as a browser hands a tapped link to the
    /// app (`\` as `/`, host case, default port and dot segments settled), then matched. The
    /// answer as one JSON object (`url`, then the match, or `route: null` and the reason) and as
    /// lines (`URL → route(parameters)` and the canonical URL when it differs, or `URL → no
    /// route: reason`); escape the lines before they reach a terminal.
    public func answer(_ url: String) -> (matched: Bool, json: JSONValue, lines: [String]) {
        switch route(BrowserURL.normalized(url)) {
        case .matched(let m):
            let canonical = self.url(for: m).flatMap { $0 == url ? nil : "  canonical: \($0)" }
            return (true, .object([("url", .string(url))] + (m.json.objectMembers ?? [])), ["\(url) → \(m)"] + (canonical.map { [$0] } ?? []))
        case .unmatched(let reason):
            return (false, .object([("url", .string(url)), ("route", .null), ("reason", .string(reason))]), ["\(url) → no route: \(reason)"])
        }
    }
}
