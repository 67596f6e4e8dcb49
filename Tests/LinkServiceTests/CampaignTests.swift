import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
@testable import LinkStorage
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// Links carrying a campaign and tags (issue 45, item 3): stored and answered, filtered by tag,
/// handed on to the web page and the stores where `landing.campaignParameters` turns it on, and
/// counted as the campaign of visits whose URL names none.
@Suite struct CampaignTests {
    static let iPhone = LandingPageTests.iPhone
    static let android = DeferredTests.android

    static func landing(campaignParameters: Bool, providerToken: String? = nil) -> String {
        """
        landing:
          title: Plur
          campaignParameters: \(campaignParameters)
        \(providerToken.map { "  appStoreProviderToken: \"\($0)\"\n" } ?? "")  pages:
            join: {app: appJoinCommunity, title: "Join a Plur community"}
            joinCommunity: appJoinCommunity
            group: {app: appGroup, title: "A Plur community"}

        """
    }

    static let body = #"{"deepLink": "plur://group/c", "webURL": "https://rabble.community/welcome?ref=x#top", "utm": {"source": "news", "medium": "email", "campaign": "spring sale"}, "tags": ["spring", "email_2026"]}"#

    @Test(arguments: Backend.available)
    func aLinkKeepsItsCampaignAndTagsAndListsFilterByTag(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            let made = try await client.call(.post, "/api/links", token: h.writer, body: Self.body)
            #expect(made.status == .created, "\(made.text)")
            let code = try #require(made.json?["code"]?.stringValue)
            #expect(made.json?["utm"] == .object([("source", .string("news")), ("medium", .string("email")), ("campaign", .string("spring sale"))]))
            #expect(made.json?["tags"] == .array([.string("spring"), .string("email_2026")]))
            let plain = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/p", "tags": ["email-2026"]}"#).json?["code"]?.stringValue)
            let untagged = try await client.call(.get, "/api/links/\(plain)", token: h.reader)
            #expect(untagged.json?["utm"] == .object([]))

            // `_` is a tag character, not LIKE's wildcard: email_2026 is not email-2026.
            func listed(_ tag: String) async throws -> [String] {
                let answer = try await client.call(.get, "/api/links?tag=\(tag)", token: h.reader)
                #expect(answer.status == .ok, "\(answer.text)")
                return answer.json?["links"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
            }
            #expect(try await listed("email_2026") == [code])
            #expect(try await listed("email-2026") == [plain])
            #expect(try await listed("spring") == [code])
            #expect(try await listed("sprin") == [])
            let bad = try await client.call(.get, "/api/links?tag=Spring%20Sale", token: h.reader)
            #expect(bad.status == .badRequest && bad.json?.at("error.field") == .string("tag"), "\(bad.text)")

            // PATCH replaces the whole list and the whole campaign; null clears them.
            let patched = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"tags": ["autumn"], "utm": {"campaign": "autumn"}}"#)
            #expect(patched.status == .ok, "\(patched.text)")
            #expect(patched.json?["tags"] == .array([.string("autumn")]) && patched.json?["utm"] == .object([("campaign", .string("autumn"))]))
            #expect(try await listed("spring") == [])
            let cleared = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"tags": null, "utm": null}"#)
            #expect(cleared.json?["tags"] == .array([]) && cleared.json?["utm"] == .object([]), "\(cleared.text)")
            let stored = try #require(try await h.store.link(code: code))
            #expect(stored.tags.isEmpty && stored.campaign.isEmpty)
        }
    }

    @Test func badCampaignsAndTagsAreRefusedWithTheFieldNamed() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let long = String(repeating: "x", count: 201)
            let cases: [(String, String)] = [
                (#"{"deepLink": "plur://g/1", "tags": ["Spring"]}"#, "tags[0]"),
                (#"{"deepLink": "plur://g/1", "tags": ["a", "-b"]}"#, "tags[1]"),
                (#"{"deepLink": "plur://g/1", "tags": ["a", "a"]}"#, "tags[1]"),
                (#"{"deepLink": "plur://g/1", "tags": [""]}"#, "tags[0]"),
                (#"{"deepLink": "plur://g/1", "tags": ["\#(String(repeating: "t", count: 51))"]}"#, "tags[0]"),
                (#"{"deepLink": "plur://g/1", "tags": [\#((0..<21).map { "\"t\($0)\"" }.joined(separator: ","))]}"#, "tags"),
                (#"{"deepLink": "plur://g/1", "tags": "spring"}"#, "tags"),
                (#"{"deepLink": "plur://g/1", "utm": {"campaign": "\#(long)"}}"#, "utm.campaign"),
                (#"{"deepLink": "plur://g/1", "utm": {"source": "a\u0007b"}}"#, "utm.source"),
                (#"{"deepLink": "plur://g/1", "utm": {"channel": "x"}}"#, "utm.channel"),
                (#"{"deepLink": "plur://g/1", "utm": "spring"}"#, "utm"),
                (#"{"deepLink": "plur://g/1", "utm": {"campaign": " spaced "}}"#, "utm.campaign"),
                (#"{"deepLink": "plur://g/1", "utm": {"source": "  "}}"#, "utm.source"),
                (#"{"deepLink": "plur://g/1", "utm": {"campaign": "a\u200fb"}}"#, "utm.campaign"),
                (#"{"deepLink": "plur://g/1", "utm": {"campaign": "a\#(String(repeating: "\\u0301", count: 200))"}}"#, "utm.campaign"),
            ]
            for (body, field) in cases {
                let answer = try await client.call(.post, "/api/links", token: h.writer, body: body)
                #expect(answer.status == .badRequest, "\(body): \(answer.text)")
                #expect(answer.json?.at("error.field") == .string(field), "\(body): \(answer.text)")
            }
            #expect(try await h.store.links(after: nil, limit: 10).isEmpty, "nothing was stored")
        }
    }

    /// With `landing.campaignParameters`, the web page gets the `utm_*` it lacks, the Play Store
    /// the campaign in its referrer (beside a deferred claim), the App Store `ct` and `pt`.
    @Test func theCampaignIsHandedOnWhereTheOperatorTurnsItOn() async throws {
        let h = try await Harness.make(extra: Self.landing(campaignParameters: true, providerToken: "118"))
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: Self.body).json?["code"]?.stringValue)
            let desktop = try await client.call(.get, "/i/\(code)")
            #expect(desktop.text.contains("https://rabble.community/welcome?ref=x&amp;utm_source=news&amp;utm_medium=email&amp;utm_campaign=spring%20sale#top"), "\(desktop.text)")
            let android = try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.android])
            let play = try #require(Self.href(in: android.text, containing: "play.google.com"))
            let referrer = try #require(URLComponents(string: play)?.queryItems?.first { $0.name == "referrer" }?.value)
            #expect(referrer.hasPrefix("utm_source=news&utm_medium=email&utm_campaign=spring%20sale"), "\(play)")
            let iPhone = try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.iPhone])
            let store = try #require(Self.href(in: iPhone.text, containing: "apps.apple.com"))
            let items = URLComponents(string: store)?.queryItems ?? []
            #expect(items.first { $0.name == "ct" }?.value == "spring sale" && items.first { $0.name == "pt" }?.value == "118", "\(store)")
        }
        // Off (the default): the URLs are the link's own.
        let off = try await Harness.make()
        try await off.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: off.writer, body: Self.body).json?["code"]?.stringValue)
            let desktop = try await client.call(.get, "/i/\(code)")
            #expect(desktop.text.contains("https://rabble.community/welcome?ref=x#top") && !desktop.text.contains("utm_source"), "\(desktop.text)")
        }
    }

    /// A visit whose URL names no `utm_*` counts under the link's campaign; one that does, under its own.
    @Test(arguments: Backend.available)
    func visitsCountUnderTheLinksCampaignUnlessTheURLNamesOne(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: Self.body).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(code)").status == .ok)
            #expect(try await client.call(.get, "/i/\(code)").status == .ok)
            #expect(try await client.call(.get, "/i/\(code)?utm_campaign=ad").status == .ok)
            try await h.service.flushClicks()
            let answer = try await client.call(.get, "/api/links/\(code)/stats?by=utm_campaign", token: h.reader)
            let rows = answer.json?["rows"]?.arrayValue ?? []
            #expect(rows.map { $0["value"] ?? .null } == [.string("spring sale"), .string("ad")], "\(answer.text)")
            #expect(rows.first?["visits"]?.intValue == 2)
            let sources = try await client.call(.get, "/api/links/\(code)/stats?by=utm_source", token: h.reader)
            #expect(sources.json?["rows"]?.arrayValue?.first?["value"] == .string("news"), "\(sources.text)")
            // Across links, by tag: the tagged link's visits, and none for a tag no link has.
            let other = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/o"}"#).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(other)?utm_campaign=ad").status == .ok)
            try await h.service.flushClicks()
            let tagged = try await client.call(.get, "/api/stats?by=utm_campaign&tag=spring", token: h.reader)
            #expect(tagged.json?["tag"] == .string("spring") && tagged.json?["visits"]?.intValue == 3, "\(tagged.text)")
            #expect(try await client.call(.get, "/api/stats?by=utm_campaign", token: h.reader).json?["visits"]?.intValue == 4)
            #expect(try await client.call(.get, "/api/stats?by=os&tag=nobody", token: h.reader).json?["visits"]?.intValue == 0)
            let perLink = try await client.call(.get, "/api/links/\(code)/stats?by=os&tag=spring", token: h.reader)
            #expect(perLink.status == .badRequest && perLink.json?.at("error.field") == .string("tag"), "\(perLink.text)")
            let badTag = try await client.call(.get, "/api/stats?by=os&tag=%25", token: h.reader)
            #expect(badTag.status == .badRequest && badTag.json?.at("error.field") == .string("tag"), "\(badTag.text)")
            #expect(try await client.call(.get, "/api/stats?tag=spring", token: h.reader).json?.at("error.field") == .string("by"))
        }
    }

    /// The first `href` in `html` whose value contains `text`, its `&amp;` read back.
    static func href(in html: String, containing text: String) -> String? {
        var rest = Substring(html)
        while let start = rest.range(of: "href=\"") {
            let after = rest[start.upperBound...]
            guard let end = after.firstIndex(of: "\"") else { return nil }
            let value = String(after[..<end]).replacingOccurrences(of: "&amp;", with: "&")
            if value.contains(text) { return value }
            rest = after[end...]
        }
        return nil
    }
}

