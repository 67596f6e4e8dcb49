import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkPages
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import Testing

/// Landing pages where people really open links: in-app browsers get a way out that works
/// there, desktops a QR code instead of a button no app answers, and every page the app's icon.
@Suite struct InAppBrowserTests {
    /// Every entry recognises its own example, and no ordinary browser is taken for one.
    @Test func eachInAppBrowserIsRecognisedByItsExample() {
        let list = InAppBrowsers.standard
        #expect(list.browsers.count >= 20)
        for b in list.browsers { #expect(list.browser(userAgent: b.example)?.name == b.name, "\(b.name): \(b.example)") }
        for browser in [
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.153 Mobile/15E148 Safari/604.1",
            "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        ] { #expect(list.browser(userAgent: browser) == nil, "\(browser)") }
    }

    static func example(_ name: String, android: Bool) throws -> String {
        try #require(InAppBrowsers.standard.browsers.first { $0.name == name && $0.example.contains("Android") == android }?.example)
    }

    /// Android in-app browsers get an intent that opens the app's App Link (or Chrome with the
    /// page), one that opens Chrome, and the words; iOS ones the app link, Safari and the words;
    /// a desktop the QR code and both stores; the icon everywhere and as the preview image.
    @Test func eachPlaceGetsTheWayOutThatWorksThere() async throws {
        let h = try await Harness.make(extra: """
            landing:
              title: Plur
              icon: https://rabble.community/icon.png
              pages:
                group: {app: appGroup, title: "A Plur community"}
            """)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/g1"}"#).json?["code"]?.stringValue)
            let instagram = try await client.call(.get, "/i/\(code)", headers: [.userAgent: try Self.example("Instagram", android: true)])
            let intent = "intent://rabble.community/i/\(code)#Intent;scheme=https;package=community.rabble.plur;S.browser_fallback_url=https%3A%2F%2Frabble%2Ecommunity%2Fi%2F\(code);end"
            #expect(instagram.text.contains(#"<a id="open-app" class="button" href="\#(intent)">Open in the app</a>"#), "\(instagram.text)")
            #expect(instagram.text.contains(#"id="open-browser" class="button" href="intent://rabble.community/i/\#(code)#Intent;scheme=https;package=com.android.chrome;"#))
            #expect(instagram.text.contains("Instagram keeps links in its own browser."))
            let facebook = try await client.call(.get, "/i/\(code)", headers: [.userAgent: try Self.example("Facebook", android: false)])
            #expect(facebook.text.contains(#"<a id="open-app" class="button" href="plur://group/g1">"#))
            #expect(facebook.text.contains(#"<a id="open-browser" class="button" href="x-safari-https://rabble.community/i/\#(code)">Open in Safari</a>"#))
            #expect(facebook.text.contains("Facebook keeps links in its own browser."))
            // An ordinary Android browser gets the plain button; App Links work there.
            let chrome = try await client.call(.get, "/i/\(code)", headers: [.userAgent: LandingPageTests.android])
            #expect(chrome.text.contains(#"<a id="open-app" class="button" href="plur://group/g1">"#) && !chrome.text.contains(#"id="open-browser""#))
            let desktop = try await client.call(.get, "/i/\(code)", headers: [.userAgent: LandingPageTests.desktop])
            #expect(!desktop.text.contains(#"id="open-app""#) && desktop.text.contains(#"src="/i/\#(code)/qr.svg""#))
            #expect(desktop.text.contains(#"<meta property="og:image" content="https://rabble.community/icon.png">"#))
            #expect(desktop.text.contains(#"<img class="icon" src="https://rabble.community/icon.png" alt="">"#))
            // A route's page in an in-app browser too.
            let tiktok = try await client.call(.get, "/g/ravers", headers: [.userAgent: try Self.example("TikTok", android: true)])
            #expect(tiktok.text.contains("intent://rabble.community/g/ravers#Intent;scheme=https;package=community.rabble.plur;"), "\(tiktok.text)")
        }
    }
}
