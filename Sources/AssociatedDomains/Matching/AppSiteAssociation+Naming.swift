import SwitchyardCore

extension AppSiteAssociation {
    /// The name of detail `detail` as the file writes it: "details[0]", or
    /// "details[\"TEAMID.bundle.id\"]" in the legacy dictionary form.
    public func detailName(_ detail: Int) -> String {
        let location = applinks?.details.first(where: { $0.index == detail })?.location ?? "applinks.details[\(detail)]"
        return location.hasPrefix("applinks.") ? String(location.dropFirst("applinks.".count)) : location
    }

    /// A short rendering of a component (`{"/": "/buy/*", "exclude": true}`) or legacy path of
    /// detail `detail`, for explanations; a pattern of thousands of characters is shown by its
    /// start and its size.
    public func describe(detail: Int, entry: Int, legacy: Bool) -> String {
        // A pattern of thousands of characters is shown by its start and its size.
        func quote(_ text: String) -> String {
            text.utf8.count <= 200 ? JSONWriter.quote(text) : JSONWriter.quote(String(text.prefix(80))) + "… (\(text.utf8.count) bytes)"
        }
        guard let d = applinks?.details.first(where: { $0.index == detail }) else { return "" }
        if legacy { return quote(d.paths?[entry] ?? "") }
        guard let c = d.components?.first(where: { $0.index == entry }) else { return "" }
        var parts: [String] = []
        if let p = c.path { parts.append("\"/\": \(quote(p))") }
        switch c.query {
        case .whole(let s)?: parts.append("\"?\": \(quote(s))")
        case .items(let items)?: parts.append("\"?\": {" + items.map { "\(quote($0.name)): \(quote($0.pattern))" }.joined(separator: ", ") + "}")
        case .voided?: parts.append("\"?\": (ignored)")
        case nil: break
        }
        if let f = c.fragment { parts.append("\"#\": \(quote(f))") }
        if c.exclude { parts.append("\"exclude\": true") }
        return "{" + parts.joined(separator: ", ") + "}"
    }
}
