extension LinkRouter {
    /// The universal routes (in table order) that would take `url` if every parameter took any
    /// non-empty text: the URL's path has the route's literal segments and as many others, and
    /// its query holds the route's required items, whatever their values. These are the routes
    /// an association-file pattern stands for, as a pattern cannot say "digits" or "a UUID":
    /// `/p/abc` has the shape of `/p/{id:int}` though that route refuses it.
    public func routesByShape(_ url: String) -> [Route] {
        guard let (scheme, host, path, query, _) = Self.split(url), scheme == "https" || scheme == "http", hosts.contains(host) else { return [] }
        let decoded = path.fastSplit(UInt8(ascii: "/")).map { PercentText.decode(String($0)) }
        let names = Set(PercentText.queryItems(query).filter { !$0.value.isEmpty }.map(\.name))
        return routes.filter { route in
            guard route.kind == .universal, route.query.allSatisfy({ $0.optional || names.contains($0.item) }) else { return false }
            var i = 0
            for segment in route.segments {
                switch segment {
                case .literal(let text):
                    guard i < decoded.count, ExactText.same(decoded[i], text) else { return false }
                    i += 1
                case .parameter(_, .rest): return true
                case .parameter(_, .url): return i < decoded.count
                case .parameter(_, .oneOf(let values)):
                    guard i < decoded.count, values.contains(where: { ExactText.same($0, decoded[i]) }) else { return false }
                    i += 1
                case .parameter:
                    guard i < decoded.count else { return false }
                    i += 1
                }
            }
            return i == decoded.count
        }
    }
}
