@testable import LinkStorage
import LinkConfiguration
import SwitchyardTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
import LinkPages
import SwitchyardCore
import Testing

/// A real browser: headless Chromium loads a landing page from the running service. The
/// screenshot it takes is kept under .build/test-artifacts/ (not committed). One Chromium at a
/// time: several at once take both cores and the disk from the suite's timing tests beside them.
@Suite(.serialized) struct BrowserTests {
    static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs Chromium with `arguments` (on a thread of its own, see `blocking`) and returns its stdout.
    static func run(_ arguments: [String]) async throws -> String {
        let chromium = try #require(chromium)
        // Called while a live test connection waits: not queued behind other blocking work.
        return try await blocking(limited: false) { try runBlocking(chromium, arguments) }
    }

    static func runBlocking(_ chromium: String, _ arguments: [String]) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: chromium)
        // Root needs --no-sandbox; a fresh profile keeps runs independent.
        let profile = Backend.temporaryPath("chromium")
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile)"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: profile)
        return String(decoding: data, as: UTF8.self)
    }

    /// What Chromium renders for each place a link is opened: an Android in-app browser (an
    /// intent to the app and one to Chrome), an iOS one (the app link and Safari), a desktop (the
    /// QR code, which decodes to the link, and no "Open in the app"); screenshots are kept in
    /// `.build/test-artifacts/`.
    @Test(.enabled(if: chromium != nil || Backend.toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func eachInAppBrowserAndTheDesktopGetTheirWayOut() async throws {
        _ = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let h = try await Harness.make()
        let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/test-artifacts").standardized
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        try await h.app().test(.live) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/g1", "title": "Ravers"}"#).json?["code"]?.stringValue)
            let url = "http://127.0.0.1:\(try #require(client.port))/i/\(code)"
            let cases: [(name: String, agent: String, size: String, present: [String], absent: [String])] = [
                ("instagram-android", try InAppBrowserTests.example("Instagram", android: true), "412,915",
                 [#"id="open-app" class="button" href="intent://rabble.community/i/\#(code)#Intent;scheme=https;package=community.rabble.plur;"#, #"id="open-browser""#, "Instagram keeps links"], []),
                ("tiktok-android", try InAppBrowserTests.example("TikTok", android: true), "412,915", [#"package=com.android.chrome"#, "TikTok keeps links"], []),
                ("facebook-ios", try InAppBrowserTests.example("Facebook", android: false), "390,844",
                 [#"id="open-app" class="button" href="plur://group/g1""#, #"href="x-safari-https://rabble.community/i/\#(code)""#, "Facebook keeps links"], []),
                ("desktop", LandingPageTests.desktop, "1200,800", [#"id="qr""#, "App Store", "Google Play"], [#"id="open-app""#, "keeps links"]),
            ]
            for c in cases {
                let dom = try await Self.run(["--user-agent=\(c.agent)", "--virtual-time-budget=2000", "--dump-dom", url])
                for text in c.present { #expect(dom.contains(text), "\(c.name): \(text)") }
                for text in c.absent { #expect(!dom.contains(text), "\(c.name): \(text)") }
                let shot = artifacts.appendingPathComponent("landing-\(c.name).png")
                _ = try await Self.run(["--user-agent=\(c.agent)", "--window-size=\(c.size)", "--hide-scrollbars", "--virtual-time-budget=2000", "--screenshot=\(shot.path)", url])
                #expect(FileManager.default.fileExists(atPath: shot.path), "\(c.name): no screenshot")
            }
            // The desktop page's QR code, read back from its screenshot by an independent decoder.
            if let zbarimg = QRCodeTests.zbarimg {
                let bytes = Array(try Data(contentsOf: artifacts.appendingPathComponent("landing-desktop.png")))
                let decoded = try await blocking { try QRCodeTests.decodeBlocking(zbarimg, bytes, suffix: "png") }
                #expect(decoded.trimmingCharacters(in: .whitespacesAndNewlines) == "https://rabble.community/i/\(code)")
            }
        }
    }

    @Test(.enabled(if: chromium != nil || Backend.toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func headlessChromiumRendersTheLandingPageForAnIPhone() async throws {
        _ = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let h = try await Harness.make()
        try await h.app().test(.live) { client in
            let created = try await client.call(.post, "/api/invite", body: #"{"groupId": "g-browser", "relay": "wss://relay.rabble.community"}"#,
                                                headers: [HTTPField.Name("X-Invite-Token")!: h.writer])
            let code = try #require(created.json?["code"]?.stringValue)
            let url = "http://127.0.0.1:\(try #require(client.port))/i/\(code)"
            let iPhone = LandingPageTests.iPhone
            let dom = try await Self.run(["--user-agent=\(iPhone)", "--virtual-time-budget=2000", "--dump-dom", url])
            #expect(dom.contains(#"<meta property="og:title" content="Plur">"#), "\(dom.prefix(400))")
            #expect(dom.contains(#"<meta property="og:url" content="https://rabble.community/i/\#(code)">"#))
            #expect(dom.contains(#"<meta name="twitter:card" content="summary">"#))
            #expect(dom.contains(#"id="open-app""#) && dom.contains(#"href="plur://join-community?group-id=g-browser&amp;code=\#(code)&amp;relay=wss%3A%2F%2Frelay.rabble.community""#))
            #expect(dom.contains(#"href="https://apps.apple.com/app/id1234567890""#))
            #expect(!dom.contains("play.google.com"))

            let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/test-artifacts").standardized
            try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
            let shot = artifacts.appendingPathComponent("landing-iphone.png")
            try? FileManager.default.removeItem(at: shot)
            _ = try await Self.run(["--user-agent=\(iPhone)", "--window-size=390,844", "--hide-scrollbars", "--screenshot=\(shot.path)", url])
            let png = try Data(contentsOf: shot)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(png.count > 2000)
            // The browser's two visits were counted.
            try await h.service.flushClicks()
            #expect(try await h.store.link(code: code)?.clicks == 2)
        }
    }

    /// Fallback values that RFC 3986 and browsers read differently. Each is either refused by the
    /// API, or the page's links, clicked in Chromium, go only to configured hosts.
    static let trickyFallbacks = [
        #"http://evil.com\@rabble.community/"#, "https://evil.com@rabble.community/", "https://rabble.community@evil.com/",
        "https://rabble.community%2F@evil.com/", "https://evil.com#@rabble.community/", "https://evil.com?@rabble.community/",
        "https://rabble.community.evil.com/", #"https:\\evil.com/"#, #"https:/\evil.com/"#, "//evil.com/", "https:evil.com/",
        "https://evil.com\t@rabble.community/", " https://evil.com/", "https://rabble.community\u{3002}evil.com/",
        "https://\u{FF45}vil.com/", "https://rabble.community:443@evil.com/", "javascript:alert(1)//https://rabble.community/",
        #"https://rabble.community/\..\evil.com"#, "https://rabble.community\u{0}.evil.com/", "https://evil.com%00.rabble.community/",
        "https://0x7f.0.0.1/", "https://rabble.community./",
        // Allowed, and normalised on the way out.
        "https://rabble.community/%2e%2e/x", "HTTPS://RABBLE.COMMUNITY:443/ok", #"https://apps.apple.com/app/id1234567890?x="><script>"#,
    ]

    @Test(.enabled(if: chromium != nil || Backend.toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func clickingAnyLinkOfAPageGoesOnlyToAllowedHosts() async throws {
        let chromium = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let h = try await Harness.make(extra: """
            rateLimit:
              perToken: {perMinute: 6000, burst: 200}
              perAddress: {perMinute: 6000, burst: 200}
            """)
        let allowed = h.service.configuration.allowedRedirectHosts
        try await h.app().test(.live) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            var pages: [String] = []
            for value in Self.trickyFallbacks {
                for fields in [["webURL"], ["appStoreURL", "playStoreURL"]] {
                    let body = JSONValue.object([("deepLink", .string("plur://group/x"))] + fields.map { ($0, JSONValue.string(value)) })
                    let r = try await client.call(.post, "/api/links", token: h.writer, body: JSONWriter.compact(body))
                    if r.status == .created {
                        pages.append(base + "/i/" + (try #require(r.json?["code"]?.stringValue)))
                    } else {
                        #expect(r.status == .badRequest, "\(value.debugDescription): \(r.text)")
                    }
                }
            }
            #expect(pages.count == 6, "the three allowed values make two links each; got \(pages.count)")
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Inputs/navigate.py").path
            let arguments = [script, chromium, "Mozilla/5.0 (X11; Linux x86_64)"] + pages
            let output = try await blocking(limited: false) { try Self.python(arguments) }
            let report = try #require(try? JSONParser.parse(output), "navigate.py printed: \(output.prefix(500))")
            var navigations = 0
            for page in pages {
                let clicks = try #require(report[page]?.arrayValue, "no result for \(page)")
                #expect(!clicks.isEmpty)
                for click in clicks {
                    guard let to = click["navigatedTo"]?.stringValue else { continue }
                    if to.hasPrefix("plur:") { continue }
                    navigations += 1
                    let host = try #require(URLComponents(string: to)?.host, "\(to)")
                    #expect(allowed.contains(host), "\(page): a click went to \(to)")
                }
            }
            #expect(navigations >= 6, "every accepted link's fallback was clicked; saw \(navigations) navigations in \(output)")
        }
    }

    /// The dashboard in a real browser: sign in with a token, create a link with the form, open
    /// a visited link's page and find its chart and QR image drawn; screenshots are kept under
    /// .build/test-artifacts/dashboard-*.png.
    @Test(.enabled(if: chromium != nil || Backend.toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func headlessChromiumSignsInCreatesALinkAndSeesItsChartAndQRCode() async throws {
        let chromium = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let h = try await Harness.make()
        let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/test-artifacts").standardized
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        try await h.app().test(.live) { client in
            let origin = "http://127.0.0.1:\(try #require(client.port))"
            // A link visited yesterday and today from three platforms.
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Seen2345", "deepLink": "plur://group/v", "title": "Spring meetup"}"#)
            #expect(created.status == .created)
            for (days, agents) in [(0.0, [LandingPageTests.iPhone, "Mozilla/5.0 (X11; Linux x86_64)"]),
                                   (1.0, [LandingPageTests.iPhone, LandingPageTests.iPhone, "Mozilla/5.0 (Linux; Android 14; Pixel 8)"])] {
                h.clock.advance(days * 86_400)
                for agent in agents { #expect(try await client.call(.get, "/i/Seen2345", headers: [.userAgent: agent]).status == .ok) }
                try await h.service.flushClicks()
            }
            // Today also: two people from a forum, one from a chat's web page, and Slack unfurling the link.
            for referer in ["https://forum.rabble.community/t/spring", "https://forum.rabble.community/t/spring?x=1", "https://chat.example/room"] {
                #expect(try await client.call(.get, "/i/Seen2345", headers: [.userAgent: "Mozilla/5.0 (X11; Linux x86_64)", .referer: referer]).status == .ok)
            }
            #expect(try await client.call(.get, "/i/Seen2345", headers: [.userAgent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"]).status == .ok)
            // A link clicked once, and an imported Firebase link (its page stays at its old path).
            #expect(try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Once2345", "deepLink": "plur://group/o"}"#).status == .created)
            #expect(try await client.call(.get, "/i/Once2345", headers: [.userAgent: LandingPageTests.iPhone]).status == .ok)
            var imported = StoredLink(code: "summer", createdAt: Date())
            imported.kind = .fdl
            imported.deepLink = "plur://group/s"
            try await h.store.insert(imported)
            // A campaign of 200 letters with no break, on the imported link: the lists wrap it.
            #expect(try await client.call(.get, "/summer?utm_campaign=" + String(repeating: "A", count: 200), headers: [.userAgent: LandingPageTests.iPhone]).status == .ok)
            try await h.service.flushClicks()
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Inputs/dashboard.py").path
            let output = try await blocking(limited: false) { try Self.python([script, chromium, origin, h.writer, "Seen2345", artifacts.path, "Once2345", "summer"]) }
            let report = try #require(try? JSONParser.parse(output), "dashboard.py printed: \(output.prefix(800))")
            print("dashboard in Chromium: \(output)")
            #expect(report["failure"] == nil, "dashboard.py stopped: \(output)")

            #expect(report.at("start.url")?.stringValue == origin + "/admin/sign-in", "signed out: the sign-in page")
            #expect(report.at("signedIn.url")?.stringValue == origin + "/admin")
            #expect(Set(report.at("signedIn.links")?.arrayValue?.compactMap(\.stringValue) ?? []) == ["Seen2345", "Once2345", "summer"])

            // The form: routes picked from the configuration's; every bad field said at once.
            let routes = report.at("form.routes")?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(routes.first == "" && routes.contains("appGroup"), "\(routes)")
            let errors = report.at("refused.errors")?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(errors.count == 3, "\(errors)")
            #expect(errors.contains { $0.hasPrefix("Deep link: ") } && errors.contains { $0.hasPrefix("Maximum uses: ") } && errors.contains { $0 == "Expires at: expiresAt 2027-02-30: no such date-time: day 30 of month 2 in 2027" }, "\(errors)")
            #expect(report.at("signedIn.cookieVisibleToScript") == .bool(false), "HttpOnly")

            let made = try #require(try await h.store.searchLinks("Made in Chromium", limit: 5).first, "the form created the link")
            #expect(made.deepLink == "plur://group/from-the-dashboard" && made.maxUses == 3)
            #expect(report.at("created.url")?.stringValue == origin + "/admin/links/\(made.code)?saved=1")
            #expect(report.at("created.notice")?.stringValue == "Saved.")
            // A day alone: the link works through that day (UTC).
            #expect(report.at("created.fields")?["Expires"]?.stringValue == "2030-07-01T00:00:00Z", "\(output)")
            #expect(made.expiresAt == Date(timeIntervalSince1970: 1_909_094_400))
            #expect(report.at("others.Once2345.visitsLine")?.stringValue?.hasPrefix("1 click counted") == true, "\(output)")
            #expect(report.at("visited.visitsLine")?.stringValue?.hasPrefix("8 clicks counted") == true, "\(output)")
            // One page URL everywhere: the dashboard shows what the API says.
            let apiURL = try await client.call(.get, "/api/links/summer", token: h.writer).json?["url"]?.stringValue
            #expect(apiURL == "https://rabble.community/summer")
            #expect(report.at("others.summer.fields")?["Page"]?.stringValue == apiURL, "\(output)")
            #expect(report.at("created.chart.bars") == .int(0), "a new link has no visits")
            #expect(report.at("created.qr.complete") == .bool(true))
            #expect(Self.number(report.at("created.qr.naturalWidth")) > 0, "the QR image loaded: \(output)")

            #expect(report.at("visited.chart.clicks")?.arrayValue == [.int(2), .int(7)], "two days of visits, the unfurl among them: \(output)")
            #expect(report.at("visited.chart.bot")?.arrayValue == [.int(0), .int(1)], "the unfurl drawn apart: \(output)")
            #expect(report.at("visited.referrers")?.arrayValue == [.array([.string("forum.rabble.community"), .int(2)]),
                                                                    .array([.string("chat.example"), .int(1)])], "\(output)")
            #expect(report.at("visited.totalClicks") == .string("8"), "people's clicks only: \(output)")
            #expect(Self.number(report.at("visited.chart.width")) > 300, "the chart is drawn at a readable size")
            #expect(report.at("visited.platforms")?.arrayValue == [.array([.string("desktop"), .int(4)]), .array([.string("ios"), .int(3)]),
                                                                    .array([.string("android"), .int(1)])], "people only: \(output)")
            #expect(report.at("visited.botVisits") == .string("1"), "\(output)")
            #expect(Self.number(report.at("visited.qr.naturalWidth")) > 0)
            #expect(report.at("visited.error") == .null)

            // The audience: a bar per day with its visits and visitors (people only), and a range the form chose.
            let daily = report.at("visited.daily")?.arrayValue ?? []
            #expect(daily.map { $0.arrayValue?[1] ?? .null } == [.int(2), .int(6)], "people's visits of the two days: \(output)")
            #expect(daily.allSatisfy { ($0.arrayValue?[2].intValue ?? 0) >= 1 }, "visitors drawn: \(output)")
            #expect(Self.number(report.at("visited.dailyWidth")) > 300)
            let firstDay = daily.first?.arrayValue?.first?.stringValue ?? "-"
            #expect(report.at("ranged.url")?.stringValue == origin + "/admin/links/Seen2345?from=\(firstDay)&to=\(firstDay)", "\(output)")
            #expect(report.at("ranged.daily")?.arrayValue?.count == 1 && report.at("ranged.rangeError") == .null, "\(output)")
            #expect(report.at("ranged.audience")?.stringValue?.hasPrefix("\(firstDay) to \(firstDay) (1 day)") == true, "\(output)")
            #expect(report.at("ranged.range")?.arrayValue == [.string(firstDay), .string(firstDay)])
            #expect(Self.number(report.at("phone.pageWidth")) <= 390, "nothing wider than a phone: \(output)")
            #expect(report.at("phone.daily")?.arrayValue?.count == 2)
            #expect(Self.number(report.at("phoneList.pageWidth")) <= 390, "the list's long campaign wraps on a phone: \(output)")
            #expect(report.at("phoneList.campaigns")?.arrayValue?.contains(.string(String(repeating: "A", count: 200))) == true,
                    "the imported link's visit counts under its URL's campaign: \(output)")

            #expect(report.at("signedOut.url")?.stringValue == origin + "/admin/sign-in")
            #expect(report.at("afterSignOut.url")?.stringValue == origin + "/admin/sign-in")
            for name in ["dashboard-list.png", "dashboard-refused.png", "dashboard-created.png", "dashboard-link.png", "dashboard-link-phone.png"] {
                let png = try Data(contentsOf: artifacts.appendingPathComponent(name))
                #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 5000, "\(name)")
            }
        }
    }

    /// Deferred deep links in a real browser. Android: the Play link carries the claim in its
    /// referrer. iPhone: loading the page leaves the clipboard alone; tapping "Get the app" puts
    /// the claim URL on it and goes to the App Store. Both tokens then redeem once.
    @Test(.enabled(if: chromium != nil || Backend.toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func headlessChromiumCarriesDeferredClaimsOnAndroidAndOnTapOnIPhone() async throws {
        let chromium = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let h = try await Harness.make()
        try await h.app().test(.live) { client in
            let origin = "http://127.0.0.1:\(try #require(client.port))"
            #expect(try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Defer234", "deepLink": "plur://group/after-install"}"#).status == .created)
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Inputs/deferred.py").path
            let output = try await blocking(limited: false) { try Self.python([script, chromium, origin, "Defer234"]) }
            print("deferred links in Chromium: \(output)")
            let report = try #require(try? JSONParser.parse(output), "deferred.py printed: \(output.prefix(800))")
            #expect(report["failure"] == nil, "deferred.py stopped: \(output)")

            let store = try #require(report.at("android.store")?.stringValue)
            #expect(store.hasPrefix("https://play.google.com/store/apps/details?id=community.rabble.plur&referrer=sy_claim%3D"), "\(store)")
            #expect(report.at("android.getApp") == .bool(false))
            let androidToken = try #require(DeferredTests.token(inPlayLink: store))

            #expect(report.at("iphone.wroteFirst")?.stringValue == "ok")
            #expect(report.at("iphone.claimOnFirstLoad")?.stringValue?.hasPrefix("https://rabble.community/d/") == true)
            #expect(report.at("iphone.clipboardAfterLoad")?.stringValue == "something the person copied", "loading the page copies nothing")
            let tapped = try #require(report.at("iphone.claimTapped")?.stringValue)
            #expect(report.at("iphone.clipboardAfterTap")?.stringValue == tapped, "the tap copied the claim URL: \(output)")
            #expect(report.at("iphone.navigatedTo")?.stringValue == "https://apps.apple.com/app/id1234567890")

            let iPhoneToken = String(tapped.dropFirst("https://rabble.community/d/".count))
            for token in [androidToken, iPhoneToken] {
                let claim = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
                #expect(claim.status == .ok && claim.json?["deepLink"]?.stringValue == "plur://group/after-install", "\(claim.text)")
            }
        }
    }

    /// Telegram's browser sends Safari's (iOS) or Chrome's (Android) own User-Agent. The page
    /// keeps its way out hidden in a browser, and shows it where Telegram's object is on
    /// `window`: Safari on iOS, Chrome and an intent to the app on Android. Screenshots are kept in
    /// `.build/test-artifacts/`.
    @Test(.enabled(if: chromium != nil || Backend.toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func aWebviewWithTheBrowsersOwnUserAgentIsFoundByThePage() async throws {
        let chromium = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let h = try await Harness.make()
        let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/test-artifacts").standardized
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Inputs/webview.py").path
        try await h.app().test(.live) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/g1", "title": "Ravers"}"#).json?["code"]?.stringValue)
            let url = "http://127.0.0.1:\(try #require(client.port))/i/\(code)"
            let page = "https://rabble.community/i/\(code)"
            let cases: [(name: String, agent: String, global: String, href: String, text: String, openApp: String)] = [
                ("telegram-ios", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
                 "TelegramWebviewProxy", "x-safari-\(page)", "Open in Safari", "plur://group/g1"),
                ("telegram-android", "Mozilla/5.0 (Linux; Android 14; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.6668.100 Mobile Safari/537.36",
                 "TelegramWebview", try #require(LandingPage.intentURL(page, package: "com.android.chrome")), "Open in Chrome",
                 try #require(LandingPage.intentURL(page, package: "community.rabble.plur"))),
            ]
            for c in cases {
                let shot = artifacts.appendingPathComponent("landing-\(c.name).png").path
                let output = try await blocking(limited: false) { try Self.python([script, chromium, url, c.agent, c.global, shot]) }
                let report = try #require(try? JSONParser.parse(output), "\(c.name): webview.py printed \(output.prefix(800))")
                // In the browser itself: nothing extra shows, and "Open in the app" is the app's own link.
                #expect(report.at("browser.shown")?.arrayValue?.isEmpty == true, "\(c.name): \(output)")
                #expect(report.at("browser.hidden") == .int(1), "\(c.name): \(output)")
                #expect(report.at("browser.openApp")?.stringValue == "plur://group/g1", "\(c.name): \(output)")
                // In the webview: the way out.
                let shown = try #require(report.at("webview.shown")?.arrayValue, "\(c.name): \(output)")
                #expect(shown.count == 1, "\(c.name): \(output)")
                #expect(shown.first?["href"]?.stringValue == c.href, "\(c.name): \(output)")
                #expect(shown.first?["text"]?.stringValue == c.text, "\(c.name): \(output)")
                #expect(shown.first?["hint"]?.stringValue?.hasPrefix("Telegram keeps links in its own browser.") == true, "\(c.name): \(output)")
                #expect(report.at("webview.openApp")?.stringValue == c.openApp, "\(c.name): \(output)")
                #expect(FileManager.default.fileExists(atPath: shot), "\(c.name): no screenshot")
            }
        }
    }

    static func number(_ value: JSONValue?) -> Double {
        if case .number(let n, _)? = value { return n }
        return 0
    }

    /// A protected link in a real browser: the form (nothing of the link), a wrong password
    /// (the form again, saying so, no cookie), the right one (the link's page, and an HttpOnly
    /// cookie for it that scripts cannot read), the page again with the cookie, and the form once
    /// the cookie is gone. Screenshots: .build/test-artifacts/protected-*.png.
    @Test(.enabled(if: chromium != nil || Backend.toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func headlessChromiumWalksAProtectedLink() async throws {
        let chromium = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let h = try await Harness.make()
        let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/test-artifacts").standardized
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        try await h.app().test(.live) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer,
                body: #"{"code": "Board2026", "deepLink": "plur://group/board", "title": "Board minutes", "description": "For the board only", "password": "correct horse battery"}"#)
            #expect(created.status == .created, "\(created.text)")
            let page = "http://127.0.0.1:\(try #require(client.port))/i/Board2026?utm_source=mail"
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Inputs/protected.py").path
            let output = try await blocking(limited: false) { try Self.python([script, chromium, page, "Correct Horse", "correct horse battery", artifacts.path]) }
            let report = try #require(try? JSONParser.parse(output), "protected.py printed: \(output.prefix(800))")
            #expect(report["failure"] == nil, "protected.py stopped: \(output)")

            #expect(report.at("form.form") == .bool(true) && report.at("form.heading")?.stringValue == "Protected link", "\(output)")
            for secret in ["Board minutes", "For the board only", "plur://"] {
                #expect(report.at("form.text")?.stringValue?.contains(secret) == false, "the form shows \(secret)")
            }
            #expect(report.at("wrong.problem")?.stringValue == "That password is not right.", "\(output)")
            #expect(report.at("wrong.form") == .bool(true) && report.at("wrongCookies")?.arrayValue?.isEmpty == true)
            #expect(report.at("open.url")?.stringValue == page, "back on the link's page with its query: \(output)")
            #expect(report.at("open.heading")?.stringValue == "Board minutes" && report.at("open.form") == .bool(false), "\(output)")
            let cookie = try #require(report.at("cookies")?.arrayValue?.first, "\(output)")
            #expect(report.at("cookies")?.arrayValue?.count == 1)
            #expect(cookie["httpOnly"] == .bool(true) && cookie["sameSite"]?.stringValue == "Lax" && cookie["path"]?.stringValue == "/")
            #expect(cookie["session"] == .bool(false), "it lasts a day, past the browser's session")
            #expect(report.at("open.cookieVisibleToScript") == .bool(false), "HttpOnly")
            #expect(report.at("again.heading")?.stringValue == "Board minutes")
            #expect(report.at("cleared.form") == .bool(true) && report.at("cleared.text")?.stringValue?.contains("Board minutes") == false)
            // Two clicks: the page opened twice (the form counts nothing).
            try await h.service.flushClicks()
            #expect(try await h.store.link(code: "Board2026")?.clicks == 2)
            for name in ["form", "wrong", "open"] {
                #expect(FileManager.default.fileExists(atPath: artifacts.appendingPathComponent("protected-\(name).png").path))
            }
        }
    }

    static func python(_ arguments: [String]) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
