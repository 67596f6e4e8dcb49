import Foundation
import SwitchyardCore

/// One entry of a route table.
///
/// A `pattern` is either a universal-link path (`/join/{groupId}`, served on the table's hosts)
/// or a custom-scheme URL (`plur://group/{groupId}`, whose host is the first segment).
/// `plur://` alone is a scheme-only route; a trailing `{rest:*}` or `*` is a catch-all.
public struct Route: Sendable, Equatable {
    /// Whether a route is a universal link on the table's hosts or a custom-scheme URL.
    public enum Kind: Sendable, Equatable {
        /// https (and http) on the table's hosts.
        case universal
        /// A custom scheme such as `plur`.
        case scheme(String)
    }

    /// The route's name, unique in its table; matches report it and URL building looks routes up by it.
    public var name: String
    /// The pattern as written: `/join/{groupId}` or `plur://group/{groupId}`.
    public var pattern: String
    /// Universal link or custom scheme, taken from the pattern's scheme (none, http or https mean universal).
    public var kind: Kind
    /// The path's segments as parsed (a full `https://host/…` pattern's host left out): what the
    /// AASA generator and the service's own-path check read, rather than the pattern's text.
    package var segments: [Segment]
    /// The query items the route reads, in the order given.
    public var query: [QueryParameter]
    /// When true, AASA generation emits an `exclude` component for it.
    public var exclude: Bool

    /// Parses `pattern`; `query` maps item names to `param`, `param:type`, `param?` (optional).
    public init(name: String, pattern: String, query: [(item: String, spec: String)] = [], exclude: Bool = false) throws(RouteTableError) {
        self.name = name
        self.pattern = pattern
        self.exclude = exclude
        var rest = Substring(pattern)
        if let sep = rest.range(of: "://") {
            let scheme = rest[..<sep.lowerBound].lowercased()
            guard URLInput.isSchemeName(scheme) else {
                throw RouteTableError("route \(name): \(JSONWriter.quote(String(scheme))) is not a valid URL scheme")
            }
            if scheme == "https" || scheme == "http" {
                // A full universal link: the host is the table's, keep the path.
                rest = rest[sep.upperBound...]
                rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
                kind = .universal
            } else {
                kind = .scheme(scheme)
                rest = rest[sep.upperBound...]
            }
        } else {
            guard rest.hasPrefix("/") else { throw RouteTableError("route \(name): pattern \(JSONWriter.quote(pattern)) must start with / or scheme://") }
            kind = .universal
        }
        var segments: [Segment] = []
        let parts = rest.split(separator: "/", omittingEmptySubsequences: true)
        for (i, part) in parts.enumerated() {
            if part == "*" {
                segments.append(.parameter(name: "*", type: .rest))
            } else if part.hasPrefix("{") && part.hasSuffix("}") && part.dropFirst().dropLast().allSatisfy({ $0 != "{" && $0 != "}" }) {
                let inner = part.dropFirst().dropLast()
                let colon = inner.firstIndex(of: ":")
                let pname = String(colon.map { inner[..<$0] } ?? inner)
                let type: ParameterType
                do { type = try ParameterType(colon.map { inner[inner.index(after: $0)...] } ?? "") } catch {
                    throw RouteTableError("route \(name): \(JSONWriter.quote(String(part))): \(error.message)")
                }
                guard !pname.isEmpty else { throw RouteTableError("route \(name): empty parameter name in \(JSONWriter.quote(String(part)))") }
                segments.append(.parameter(name: pname, type: type))
            } else if part.contains("{") || part.contains("}") {
                throw RouteTableError("route \(name): \(JSONWriter.quote(String(part))) mixes text and a parameter, or holds more than one; a parameter must be a whole segment")
            } else {
                segments.append(.literal(String(part)))
            }
            if case .parameter(_, let t) = segments.last!, t == .url || t == .rest, i != parts.count - 1 {
                throw RouteTableError("route \(name): a url or * parameter must be the last segment")
            }
        }
        self.segments = segments
        self.query = try query.map { item, spec throws(RouteTableError) in
            var s = Substring(spec)
            let optional = s.hasSuffix("?")
            if optional { s = s.dropLast() }
            let colon = s.firstIndex(of: ":")
            let pname = String(colon.map { s[..<$0] } ?? s)
            guard !pname.isEmpty else { throw RouteTableError("route \(name): query item \(JSONWriter.quote(item)) names no parameter") }
            let type: ParameterType
            do throws(RouteTableError) { type = try ParameterType(colon.map { s[s.index(after: $0)...] } ?? "") } catch {
                throw RouteTableError("route \(name): query item \(JSONWriter.quote(item)): \(error.message)")
            }
            if type == .url || type == .rest { throw RouteTableError("route \(name): query item \(JSONWriter.quote(item)) cannot be of type \(type)") }
            return QueryParameter(item: item, parameter: pname, type: type, optional: optional)
        }
        var names = Set<String>()
        for case .parameter(let n, _) in segments where n != "*" {
            guard names.insert(n).inserted else { throw RouteTableError("route \(name): parameter \(n) appears twice") }
        }
        for q in self.query {
            guard names.insert(q.parameter).inserted else { throw RouteTableError("route \(name): parameter \(q.parameter) appears twice") }
        }
    }

    /// The parameter names this route binds, path first.
    public var parameterNames: [String] {
        segments.compactMap { if case .parameter(let n, _) = $0 { return n } else { return nil } } + query.map(\.parameter)
    }
}

/// A route table that cannot be used (`invalid-route-table`): a bad pattern, an unknown
/// parameter type, an unknown key, with the file (and line and column, for a syntax error) when
/// the table came from one, and the YAML or JSON reader's error underneath.
public typealias RouteTableError = DomainError<RouteTableErrors>

/// The domain of ``RouteTableError``.
public enum RouteTableErrors: SingleCodeErrorDomain {
    /// Every route table error is `invalid-route-table`.
    public static var code: ErrorCode { .invalidRouteTable }
}

extension ErrorCode {
    /// A route table that cannot be used: a bad pattern, an unknown parameter type, an unknown key.
    public static let invalidRouteTable = ErrorCode("invalid-route-table")
}

extension Route {
    /// True when the last segment is a `{name:url}` parameter.
    var hasURLParameter: Bool {
        if case .parameter(_, .url)? = segments.last { return true }
        return false
    }

    /// Every parameter with its type, path first.
    public var typedParameters: [(name: String, type: ParameterType)] {
        segments.compactMap { if case .parameter(let n, let t) = $0 { return (n, t) } else { return nil } } + query.map { ($0.parameter, $0.type) }
    }
}
