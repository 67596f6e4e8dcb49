/// Where a visit came from, as visits, day rows and `link.clicked` events record it.
package enum VisitPlatform: String, Sendable, Hashable, CaseIterable {
    /// An iPhone, iPad or iPod.
    case ios
    /// An Android device.
    case android
    /// Anything else with a User-Agent, and none.
    case desktop
    /// A click counted without a platform (the API's own counting).
    case unknown
    /// A link preview, crawler or prefetch: recorded beside clicks, never counted as one.
    case bot

    /// The platform of stored `text`; a value this version does not know reads as `unknown`.
    package init(stored text: String?) { self = text.flatMap(VisitPlatform.init(rawValue:)) ?? .unknown }
}

/// The app platform a deferred deep link is issued for.
package enum AppPlatform: String, Sendable, Hashable, CaseIterable {
    case ios, android
}
