import Foundation

/// A landing-page visit as recorded: one row per link, second, platform, referrer host, bot flag
/// and kept address, with how many visits it stands for (identical visits in one second share a
/// row, so a burst costs one row, not thousands).
package struct Visit: Sendable, Hashable {
    /// The short code of the link visited.
    package var code: String
    /// Seconds since 1970, UTC.
    package var second: Int64
    /// The visitor's platform.
    package var platform: VisitPlatform
    /// The lower-cased host of the `Referer` header (http, https or `android-app:`); nil when there was none or it was not one of those.
    package var referrerHost: String?
    /// A link preview, crawler or prefetch (never a click).
    package var bot: Bool
    /// The anonymized address, or nil when addresses are not kept.
    package var address: String?

    /// A visit of this link at `date`, truncated to the whole second.
    package init(code: String, at date: Date, platform: VisitPlatform, referrerHost: String? = nil, bot: Bool = false, address: String? = nil) {
        self.code = code
        self.second = Int64(date.timeIntervalSince1970.rounded(.down))
        self.platform = platform
        self.referrerHost = referrerHost
        self.bot = bot
        self.address = address
    }
}
