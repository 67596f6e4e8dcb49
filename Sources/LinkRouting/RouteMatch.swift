import SwitchyardCore
/// A routed URL: the route's name and its typed parameters.
public struct RouteMatch: Sendable, Equatable, CustomStringConvertible {
    public var route: String
    /// Index of the route in its table.
    public var index: Int
    public var parameters: [String: RouteValue]

    public init(route: String, index: Int = 0, parameters: [String: RouteValue]) {
        self.route = route
        self.index = index
        self.parameters = parameters
    }

    public subscript(_ name: String) -> RouteValue? { parameters[name] }

    public func string(_ name: String) -> String? { parameters[name]?.text }

    public func int(_ name: String) -> Int? {
        if case .int(let i)? = parameters[name] { return i }
        return nil
    }

    public var description: String {
        route + "(" + parameters.keys.sorted().map { "\($0): \(parameters[$0]!)" }.joined(separator: ", ") + ")"
    }
}

/// The outcome of routing: a match, or the reason nothing matched.
public enum RouteResult: Sendable, Equatable {
    case matched(RouteMatch)
    case unmatched(reason: String)

    public var match: RouteMatch? {
        if case .matched(let m) = self { return m }
        return nil
    }
}
