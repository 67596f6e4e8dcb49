import SwitchyardCore
extension LinkRouter {
    /// The canonical URL for a route and its parameters (first host, https; or the custom
    /// scheme), every value percent-encoded so that routing it gives the same match back.
    /// Returns nil when the route does not exist or a required parameter is missing or ill-typed.
    public func url(for match: RouteMatch) -> String? {
        url(route: match.route, parameters: match.parameters)
    }

    /// The canonical URL for the route named `name` with `parameters`, built as `url(for:)` describes; nil
    /// when the route does not exist or a required parameter is missing or ill-typed.
    public func url(route name: String, parameters: [String: RouteValue]) -> String? {
        guard let route = routes.first(where: { $0.name == name }) else { return nil }
        var text: String
        var pieces: [String] = []
        var embedded: String?
        for segment in route.segments {
            switch segment {
            case .literal(let s): pieces.append(PercentText.encode(s))
            case .parameter(let name, .url):
                guard let v = parameters[name] else { return nil }
                embedded = v.text
            case .parameter(let name, .rest):
                let v = parameters[name]?.text ?? ""
                pieces += v.split(separator: "/", omittingEmptySubsequences: true).map { PercentText.encode(String($0)) }
            case .parameter(let name, let type):
                guard let v = parameters[name], type.value(v.text) != nil else { return nil }
                pieces.append(PercentText.encode(v.text))
            }
        }
        switch route.kind {
        case .universal:
            guard let host = hosts.first else { return nil }
            text = "https://\(host)/" + pieces.joined(separator: "/")
        case .scheme(let scheme):
            text = "\(scheme)://" + pieces.joined(separator: "/")
        }
        if let embedded {
            // The embedded URL keeps its own query; the route's query items cannot follow it.
            if !text.hasSuffix("/") { text += "/" }
            return route.query.isEmpty ? text + embedded : nil
        }
        var items: [String] = []
        for q in route.query {
            guard let v = parameters[q.parameter] else {
                if q.optional { continue } else { return nil }
            }
            guard q.type.value(v.text) != nil else { return nil }
            items.append(PercentText.encode(q.item) + "=" + PercentText.encode(v.text))
        }
        if !items.isEmpty { text += "?" + items.joined(separator: "&") }
        return text
    }
}