/// The query and referrer changes themselves.
@Suite struct CampaignURLTests {
    static let campaign: LinkCampaign = {
        var c = LinkCampaign()
        c.source = "news"
        c.campaign = "a&b=c"
        return c
    }()

    @Test(arguments: [
        ("https://shop.example/p", "https://shop.example/p?utm_source=news&utm_campaign=a%26b%3Dc"),
        ("https://shop.example/p?", "https://shop.example/p?utm_source=news&utm_campaign=a%26b%3Dc"),
        ("https://shop.example/p?x=1#frag", "https://shop.example/p?x=1&utm_source=news&utm_campaign=a%26b%3Dc#frag"),
        ("https://shop.example/p?utm_source=ad", "https://shop.example/p?utm_source=ad&utm_campaign=a%26b%3Dc"),
        ("https://shop.example/p?utm_source=ad&utm_campaign=z", "https://shop.example/p?utm_source=ad&utm_campaign=z"),
    ])
    func theWebPageGetsWhatItLacks(_ url: String, _ expected: String) {
        #expect(CampaignURLs.web(url, Self.campaign) == expected)
    }

    @Test func thePlayReferrerKeepsWhatItHasAndTheClaimJoinsIt() {
        let play = "https://play.google.com/store/apps/details?id=a.b&referrer=utm_source%3Dx%26k%3D1"
        let withCampaign = CampaignURLs.play(play, Self.campaign)
        #expect(withCampaign == "https://play.google.com/store/apps/details?id=a.b&referrer=utm_source%3Dx%26k%3D1%26utm_campaign%3Da%2526b%253Dc")
        let claimed = Claims.withReferrer(withCampaign, token: "TOK")
        let items = CampaignURLs.referrerItems(claimed)
        #expect(items.map(\.0) == ["utm_source", "k", "utm_campaign", "sy_claim"])
        #expect(items.first { $0.0 == "utm_campaign" }?.1 == "a&b=c", "an & in the campaign stays in its value")
    }

