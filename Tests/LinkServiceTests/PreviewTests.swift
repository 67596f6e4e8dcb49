import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkPages
@testable import LinkService
@testable import LinkStorage
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// Link previews, crawlers and prefetches get the page but never count as a click or a use.
@Suite struct PreviewTests {
    /// Each entry of `Resources/preview-agents.json` classifies its own example, as itself.
    @Test(arguments: PreviewAgents.standard.agents.map(\.name))
    func eachPreviewAgentIsRecognisedByItsExample(_ name: String) throws {
        let entry = try #require(PreviewAgents.standard.agents.first { $0.name == name })
        #expect(entry.example.lowercased().contains(entry.match.lowercased()))
        #expect(PreviewAgents.standard.agent(userAgent: entry.example)?.name == name, "an earlier entry takes \(entry.example)")
        #expect(PreviewAgents.standard.agent(userAgent: entry.example.uppercased())?.name == name, "ASCII case is ignored")
    }

    /// Robots the list does not name are known by what they say of themselves; people with
    /// "bot" in a phone's name are not.
    @Test(arguments: [
        "Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)",
        "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", "AhrefsBot/7.0",
        "Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)",
        "Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)",
        "Mozilla/5.0 (compatible; Linespider/1.1; +https://lin.ee/4dwXkTH)", "ZoominfoBot (zoominfobot at zoominfo dot com)",
        "Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)", "SomeNewCrawler/0.1",
    ])
    func robotsThatDeclareThemselvesArePreviews(_ userAgent: String) {
        #expect(PreviewAgents.standard.agent(userAgent: userAgent) != nil, "\(userAgent)")
    }

