import Foundation
import SwitchyardCore

/// What a claim token stands for, copied when the page was shown.
public struct DeferredClaim: Sendable, Equatable {
    /// The short code of the link visited; nil for a route's landing page or a Firebase long link.
    public var code: String?
    /// The deep link the page offered, if it had one.
    public var deepLink: String?
    /// The route the claim stands for: a stored link's route, or a route page's app route (else
    /// the page's own route); nil for a link given as a deep link, and for a Firebase long link.
    public var route: String?
    /// The route's parameters by name.
    public var parameters: [String: String]
    /// The platform the token was issued for: `ios` or `android`.
    public var platform: String

    /// A claim for these fields.
    public init(code: String?, deepLink: String?, route: String?, parameters: [String: String], platform: String) {
        self.code = code
        self.deepLink = deepLink
        self.route = route
        self.parameters = parameters
        self.platform = platform
    }
}

extension DeferredClaim {
    /// What a redemption answers: `{"code","deepLink","route","parameters"}`, parameters by name.
    package var answer: [(key: String, value: JSONValue)] {
        [
            ("code", code.map(JSONValue.string) ?? .null),
            ("deepLink", deepLink.map(JSONValue.string) ?? .null),
            ("route", route.map(JSONValue.string) ?? .null),
            ("parameters", .object(parameters.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ]
    }
}
