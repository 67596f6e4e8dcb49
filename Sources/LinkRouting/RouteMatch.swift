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
