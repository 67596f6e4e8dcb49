import SwitchyardCore

/// The campaign a link carries: the `utm_*` values its visits are counted under when the visited
/// URL names none, and that the landing page can hand on to the web page and the stores. The
/// same five values a visit records, so a link's campaign becomes its visits' as it is.
package typealias LinkCampaign = Visit.Campaign

extension Visit.Campaign {
    /// At most this many characters of a `utm_*` value are kept (a link's own may be no longer).
    package static let maximumCharacters = 200

    /// The field names, as the API and the stored JSON spell them, with their `utm_` parameter.
    package static var fields: [(name: String, parameter: String, path: WritableKeyPath<Visit.Campaign, String?>)] { [
        ("source", "utm_source", \.source), ("medium", "utm_medium", \.medium), ("campaign", "utm_campaign", \.campaign),
        ("term", "utm_term", \.term), ("content", "utm_content", \.content),
    ] }

    /// The `utm_*` query parameters of the values set, in the usual order.
    package var parameters: [(String, String)] { Self.fields.compactMap { f in self[keyPath: f.path].map { (f.parameter, $0) } } }

    /// The values as a JSON object (`{"source": …}`), only those set.
    package var json: JSONValue { .object(Self.fields.compactMap { f in self[keyPath: f.path].map { (f.name, .string($0)) } }) }

    /// The campaign of a stored or sent JSON object; members of other names and non-text values
    /// are not read (the API checks them before they are stored).
    package init(json: JSONValue?) {
        self.init()
        for f in Self.fields { self[keyPath: f.path] = json?[f.name]?.stringValue }
    }
}
