import Foundation

/// A landing-page visit as recorded: one row per link, second, platform, referrer host, bot flag,
/// kept address, place, software, campaign and visitor, with how many visits it stands for
/// (identical visits in one second share a row, so a burst costs one row, not thousands).
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
    /// The audience part, boxed: the page path copies a visit a few times, and a copy of a box
    /// is one reference where the fields inline were a dozen (nil: all of them empty).
    private var box: AudienceBox?

    /// Where the visitor was, as far as the configuration looks (`visits.geo`).
    package var place: Place {
        get { box?.value.place ?? Place() }
        set { updateAudience { $0.place = newValue } }
    }
    /// The browser, OS and device families of the visitor's User-Agent (ua-parser's names).
    package var software: Software {
        get { box?.value.software ?? Software() }
        set { updateAudience { $0.software = newValue } }
    }
    /// The `utm_*` parameters of the visited URL.
    package var campaign: Campaign {
        get { box?.value.campaign ?? Campaign() }
        set { updateAudience { $0.campaign = newValue } }
    }
    /// The visitor of the day: a keyed hash of address, User-Agent and link under the day's
    /// secret, which is deleted when the day is over; nil when uniques are not counted.
    package var visitor: String? {
        get { box?.value.visitor }
        set { updateAudience { $0.visitor = newValue } }
    }
    /// What the record is made from before it is written: never stored (see ``Observed``).
    package var observed: Observed? {
        get { box?.value.observed }
        set { updateAudience { $0.observed = newValue } }
    }

    /// The audience part of a visit.
    package struct Audience: Sendable, Hashable {
        package var place = Place()
        package var software = Software()
        package var campaign = Campaign()
        package var visitor: String?
        package var observed: Observed?
        package init() {}
        var isEmpty: Bool { self == Audience() }
    }

    private final class AudienceBox: Sendable {
        let value: Audience
        init(_ value: Audience) { self.value = value }
    }

    /// Changes the audience part in one step (one new box, not one per field).
    package mutating func updateAudience(_ change: (inout Audience) -> Void) {
        var value = box?.value ?? Audience()
        change(&value)
        box = value.isEmpty ? nil : AudienceBox(value)
    }

    /// Every field equal, the audience part by value.
    package static func == (a: Visit, b: Visit) -> Bool {
        guard a.code == b.code, a.second == b.second, a.platform == b.platform, a.bot == b.bot, a.address == b.address,
              a.referrerHost == b.referrerHost else { return false }
        if a.box === b.box { return true }
        return (a.box?.value ?? Audience()) == (b.box?.value ?? Audience())
    }

    /// Continent, country, region and city of a visit (codes as the geo database or the trusted
    /// proxy gives them).
    package struct Place: Sendable, Hashable {
        /// The continent code (`EU`).
        package var continent: String?
        /// The ISO 3166-1 country code (`GB`).
        package var country: String?
        /// The first-level subdivision's ISO 3166-2 code (`GB-ENG`).
        package var region: String?
        /// The city's English name.
        package var city: String?
        package init(continent: String? = nil, country: String? = nil, region: String? = nil, city: String? = nil) {
            (self.continent, self.country, self.region, self.city) = (continent, country, region, city)
        }
    }

    /// The families ua-parser names for a User-Agent (`Chrome Mobile`, `Android`, `Samsung SM-G991B`).
    package struct Software: Sendable, Hashable {
        package var browser: String?
        package var os: String?
        package var device: String?
        package init(browser: String? = nil, os: String? = nil, device: String? = nil) {
            (self.browser, self.os, self.device) = (browser, os, device)
        }
    }

    /// The five `utm_*` parameters of the visited URL.
    package struct Campaign: Sendable, Hashable {
        package var source: String?
        package var medium: String?
        package var campaign: String?
        package var term: String?
        package var content: String?
        package init(source: String? = nil, medium: String? = nil, campaign: String? = nil, term: String? = nil, content: String? = nil) {
            (self.source, self.medium, self.campaign, self.term, self.content) = (source, medium, campaign, term, content)
        }
        package var isEmpty: Bool { source == nil && medium == nil && campaign == nil && term == nil && content == nil }
    }

    /// What a visit's place, software and visitor are made from, held in memory between the
    /// request and the batched write that reads it (off the event loop) and drops it: the full
    /// address, the User-Agent, and the country a trusted proxy named.
    package struct Observed: Sendable, Hashable {
        package var address: String?
        package var userAgent: String?
        package var proxyCountry: String?
        package init(address: String? = nil, userAgent: String? = nil, proxyCountry: String? = nil) {
            (self.address, self.userAgent, self.proxyCountry) = (address, userAgent, proxyCountry)
        }
    }

    /// Hashes what tells most records apart (link, second, platform, preview flag, network):
    /// the page path adds each visit to a dictionary of pending records, and hashing the
    /// User-Agent and the rest there cost more than the rare equal hash does. Equality still
    /// compares every field.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(second)
        hasher.combine(platform)
        hasher.combine(bot)
        hasher.combine(address)
    }

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