    @Test func theAppStoreGetsACampaignTokenOfAtMost40Characters() {
        var long = LinkCampaign()
        long.source = String(repeating: "s", count: 60)
        let url = CampaignURLs.appStore("https://apps.apple.com/app/id1?mt=8", long, providerToken: nil)
        #expect(url == "https://apps.apple.com/app/id1?mt=8&ct=" + String(repeating: "s", count: 40))
        #expect(CampaignURLs.appStore("https://apps.apple.com/app/id1?ct=own", Self.campaign, providerToken: "9") == "https://apps.apple.com/app/id1?ct=own&pt=9")
        #expect(CampaignURLs.appStore("https://apps.apple.com/app/id1", LinkCampaign(), providerToken: nil) == "https://apps.apple.com/app/id1")
        var mediumOnly = LinkCampaign()
        mediumOnly.medium = "email"
        #expect(CampaignURLs.appStore("https://apps.apple.com/app/id1", mediumOnly, providerToken: "9") == "https://apps.apple.com/app/id1", "pt goes with ct only")
        // Cut by Unicode scalars: a campaign of combining marks is not one character of any length.
        var marks = LinkCampaign()
        marks.campaign = "a" + String(repeating: "\u{301}", count: 100)
        #expect(CampaignURLs.appStore("https://x.example/a", marks, providerToken: nil).count < 400)
    }
}
