import LinkCache
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
import LinkConfiguration
import Logging
@testable import LinkService
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// Visit records (issue 11, item 4) and `GET /api/links/{code}/stats`.
@Suite struct VisitTests {
    @Test(arguments: [
        ("203.0.113.77", "203.0.113.0"), ("10.1.2.3", "10.1.2.0"),
        ("2001:db8:85a3:8d3:1319:8a2e:370:7348", "2001:db8:85a3::"), ("2001:DB8:1::1", "2001:db8:1::"),
        ("::ffff:198.51.100.9", "198.51.100.0"), ("fe80::1%eth0", "fe80::"), ("::1", "::"),
    ])
    func addressesKeepTheirNetworkOnly(_ address: String, _ kept: String) {
        #expect(VisitSettings.anonymize(address) == kept)
    }

    @Test(arguments: ["unknown", "", "1.2.3", "256.1.1.1", "example.com", "1.2.3.4.5", "2001:db8::g"])
    func textThatIsNotAnAddressIsNotKept(_ text: String) {
        #expect(VisitSettings.anonymize(text) == nil)
    }

    @Test func referrerHostsComeFromWebAndAppReferrersOnly() {
        #expect(VisitSettings.referrerHost("https://t.co/abc?x=1") == "t.co")
        #expect(VisitSettings.referrerHost("HTTP://News.YCombinator.com/item?id=1") == "news.ycombinator.com")
        #expect(VisitSettings.referrerHost("android-app://com.Slack/") == "com.slack")
        #expect(VisitSettings.referrerHost("https://[2001:db8::1]:8443/x") != nil)
        // Read as a browser reads the host: escapes, full-width letters, IPv4 number forms.
        #expect(VisitSettings.referrerHost("https://T%2Eco/x") == "t.co")
        #expect(VisitSettings.referrerHost("https://\u{FF54}.co/x") == "t.co")
        #expect(VisitSettings.referrerHost("http://0x7f.1/") == "127.0.0.1")
        for bad in [nil, "", "not a url", "javascript:alert(1)", "https://", "file:///etc/passwd", "data:text/html,hi",
                    "https://" + String(repeating: "a", count: 300) + ".com/"] {
            #expect(VisitSettings.referrerHost(bad) == nil, "\(bad ?? "nil")")
        }
    }

    static let iPhone = LandingPageTests.iPhone
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
    static let forwarded = """
        service:
          publicURL: https://rabble.community
          trustForwardedFor: true

        """

