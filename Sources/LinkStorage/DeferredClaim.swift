import Foundation
import SwitchyardCore

/// What a claim token stands for, copied when the page was shown.
package struct DeferredClaim: Sendable, Equatable {
    /// The short code of the link visited; nil for a route's landing page or a Firebase long link.
    package var code: String?
    /// The deep link the page offered, if it had one.
    package var deepLink: String?
    /// The route the claim stands for: a stored link's route, or a route page's app route (else
    /// the page's own route); nil for a link given as a deep link, and for a Firebase long link.
    package var route: String?
    /// The route's parameters by name.
    package var parameters: [String: String]
    /// The platform the token was issued for.
    package var platform: AppPlatform

    /// A claim for these fields.
    package init(code: String?, deepLink: String?, route: String?, parameters: [String: String], platform: AppPlatform) {
        self.code = code
        self.deepLink = deepLink
        self.route = route
        self.parameters = parameters
        self.platform = platform
    }
}

extension DeferredClaim {
    /// A claim as the claim API answers it and the `deferred.claimed` event carries it:
    /// `{"code","deepLink","route","parameters"}` (null when empty, parameters by name), then
    /// `match` or `platform` when given.
    package struct Answer: Encodable {
        package var code: String?
        package var deepLink: String?
        package var route: String?
        package var parameters: OrderedMembers<String>
        /// How a probabilistic match found the claim (the match API).
        package var match: String?
        /// The platform the token was issued for (the webhook event).
        package var platform: AppPlatform?

        package init(_ claim: DeferredClaim, match: String? = nil, platform: AppPlatform? = nil) {
            code = claim.code.map(LinkKey.code(of:))
            deepLink = claim.deepLink
            route = claim.route
            parameters = OrderedMembers(claim.parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
            self.match = match
            self.platform = platform
        }

        enum CodingKeys: String, CodingKey { case code, deepLink, route, parameters, match, platform }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(code, forKey: .code)
            try container.encode(deepLink, forKey: .deepLink)
            try container.encode(route, forKey: .route)
            try container.encode(parameters, forKey: .parameters)
            if let match { try container.encode(match, forKey: .match) }
            if let platform { try container.encode(platform.rawValue, forKey: .platform) }
        }

        /// The answer as a JSON value; its strings always encode.
        package var json: JSONValue { try! JSONValueEncoder().encode(self) }
    }
}
