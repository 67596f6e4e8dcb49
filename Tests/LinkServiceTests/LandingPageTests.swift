import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkPages
@testable import LinkService
@testable import LinkStorage
import LinkConfiguration
import SwitchyardCore
import SwitchyardTestSupport
import Testing

@Suite struct LandingPageTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"

    @Test func pageCarriesPreviewTagsTheAppLinkAndThePlatformsFallback() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: """
                {"route": "appGroup", "parameters": {"groupId": "g1"}, "title": "Ravers <& friends>", "description": "Come \\"in\\"",
                 "image": "https://cdn.example/p.png", "webURL": "https://rabble.community/g/g1"}
                """)
            let code = try #require(created.json?["code"]?.stringValue)
            let expected: [(String, String)] = [
                // Phones: the store button carries a deferred deep link's claim (see DeferredTests).
                (Self.iPhone, #"data-claim="https://rabble.community/d/"#),
                (Self.android, #"href="https://play.google.com/store/apps/details?id=community.rabble.plur&amp;referrer=sy_claim%3D"#),
                (Self.desktop, #"href="https://rabble.community/g/g1""#),
            ]
            for (ua, fallback) in expected {
                let page = try await client.call(.get, "/i/\(code)", headers: [.userAgent: ua])
                #expect(page.status == .ok)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                #expect(page.text.contains(#"<meta property="og:title" content="Ravers &lt;&amp; friends&gt;">"#))
                #expect(page.text.contains(#"<meta property="og:description" content="Come &quot;in&quot;">"#))
                #expect(page.text.contains(#"<meta property="og:image" content="https://cdn.example/p.png">"#))
                #expect(page.text.contains(#"<meta property="og:url" content="https://rabble.community/i/\#(code)">"#))
                #expect(page.text.contains(#"<meta name="twitter:card" content="summary_large_image">"#))
                // A desktop has no app to open: the link's QR code instead, to continue on a phone.
                #expect(page.text.contains(#"<a id="open-app" class="button" href="plur://group/g1">"#) == (ua != Self.desktop))
                #expect(page.text.contains(#"<img class="qr" id="qr" src="/i/\#(code)/qr.svg""#) == (ua == Self.desktop))
                #expect(page.text.contains(ua == Self.iPhone ? #"id="get-app""# : #"id="fallback""#) && page.text.contains(fallback), "\(ua)")
                #expect(!page.text.contains("<&"))
            }
        }
    }

    /// A universal-link route without a `landing.pages` entry offers the same path under the
    /// app's scheme only when the route table routes that link; otherwise no "Open in the app".
    @Test func anUnmappedRoutesButtonIsOfferedOnlyWhenTheAppCanRouteIt() async throws {
        let h = try await Harness.make(extra: Harness.routes(adding: [
            #"{name: product, pattern: "/p/{id:int}"}"#, #"{name: shelf, pattern: "/s/{id}"}"#, #"{name: appShelf, pattern: "plur://s/{id}"}"#,
        ]))
        try await h.app().test(.router) { client in
            let iPhone: HTTPFields = [.userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)"]
            let product = try await client.call(.get, "/p/43", headers: iPhone)
            #expect(product.status == .ok && !product.text.contains(#"id="open-app""#), "plur://p/43 routes nowhere: \(product.text)")
            let shelf = try await client.call(.get, "/s/7", headers: iPhone)
            #expect(shelf.text.contains(#"id="open-app" class="button" href="plur://s/7""#), "\(shelf.text)")
        }
    }

    @Test func clicksAreCountedOncePerGetAndFlushed() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/c"}"#).json?["code"]?.stringValue)
            for _ in 0..<3 { #expect(try await client.call(.get, "/i/\(code)").status == .ok) }
            #expect(try await client.call(.head, "/i/\(code)").status == .ok)
            try await h.service.flushClicks()
            #expect(try await h.store.link(code: code)?.clicks == 3)
            #expect(try await client.call(.get, "/api/links/\(code)", token: h.reader).json?["clicks"] == .int(3))
        }
    }

    @Test func expiredAndUsedUpLinksAre410() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let expiring = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/e", "expiresIn": 60}"#).json?["code"]?.stringValue)
            let limited = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/l", "maxUses": 2}"#).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(expiring)").status == .ok)
            h.clock.advance(61)
            let gone = try await client.call(.get, "/i/\(expiring)")
            #expect(gone.status == .gone)
            #expect(gone.text.contains("expired"))
            #expect(try await client.call(.get, "/i/\(limited)").status == .ok)
            #expect(try await client.call(.head, "/i/\(limited)").status == .ok)
            #expect(try await client.call(.get, "/i/\(limited)").status == .ok)
            #expect(try await client.call(.get, "/i/\(limited)").status == .gone)
            #expect(try await h.store.link(code: limited)?.clicks == 2)
        }
    }

    @Test func neverSendsAnyoneOffTheConfiguredHosts() async throws {
        let h = try await Harness.make()
        // Written straight into the store, as if by an older version or by hand: the page still refuses them.
        var bad = StoredLink(code: "bad23456", createdAt: h.clock.today)
        bad.deepLink = "javascript:alert(document.cookie)"
        bad.webURL = "https://evil.example/phish"
        bad.appStoreURL = "https://evil.example/store"
        bad.imageURL = "javascript:x"
        try await h.store.insert(bad)
        try await h.app().test(.router) { client in
            for ua in [Self.iPhone, Self.desktop] {
                let page = try await client.call(.get, "/i/bad23456", headers: [.userAgent: ua])
                #expect(page.status == .ok)
                #expect(!page.text.contains("evil.example"))
                #expect(!page.text.contains("javascript:"))
                #expect(!page.text.contains(#"id="open-app""#))
            }
            let iphone = try await client.call(.get, "/i/bad23456", headers: [.userAgent: Self.iPhone])
            #expect(iphone.text.contains("https://apps.apple.com/app/id1234567890"))
        }
    }

    /// A phone is never offered the other platform's store: with only a Play Store page, an
    /// iPhone gets the web page (or nothing), an Android phone Google Play, a desktop both.
    @Test func aPhoneIsNeverOfferedTheOtherPlatformsStore() {
        var page = LandingPage(title: "T", description: "", image: nil, pageURL: "https://e.com/i/x", deepLink: "shop://x",
                               appStoreURL: nil, playStoreURL: "https://play.google.com/store/apps/details?id=com.e", webURL: nil, appStoreID: nil, claimURL: nil)
        #expect(!page.html(for: .iOS).contains("Google Play"))
        #expect(!page.html(for: .iOS).contains("play.google.com"))
        #expect(page.html(for: .android).contains("Get it on Google Play"))
        #expect(page.html(for: .desktop).contains(">Google Play</a>"))
        page.webURL = "https://e.com/x"
        #expect(page.html(for: .iOS).contains(#"<a id="web" class="button store" href="https://e.com/x">Continue on the web</a>"#))
        #expect(!page.html(for: .iOS).contains("play.google.com"))
    }

    @Test func aCommaInTheDeepLinkCannotAddSmartBannerSettings() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://x,app-id=666"}"#)
            let code = try #require(created.json?["code"]?.stringValue)
            let page = try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.iPhone])
            #expect(page.text.contains(#"content="app-id=1234567890, app-argument=plur://x%2Capp-id=666""#), "\(page.text)")
        }
    }

    @Test func storedAndEmittedURLsAreWhatABrowserReads() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"""
                {"deepLink": "HTTPS://Rabble.Community:443/g/x", "webURL": "HTTPS://Rabble.Community:443/g/./a/../b?q=\"x\"#à",
                 "image": "https://cdn.example/pé.png"}
                """#)
            #expect(created.status == .created, "\(created.text)")
            #expect(created.json?["webURL"]?.stringValue == "https://rabble.community/g/b?q=%22x%22#%C3%A0")
            #expect(created.json?["deepLink"]?.stringValue == "https://rabble.community/g/x")
            let code = try #require(created.json?["code"]?.stringValue)
            #expect(try await h.store.link(code: code)?.imageURL == "https://cdn.example/p%C3%A9.png")
            let page = try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.desktop])
            #expect(page.text.contains(#"id="fallback" class="button" data-audience="desktop" href="https://rabble.community/g/b?q=%22x%22#%C3%A0""#), "\(page.text)")
            #expect(page.text.contains(#"content="https://cdn.example/p%C3%A9.png""#))
        }
        // Stored by hand or by an older version: the page emits the normalised form, or nothing.
        var old = StoredLink(code: "prevxyzw", createdAt: h.clock.today)
        old.deepLink = "plur://x"
        old.webURL = "https://Rabble.Community/a/%2e%2e/b"
        var tricky = StoredLink(code: "trickyab", createdAt: h.clock.today)
        tricky.deepLink = "plur://x"
        tricky.webURL = "https://evil.example@rabble.community/"
        try await h.store.insert(old)
        try await h.store.insert(tricky)
        try await h.app().test(.router) { client in
            let page = try await client.call(.get, "/i/prevxyzw", headers: [.userAgent: Self.desktop])
            #expect(page.text.contains(#"href="https://rabble.community/b""#), "\(page.text)")
            let other = try await client.call(.get, "/i/trickyab", headers: [.userAgent: Self.desktop])
            #expect(!other.text.contains("evil.example"))
        }
    }

    @Test func everyUniversalRouteHasAPage() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let join = try await client.call(.get, "/join/g7?code=abc&relay=wss%3A%2F%2Fr.example", headers: [.userAgent: Self.iPhone])
            #expect(join.status == .ok)
            #expect(join.text.contains(#"<meta property="og:title" content="Join a Plur community">"#))
            #expect(join.text.contains(#"href="plur://join-community?group-id=g7&amp;code=abc&amp;relay=wss%3A%2F%2Fr.example""#))
            let group = try await client.call(.get, "/g/ravers", headers: [.userAgent: Self.android])
            #expect(group.text.contains(#"href="plur://group/ravers""#))
            let community = try await client.call(.get, "/join-community?group-id=g9&code=c1", headers: [.userAgent: Self.android])
            #expect(community.text.contains(#"href="plur://join-community?group-id=g9&amp;code=c1""#))
            #expect(try await client.call(.get, "/join/g7").status == .notFound)  // code is required by the route
            #expect(try await client.call(.get, "/nothing/here").status == .notFound)
            #expect(try await client.call(.get, "/i/bad%20code").status == .notFound)
            #expect(try await client.call(.get, "/i/zzzzzzzz").status == .notFound)
        }
    }

    @Test func audienceComesFromTheUserAgent() {
        #expect(LandingPage.Audience(userAgent: Self.iPhone) == .iOS)
        #expect(LandingPage.Audience(userAgent: "Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X)") == .iOS)
        #expect(LandingPage.Audience(userAgent: Self.android) == .android)
        #expect(LandingPage.Audience(userAgent: Self.desktop) == .desktop)
        #expect(LandingPage.Audience(userAgent: nil) == .desktop)
    }

    /// The byte scan decides as the plain substring test does, on User-Agents stitched from
    /// the words it looks for, their near misses and other scripts (seeded, so a failure repeats).
    @Test func audienceAgreesWithASubstringTestOnManyUserAgents() {
        let pieces = ["iPhone", "iPad", "iPod", "Android", "iP", "iPho", "android", "IPHONE", "Andr", "oid", "ne", "ad", "od",
                      " ", "(", ";", "Mozilla/5.0", "é", "日本", "i", "P", "A", "ndroid"]
        var generator = SeededGenerator(seed: 0x5eed)
        for _ in 0..<20_000 {
            let ua = (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let expected: LandingPage.Audience = ua.contains("iPhone") || ua.contains("iPad") || ua.contains("iPod") ? .iOS : ua.contains("Android") ? .android : .desktop
            #expect(LandingPage.Audience(userAgent: ua) == expected, "\(ua)")
        }
    }

    /// iOS 18's AdAttributionKit re-engagement appends a query parameter to the universal link it
    /// opens: a route's page and a short link's page still answer as without it, and the app
    /// link carries only what the route reads.
    @Test func aQueryParameterNoRouteReadsIsTolerated() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let plain = try await client.call(.get, "/g/ravers?relay=wss%3A%2F%2Fr.example")
            let extra = try await client.call(.get, "/g/ravers?relay=wss%3A%2F%2Fr.example&_aak=1f2e3d", headers: [.userAgent: Self.android])
            #expect(plain.status == .ok && extra.status == .ok)
            #expect(extra.text.contains("plur://group/ravers"), "\(extra.text.prefix(600))")
            #expect(!extra.text.contains("_aak=1f2e3d\""), "the app link carries only what the route reads")
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/aak"}"#).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(code)?_aak=1f2e3d").status == .ok)
        }
    }

    /// `landing.templates`: an operator's templates make the served pages (a stored link's, a
    /// route's, and the message pages), and a template that cannot be used stops the
    /// configuration from loading, naming the key, the file and the line.
    @Test func anOperatorsTemplatesMakeTheServedPages() async throws {
        let dir = Backend.temporaryPath("brand")
        try "<h1 class=\"brand\">{{title}}</h1>{{#openApp}}<a id=\"open-app\" href=\"{{.}}\">Open</a>{{/openApp}}<p>{{audience}}</p>\n"
            .write(toFile: dir + "/landing.mustache", atomically: true, encoding: .utf8)
        try "<h1 class=\"brand\">{{title}}</h1><p>{{message}} ({{status}})</p>\n".write(toFile: dir + "/message.mustache", atomically: true, encoding: .utf8)
        let h = try await Harness.make(extra: """
            landing:
              title: Plur
              templates: \(dir)
            """)
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "appGroup", "parameters": {"groupId": "g1"}, "title": "A <b>"}"#)
            let code = try #require(created.json?["code"]?.stringValue)
            let page = try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.android])
            #expect(page.status == .ok)
            #expect(page.text == "<h1 class=\"brand\">A &lt;b&gt;</h1><a id=\"open-app\" href=\"plur://group/g1\">Open</a><p>android</p>\n")
            let desktop = try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.desktop])
            #expect(desktop.text == "<h1 class=\"brand\">A &lt;b&gt;</h1><p>desktop</p>\n", "a desktop has no app to open")
            let missing = try await client.call(.get, "/i/zzzzzzzz")
            #expect(missing.status == .notFound)
            #expect(missing.text == "<h1 class=\"brand\">Link not found</h1><p>This link does not exist or was deleted. (404)</p>\n")
        }
        try "{{#title}}\n<h1>{{titel}}</h1>\n{{/title}}\n".write(toFile: dir + "/landing.mustache", atomically: true, encoding: .utf8)
        do {
            _ = try await Harness.make(extra: "landing:\n  templates: \(dir)\n")
            Issue.record("a misspelt template value was accepted")
        } catch let error as ConfigurationError {
            #expect("\(error)".hasSuffix("config.yaml: landing.templates: \(dir)/landing.mustache:2: landing pages have no value named \"titel\" here; did you mean title? (the operator guide, “Your own page templates”, lists them)"), "\(error)")
        }
    }

    /// A code written with percent escapes is the same code, on the page and its QR code.
    @Test func aPercentEscapedCodeIsTheCode() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            #expect(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/lane", "code": "lane1", "title": "Lane"}"#).status == .created)
            let escaped = try await client.call(.get, "/i/%6cane1", headers: [.userAgent: Self.iPhone])
            #expect(escaped.status == .ok && escaped.text.contains(#"<meta property="og:title" content="Lane">"#), "\(escaped.status)")
            #expect(try await client.call(.get, "/i/%6cane1/qr.svg").status == .ok)
            #expect(try await client.call(.get, "/i/lane%2F1").status == .notFound, "an escaped slash is no code")
        }
    }
}