    /// Behind N proxies of one's own, the client is the entry of X-Forwarded-For N from the
    /// right (the one the outermost proxy appended): whatever the client wrote to its left is not
    /// believed. The left-most entry was the client's to choose, and took someone else's deferred
    /// link, their rate limit and their network in the visit records.
    @Test func theClientIsTheAddressTheOutermostProxySaw() async throws {
        let peer = { "127.0.0.1" as String? }
        let cases: [(setting: String, header: String?, expected: String?)] = [
            ("true", "203.0.113.7, 198.51.100.9", "198.51.100.9"),
            ("true", "198.51.100.9", "198.51.100.9"),
            ("true", "203.0.113.7,198.51.100.9 ", "198.51.100.9"),
            ("2", "1.2.3.4, 203.0.113.7, 10.0.0.2", "203.0.113.7"),
            ("2", "10.0.0.2", "10.0.0.2"),
            ("true", "203.0.113.7, ", "127.0.0.1"),
            ("true", nil, "127.0.0.1"),
            ("false", "203.0.113.7", "127.0.0.1"),
            ("0", "203.0.113.7", "127.0.0.1"),
        ]
        for c in cases {
            let h = try await Harness.make(extra: "service: {publicURL: \"https://rabble.community\", trustForwardedFor: \(c.setting)}\n")
            #expect(h.service.routes.limits.addresses.address(forwardedFor: c.header, peer: peer) == c.expected, "\(c)")
        }
        // Over HTTP, every line of the header counts, in order: a second line the proxy added wins.
        let h = try await Harness.make(extra: Self.forwarded)
        let xff = HTTPField.Name("X-Forwarded-For")!
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/xff"}"#).json?["code"]?.stringValue)
            var headers: HTTPFields = [.userAgent: Self.desktop]
            headers.append(HTTPField(name: xff, value: "203.0.113.7"))
            headers.append(HTTPField(name: xff, value: "198.51.100.9"))
            #expect(try await client.call(.get, "/i/\(code)", headers: headers).status == .ok)
            try await h.service.flushClicks()
            #expect(try await h.store.visits(code: code).map(\.visit.address) == ["198.51.100.0"])
        }
        for bad in ["11", "-1", "1.5", "\"yes\""] {
            await #expect(throws: ConfigurationError.self, "\(bad)") {
                try await Harness.make(extra: "service: {publicURL: \"https://rabble.community\", trustForwardedFor: \(bad)}\n")
            }
        }
    }

    /// An entry with a port (`203.0.113.7:4711`, `[2001:db8::1]:443`, as some proxies write
    /// them) is its address: a new port per connection is no new client. What is not an address
    /// is not believed.
    @Test func aForwardedEntryIsItsAddressWithoutThePort() async throws {
        let cases: [(String, String?)] = [
            ("203.0.113.7", "203.0.113.7"), ("203.0.113.7:4711", "203.0.113.7"), ("2001:db8::1", "2001:db8::1"),
            ("[2001:db8::1]:443", "2001:db8::1"), ("[2001:db8::1]", "2001:db8::1"), ("unknown", nil), ("example.com:80", nil),
            ("203.0.113.7:4711:1", nil), ("", nil), ("300.1.1.1", nil),
        ]
        for (entry, expected) in cases { #expect(ClientAddresses.address(inForwardedEntry: entry) == expected, "\(entry)") }
        let h = try await Harness.make(extra: Self.forwarded)
        #expect(h.service.routes.limits.addresses.address(forwardedFor: "9.9.9.9, 1.2.3.4:80", peer: { "127.0.0.1" }) == "1.2.3.4")
        #expect(h.service.routes.limits.addresses.address(forwardedFor: "9.9.9.9, bogus", peer: { "127.0.0.1" }) == "127.0.0.1")
    }

    /// People's visits are recorded with platform, referrer host and the network of their
    /// address, previews with the bot flag; a limited link's record is written with its use, the
    /// others with the batched counts; the stats say the same; deleting the link deletes them.
    @Test(arguments: Backend.available)
    func visitsAreRecordedAndSummedUpInStats(_ backend: Backend) async throws {
        let h = try await Harness.make(extra: Self.forwarded, backend: backend)
        let xff = HTTPField.Name("X-Forwarded-For")!
        try await h.app().test(.router) { client in
            let open = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/open"}"#).json?["code"]?.stringValue)
            let limited = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/seat", "maxUses": 5}"#).json?["code"]?.stringValue)
            func visit(_ code: String, _ agent: String, referer: String? = nil, from address: String = "203.0.113.77") async throws {
                // The client sent an entry of its own; the proxy appended the address it saw.
                var headers: HTTPFields = [.userAgent: agent, xff: "198.51.100.66, " + address]
                if let referer { headers[.referer] = referer }
                #expect(try await client.call(.get, "/i/\(code)", headers: headers).status == .ok)
            }
            try await visit(open, Self.iPhone, referer: "https://t.co/abc")
            try await visit(open, Self.iPhone, referer: "https://t.co/def")
            try await visit(open, Self.android, referer: "https://news.example.org/item?id=1", from: "2001:db8:85a3:8d3::7")
            try await visit(open, Self.desktop)
            try await visit(open, "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", referer: "https://slack.com/")
            try await visit(limited, Self.iPhone, referer: "https://t.co/xyz")

            // The use of a limited link and its record are one transaction: there before any flush.
            let limitedRecords = try await h.store.visits(code: limited)
            #expect(limitedRecords.count == 1 && limitedRecords.first?.count == 1)
            var recorded = limitedRecords.first?.visit
            #expect(recorded?.software.os == "iOS" && recorded?.visitor != nil, "made before it is written with its use")
            recorded?.software = .init()
            recorded?.visitor = nil
            #expect(recorded == Visit(code: limited, at: h.clock.today, platform: .ios, referrerHost: "t.co", bot: false, address: "203.0.113.0"))

            try await h.service.flushClicks()
            // The flusher may have run between visits, so equal records can be in two rows: summed.
            var summed: [String: Int64] = [:]
            for r in try await h.store.visits(code: open) {
                summed["\(r.visit.platform) \(r.visit.referrerHost ?? "-") \(r.visit.bot ? "bot" : "person") \(r.visit.address ?? "-")", default: 0] += r.count
            }
            let described = summed.map { "\($0.key) ×\($0.value)" }.sorted()
            #expect(described == [
                "android news.example.org person 2001:db8:85a3:: ×1",
                "desktop - person 203.0.113.0 ×1",
                "desktop slack.com bot 203.0.113.0 ×1",
                "ios t.co person 203.0.113.0 ×2",  // the same second, platform, referrer and network: one row
            ], "\(described)")

            let stats = try await client.call(.get, "/api/links/\(open)/stats", token: h.reader)
            #expect(stats.status == .ok)
            let json = try #require(stats.json)
            #expect(json["code"]?.stringValue == open)
            #expect(json["clicks"]?["human"] == .int(4) && json["clicks"]?["bot"] == .int(1), "\(stats.text)")
            #expect(JSONWriter.compact(try #require(json["byPlatform"])) == #"{"ios":2,"android":1,"desktop":1}"#)
            let byDay = try #require(json["byDay"]?.arrayValue)
            #expect(byDay.count == 30)
            #expect(byDay.last?["day"]?.stringValue == Timestamp.formatDay(ClickDay.day(of: h.clock.today)))
            #expect(byDay.last?["human"] == .int(4) && byDay.last?["bot"] == .int(1))
            #expect(byDay.dropLast().allSatisfy { $0["human"] == .int(0) && $0["bot"] == .int(0) })
            #expect(JSONWriter.compact(try #require(json["referrers"])) == #"[{"host":"t.co","count":2},{"host":"news.example.org","count":1}]"#,
                    "people's referrers only, most first")

            let week = try await client.call(.get, "/api/links/\(open)/stats?days=7", token: h.reader)
            #expect(week.json?["byDay"]?.arrayValue?.count == 7)
            for bad in ["0", "367", "x", "-1", "7.5"] {
                let r = try await client.call(.get, "/api/links/\(open)/stats?days=\(bad)", token: h.reader)
                #expect(r.status == .badRequest && r.json?["error"]?["code"]?.stringValue == "invalid-days", "days=\(bad)")
            }
            #expect(try await client.call(.get, "/api/links/\(open)/stats").status == .unauthorized)
            #expect(try await client.call(.get, "/api/links/zzzzzzzz/stats", token: h.reader).status == .notFound)

            #expect(try await client.call(.delete, "/api/links/\(open)", token: h.writer).status == .noContent)
            #expect(try await h.store.visits(code: open).isEmpty, "a deleted link's records go with it")
        }
    }

    /// Records older than `visits.retentionDays` are deleted by the flusher; the day counts and
    /// the click total stay.
    @Test(arguments: Backend.available)
    func recordsPastTheirRetentionAreDeleted(_ backend: Backend) async throws {
        let h = try await Harness.make(extra: "visits: {retentionDays: 2}\n", backend: backend)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/old"}"#).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.iPhone, .referer: "https://t.co/1"]).status == .ok)
            try await h.service.flushClicks()
            let flusher = ClickFlusher(hot: h.service.hot, logger: Logger(label: "test"), now: { h.clock.today })
            await flusher.prune()
            #expect(try await h.store.visits(code: code).count == 1, "a day old: kept")
            h.clock.advance(3 * 86_400)
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.android]).status == .ok)
            try await h.service.flushClicks()
            await flusher.prune()
            let left = try await h.store.visits(code: code)
            #expect(left.map(\.visit.platform) == [.android], "only the visit within two days: \(left)")
            let stats = try #require(try await client.call(.get, "/api/links/\(code)/stats", token: h.reader).json)
            #expect(stats["clicks"]?["human"] == .int(2))
            #expect(stats["referrers"]?.arrayValue?.isEmpty == true, "t.co's visit is past the retention")
        }
    }

    @Test func addressesCanBeLeftOutAndRecordingTurnedOff() async throws {
        let none = try await Harness.make(extra: "visits: {addresses: none}\n")
        try await none.app().test(.live) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: none.writer, body: #"{"deepLink": "plur://group/a"}"#).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.iPhone]).status == .ok)
            try await none.service.flushClicks()
            #expect(try await none.store.visits(code: code).map(\.visit.address) == [nil])
        }
        let off = try await Harness.make(extra: "visits: {record: false}\n")
        try await off.app().test(.live) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: off.writer, body: #"{"deepLink": "plur://group/b"}"#).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.iPhone]).status == .ok)
            try await off.service.flushClicks()
            #expect(try await off.store.visits(code: code).isEmpty)
            #expect(try await off.store.link(code: code)?.clicks == 1, "clicks are still counted")
        }
    }

    /// Over a real connection, and answered from memory on the event loop after the first visit:
    /// the peer's address (127.0.0.1, no proxy trusted) is kept as its network.
    @Test func theFastPathRecordsVisitsWithThePeersNetwork() async throws {
        let h = try await Harness.make()
        try await h.app().test(.live) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/fast"}"#).json?["code"]?.stringValue)
            for _ in 0..<5 {
                #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.iPhone, .referer: "https://t.co/z",
                                                                             HTTPField.Name("X-Forwarded-For")!: "198.51.100.1"]).status == .ok)
            }
            try await h.service.flushClicks()
            let records = try await h.store.visits(code: code)
            #expect(records.reduce(0) { $0 + $1.count } == 5, "\(records)")
            #expect(records.allSatisfy { $0.visit.address == "127.0.0.0" && $0.visit.referrerHost == "t.co" },
                    "X-Forwarded-For is not trusted by default: \(records)")
        }
    }

    @Test(arguments: [
        ("visits: {addresses: full}", "visits.addresses"), ("visits: {retentionDays: 0}", "visits.retentionDays"),
        ("visits: {retentionDays: 4000}", "visits.retentionDays"), ("visits: {retain: 3}", "visits.retain"),
        ("visits: {record: yes please}", "visits.record"),
    ])
    func badVisitSettingsAreRefusedWithTheirKey(_ yaml: String, _ key: String) async throws {
        do {
            _ = try await Harness.make(extra: yaml + "\n")
            Issue.record("accepted \(yaml)")
        } catch let error as ConfigurationError {
            #expect(error.message.contains(key), "\(error.message)")
        }
    }
}
