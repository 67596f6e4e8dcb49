import SwitchyardCore

/// The campaign a link carries: the `utm_*` values its visits are counted under when the visited
/// URL names none, and that the landing page can hand on to the web page and the stores.
package struct LinkCampaign: Sendable, Equatable {
    /// `utm_source`: who sends the traffic (`newsletter`).
    package var source: String?
    /// `utm_medium`: how (`email`).
    package var medium: String?
    /// `utm_campaign`: what for (`spring-sale`).
    package var campaign: String?
    /// `utm_term`: the paid keyword.
    package var term: String?
    /// `utm_content`: which variant of the message.
    package var content: String?

    /// No values.
    package init() {}

    /// The field names, as the API and the stored JSON spell them, with their `utm_` parameter.
    package static var fields: [(name: String, parameter: String, path: WritableKeyPath<LinkCampaign, String?>)] { [
        ("source", "utm_source", \.source), ("medium", "utm_medium", \.medium), ("campaign", "utm_campaign", \.campaign),
        ("term", "utm_term", \.term), ("content", "utm_content", \.content),
    ] }

    /// True when no value is set.
    package var isEmpty: Bool { Self.fields.allSatisfy { self[keyPath: $0.path] == nil } }

    /// The `utm_*` query parameters of the values set, in the usual order.
    package var parameters: [(String, String)] { Self.fields.compactMap { f in self[keyPath: f.path].map { (f.parameter, $0) } } }

    /// The values as a JSON object (`{"source": …}`), only those set.
    package var json: JSONValue { .object(Self.fields.compactMap { f in self[keyPath: f.path].map { (f.name, .string($0)) } }) }

    /// The campaign of a stored or sent JSON object; members of other names and non-text values
    /// are not read (the API checks them before they are stored).
    package init(json: JSONValue?) {
        for f in Self.fields { self[keyPath: f.path] = json?[f.name]?.stringValue }
    }
}