    static let people = [
        LandingPageTests.iPhone,
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0",
        // In-app browsers are people: Facebook's and Instagram's carry the app's name, not its fetcher's.
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/458.0.0.41.108;FBBV/571101637]",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 327.0.0.39.110",
        // A phone brand that contains "bot".
        "Mozilla/5.0 (Linux; Android 12; CUBOT KINGKONG 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (Linux; Android 11; Cubot Note 20) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (Linux; Android 13; CUBOT_P80) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
        "Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36",
    ]

    /// Programs are no people, even when no entry names them: every browser a person uses starts
    /// its User-Agent with `Mozilla/` (old Opera: `Opera/`).
    @Test func programsThatNameNoBrowserAreNotPeople() {
        for program in ["Dart/3.2 (dart:io)", "PostmanRuntime/7.36.0", "python-httpx/0.27.0", "python-urllib3/2.0", "node", "Ruby",
                        "Faraday v2.7.0", "Guzzle/7", "W3C_Validator/1.3", "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/UQ1A)"] {
            #expect(PreviewAgents.standard.agent(userAgent: program) == PreviewAgents.notABrowser, "\(program)")
        }
        #expect(PreviewAgents.standard.agent(userAgent: "Opera/9.80 (J2ME/MIDP; Opera Mini/9.80 (S60; SymbOS; Opera Mobi/23.348; U; en) Presto/2.5.25 Version/10.54") == nil)
    }

    /// Every browser sends a User-Agent: a request without one, or with an empty one, is a script
    /// or a link checker, and never uses up a link.
    @Test func noUserAgentIsNoPerson() {
        for userAgent in [nil, "", " ", "\t"] as [String?] {
            #expect(PreviewAgents.standard.agent(userAgent: userAgent) == PreviewAgents.noUserAgent, "\(userAgent.debugDescription)")
            #expect(PreviewAgents.standard.isPreview(userAgent: userAgent) { _ in nil })
        }
    }

    @Test(arguments: people)
    func peopleAreNotPreviews(_ userAgent: String) {
        #expect(PreviewAgents.standard.agent(userAgent: userAgent) == nil)
        #expect(!PreviewAgents.standard.isPreview(userAgent: userAgent) { _ in nil })
    }

    @Test func browserPrefetchesArePreviews() {
        let chrome = Self.people[1]
        func preview(_ headers: [String: String]) -> Bool { PreviewAgents.standard.isPreview(userAgent: chrome) { headers[$0] } }
        #expect(preview(["Sec-Purpose": "prefetch"]))
        #expect(preview(["Sec-Purpose": "prefetch;prerender"]))
        #expect(preview(["Purpose": "prefetch"]))
        #expect(preview(["X-Moz": "prefetch"]))
        #expect(preview(["X-Purpose": "preview"]))
        #expect(!preview(["Sec-Purpose": ""]) && !preview(["Purpose": "navigate"]) && !preview([:]))
    }

    static let unfurlers = ["Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
                            "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "WhatsApp/2.23.20.0 A"]

    /// The issue's own case: a one-use invite is unfurled three times, fetched with HEAD and
    /// prefetched, then opened by a person (200) and by a second person (410).
    @Test(arguments: Backend.available)
    func previewsNeverUseUpALink(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/once", "title": "One seat", "maxUses": 1}"#)
            let code = try #require(created.json?["code"]?.stringValue)
            for agent in Self.unfurlers {
                let page = try await client.call(.get, "/i/\(code)", headers: [.userAgent: agent])
                #expect(page.status == .ok, "\(agent)")
                #expect(page.text.contains(#"<meta property="og:title" content="One seat">"#))
                #expect(!page.text.contains("plur://group/once"), "a preview never sees a use-limited link's app link")
            }
            #expect(try await client.call(.head, "/i/\(code)", headers: [.userAgent: Self.people[0]]).status == .ok)
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.people[1], HTTPField.Name("Sec-Purpose")!: "prefetch"]).status == .ok)
            #expect(try await h.store.link(code: code)?.clicks == 0, "nothing used")

            let person = try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.people[0]])
            #expect(person.status == .ok, "the person it was for")
            #expect(person.text.contains("plur://group/once"), "the person gets the app link")
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.people[2]]).status == .gone, "a second person")
            #expect(try await h.store.link(code: code)?.clicks == 1)

            try await h.service.flushClicks()
            let days = try await h.store.clickDays(code: code, from: 0)
            #expect(days.filter { $0.platform == .bot }.map(\.clicks) == [4], "3 unfurls and a prefetch, apart; HEAD counts nothing: \(days)")
            #expect(days.filter { $0.platform != .bot }.map(\.clicks) == [1])
            let metrics = String(decoding: h.service.metrics.text(), as: UTF8.self)
            #expect(metrics.contains("switchyard_link_preview_visits_total 4"), "\(metrics)")
        }
    }

    /// Links without a use limit, answered from memory on the event loop (the fast path) as well:
    /// previews are never clicks.
    @Test func previewsOfUnlimitedLinksAreCountedApartOnTheFastPathToo() async throws {
        let h = try await Harness.make()
        try await h.app().test(.live) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/many"}"#)
            let code = try #require(created.json?["code"]?.stringValue)
            // The first visit renders and keeps the page; the rest can be answered from memory.
            for agent in [Self.people[0], Self.people[0]] + Self.unfurlers + [Self.people[0]] {
                #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: agent]).status == .ok)
            }
            try await h.service.flushClicks()
            #expect(try await h.store.link(code: code)?.clicks == 3)
            let days = try await h.store.clickDays(code: code, from: 0)
            #expect(days.map { "\($0.platform) \($0.clicks)" }.sorted() == ["bot 3", "ios 3"], "\(days)")
        }
    }

    /// The one-pass classifier names the entry a scan entry by entry (file order, ASCII case
    /// ignored) names, on User-Agents stitched from pieces of the entries' matches (seeded).
    @Test func theClassifierAgreesWithAnEntryByEntryScan() {
        let agents = PreviewAgents.standard.agents
        let matches = agents.map(\.match)
        let pieces = matches + matches.map { String($0.prefix(max(1, $0.count - 1))) } + matches.map { String($0.dropFirst()) }
            + ["Mozilla/5.0 ", "(X11; Linux x86_64) ", "Safari/605.1.15", "é", " ", "/"]
        var generator = SeededGenerator(seed: 0xb07)
        for _ in 0..<5_000 {
            var ua = (0..<Int.random(in: 1...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            if Bool.random(using: &generator) { ua = ua.uppercased() }
            let lowered = ua.lowercased()
            let expected = agents.first { lowered.contains($0.match.lowercased()) }
            let got = PreviewAgents.standard.agent(userAgent: ua)
            // Asked again, the remembered answer is the same.
            #expect(PreviewAgents.standard.agent(userAgent: ua) == got, "\(ua)")
            if let expected { #expect(got == expected, "\(ua)") } else {
                let blank = ua.allSatisfy { $0 == " " }
                let program = !(ua.hasPrefix("Mozilla/") || ua.hasPrefix("Opera/"))
                #expect(blank ? got == PreviewAgents.noUserAgent : (got == PreviewAgents.selfDeclared || got == (program ? PreviewAgents.notABrowser : nil)), "\(ua)")
            }
        }
    }
}
