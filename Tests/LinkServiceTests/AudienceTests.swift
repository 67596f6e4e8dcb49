import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkAudience
import LinkCache
import LinkImport
import LinkRequests
import SwitchyardDocuments
import LinkConfiguration
@testable import LinkService
@testable import LinkStorage
import Logging
import SwitchyardCore
import SwitchyardGeo
import SwitchyardTestSupport
import Testing

/// Who visited (issue 45): the place from a geo database the tests write, or from a trusted
/// proxy's header; browser, OS and device by uap-core's rules; the campaign; the visitor of the
/// day; and the breakdowns of `GET /api/stats` and `GET /api/links/{code}/stats?by=`.
@Suite struct AudienceTests {
    static var geoReady: Bool { MMDBWriter.installed || Backend.toolsRequired }
    static var agentsReady: Bool { FileManager.default.fileExists(atPath: VisitSettings.installedUserAgentRegexes) || Backend.toolsRequired }
    static let iPhone = LandingPageTests.iPhone
    static let android = VisitTests.android
    static let xff = HTTPField.Name("X-Forwarded-For")!

    static func settings(geo: String = "city", database: String) -> String {
        """
        service: {publicURL: "https://rabble.community", trustForwardedFor: true}
        visits: {geo: \(geo), geoDatabase: "\(database)"}

        """
    }

    static func visit(_ client: some TestClientProtocol, _ path: String, from address: String, agent: String) async throws -> HTTPResponse.Status {
        var headers: HTTPFields = [.userAgent: agent]
        headers.append(HTTPField(name: xff, value: address))
        return try await client.call(.get, path, headers: headers).status
    }

    /// A visit from a London address with an iPhone's Safari and a campaign, twice (one
    /// visitor), and one from San Francisco with Android's Chrome: each record has its place,
    /// software, campaign and visitor, and the breakdowns count them, on SQLite and PostgreSQL.
    @Test(.enabled(if: geoReady && agentsReady, "libmaxmind-db-writer-perl or uap-core is not installed (bash .ci/run --setup installs them)"),
          arguments: Backend.available)
    func aVisitIsRecordedWithItsPlaceSoftwareCampaignAndVisitor(_ backend: Backend) async throws {
        let h = try await Harness.make(extra: Self.settings(database: try MMDBWriter.write()), backend: backend)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/aud"}"#).json?["code"]?.stringValue)
            for _ in 0..<2 {
                #expect(try await Self.visit(client, "/i/\(code)?utm_source=news&utm_medium=email&utm_campaign=spring+sale&utm_term=a%26b&utm_content=hero",
                                             from: "81.2.69.170", agent: Self.iPhone) == .ok)
            }
            #expect(try await Self.visit(client, "/i/\(code)", from: "2001:db8:1ff::1", agent: Self.android) == .ok)
            try await h.service.flushClicks()
            let records = try await h.store.visits(code: code)
            // (The flusher may have run between the two visits: equal records in two rows.)
            let london = try #require(records.first { $0.visit.place.city == "London" })
            #expect(records.filter { $0.visit.place.city == "London" }.reduce(0) { $0 + $1.count } == 2)
            #expect(london.visit.place == .init(continent: "EU", country: "GB", region: "GB-ENG", city: "London"))
            #expect(london.visit.software == .init(browser: "Mobile Safari", os: "iOS", device: "iPhone"))
            #expect(london.visit.campaign == .init(source: "news", medium: "email", campaign: "spring sale", term: "a&b", content: "hero"))
            #expect(london.visit.address == "81.2.69.0", "the stored address is still the network")
            let sf = try #require(records.first { $0.visit.place.city == "San Francisco" })
            #expect(sf.visit.place == .init(continent: "NA", country: "US", region: "US-CA", city: "San Francisco"))
            #expect(sf.visit.software.browser == "Chrome Mobile" && sf.visit.software.os == "Android")
            #expect(sf.visit.campaign.isEmpty)
            let visitors = Set(records.compactMap(\.visit.visitor))
            #expect(visitors.count == 2, "two visitors, the first counted once")
            #expect(records.filter { $0.visit.place.city == "London" }.allSatisfy { $0.visit.visitor == london.visit.visitor })
            #expect(visitors.allSatisfy { $0.count == 22 })

            func stats(_ query: String) async throws -> JSONValue {
                let answer = try await client.call(.get, "/api/links/\(code)/stats?\(query)", token: h.reader)
                #expect(answer.status == .ok, "\(answer.text)")
                return try #require(answer.json)
            }
            let countries = try await stats("by=country")
            #expect(countries["visits"]?.intValue == 3 && countries["uniques"]?.intValue == 2)
            #expect(countries["rows"]?.arrayValue?.map { $0["value"]?.stringValue ?? "-" } == ["GB", "US"])
            #expect(countries["rows"]?.arrayValue?.first?["visits"]?.intValue == 2 && countries["rows"]?.arrayValue?.first?["uniques"]?.intValue == 1)
            let cities = try await stats("by=city")
            #expect(cities["rows"]?.arrayValue?.first?["value"] == .string("London") && cities["rows"]?.arrayValue?.first?["country"] == .string("GB"))
            #expect(try await stats("by=region")["rows"]?.arrayValue?.compactMap { $0["value"]?.stringValue } == ["GB-ENG", "US-CA"])
            #expect(try await stats("by=browser")["rows"]?.arrayValue?.compactMap { $0["value"]?.stringValue } == ["Mobile Safari", "Chrome Mobile"])
            #expect(try await stats("by=os")["rows"]?.arrayValue?.compactMap { $0["value"]?.stringValue } == ["iOS", "Android"])
            #expect(try await stats("by=device")["rows"]?.arrayValue?.first?["value"] == .string("iPhone"))
            let campaigns = try await stats("by=utm_campaign")
            #expect(campaigns["rows"]?.arrayValue?.map { $0["value"] ?? .null } == [.string("spring sale"), .null], "unknown last")
            let day = Timestamp.formatDay(ClickDay.day(of: h.clock.today))
            let days = try await stats("by=day")["rows"]
            #expect(days?.arrayValue?.count == 1 && days?.arrayValue?.first?["value"] == .string(day) && days?.arrayValue?.first?["visits"]?.intValue == 3 && days?.arrayValue?.first?["uniques"]?.intValue == 2)
            // Across links, for one campaign.
            let overall = try #require(try await client.call(.get, "/api/stats?by=platform&campaign=spring%20sale", token: h.reader).json)
            #expect(overall["code"] == .null && overall["visits"]?.intValue == 2 && overall["rows"]?.arrayValue?.first?["value"] == .string("ios"))
            // A span before the visits: nothing.
            #expect(try await stats("by=country&from=2020-01-01&to=2020-01-31")["visits"]?.intValue == 0)
        }
    }

    @Test func breakdownRequestsAreCheckedWithTheFieldNamed() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/b"}"#).json?["code"]?.stringValue)
            let cases: [(String, String)] = [
                ("by=nation", "by"), ("by=os&from=2026-02-30", "from"), ("by=os&to=yesterday", "to"), ("by=os&from=2026-05-02&to=2026-05-01", "from"),
                ("by=os&from=2024-01-01&to=2026-01-01", "from"), ("by=os&limit=0", "limit"), ("by=os&limit=1001", "limit"), ("by=os&by=city", "by"),
                ("by=os&campaign=", "campaign"), ("by=os&campaign=%00", "campaign"), ("by=os&campaign=%E2%80%AEx", "campaign"),
                ("from=2026-01-01", "by"), ("format=csv", "by"), ("limit=5", "by"), ("campaign=x", "by"), ("by=os&days=3", "days"),
            ]
            for (query, field) in cases {
                let answer = try await client.call(.get, "/api/links/\(code)/stats?\(query)", token: h.reader)
                #expect(answer.status == .badRequest, "\(query)")
                #expect(answer.json?.at("error.field") == .string(field), "\(query): \(answer.text)")
            }
            #expect(try await client.call(.get, "/api/links/nosuch12/stats?by=os", token: h.reader).status == .notFound)
            #expect(try await client.call(.get, "/api/stats?by=os").status == .unauthorized)
        }
    }

    /// `geo: country` keeps the continent and country only; `geo: off` nothing, even with a database.
    @Test(.enabled(if: geoReady, "libmaxmind-db-writer-perl is not installed"))
    func geoCountryKeepsNoRegionOrCity() async throws {
        let database = try MMDBWriter.write()
        for (mode, expected) in [("country", Visit.Place(continent: "EU", country: "GB")), ("off", Visit.Place())] {
            let h = try await Harness.make(extra: Self.settings(geo: mode, database: database))
            try await h.app().test(.router) { client in
                let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/c"}"#).json?["code"]?.stringValue)
                #expect(try await Self.visit(client, "/i/\(code)", from: "81.2.69.170", agent: Self.iPhone) == .ok)
                try await h.service.flushClicks()
                #expect(try await h.store.visits(code: code).map(\.visit.place) == [expected], "\(mode)")
            }
        }
    }

    /// Without a database, the country a proxy of the operator's names; a client cannot set it
    /// (refused at load without trustForwardedFor), and what is no country code is not kept.
    @Test func aTrustedProxysCountryHeaderIsTheCountry() async throws {
        let h = try await Harness.make(extra: """
            service: {publicURL: "https://rabble.community", trustForwardedFor: true}
            visits: {countryHeader: cf-ipcountry}

            """)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/p"}"#).json?["code"]?.stringValue)
            for (value, agent) in [("gb", "A"), ("XX", "B"), ("T1", "C"), ("<script>", "D"), ("", "E")] {
                var headers: HTTPFields = [.userAgent: "Mozilla/5.0 " + agent]
                headers.append(HTTPField(name: HTTPField.Name("CF-IPCountry")!, value: value))
                #expect(try await client.call(.get, "/i/\(code)", headers: headers).status == .ok)
            }
            try await h.service.flushClicks()
            let countries = try await h.store.visits(code: code).map { $0.visit.place.country }
            #expect(countries.compactMap { $0 } == ["GB"], "\(countries)")
        }
        let error = await #expect(throws: ConfigurationError.self) {
            try await Harness.make(extra: "visits: {countryHeader: CF-IPCountry}\n")
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("visits.countryHeader"))
        await #expect(throws: ConfigurationError.self) {
            try await Harness.make(extra: "service: {publicURL: \"https://rabble.community\", trustForwardedFor: true}\nvisits: {countryHeader: X-Client-Says}\n")
        }
    }

    /// A missing, empty, truncated or garbage database stops the start with the key, the path
    /// and what is wrong.
    @Test(.enabled(if: geoReady, "libmaxmind-db-writer-perl is not installed"))
    func aBrokenGeoDatabaseIsRefusedAtStart() async throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: try MMDBWriter.write()))
        let dir = Backend.temporaryPath("geo")
        let files: [(String, Data?)] = [("missing.mmdb", nil), ("empty.mmdb", Data()), ("truncated.mmdb", good.prefix(good.count / 2)),
                                        ("garbage.mmdb", Data(repeating: 0x41, count: 4096))]
        for (name, bytes) in files {
            let path = dir + "/" + name
            if let bytes { try bytes.write(to: URL(fileURLWithPath: path)) }
            let error = await #expect(throws: ConfigurationError.self, "\(name)") {
                try await Harness.make(extra: Self.settings(database: path))
            }
            let text = error.map { "\($0)" } ?? ""
            #expect(text.contains("visits.geoDatabase") && text.contains(path), "\(text)")
        }
    }

    /// A replaced file is read again; one that cannot be used is logged and the one read before
    /// keeps answering; a file rewritten in place changes nothing already read.
    @Test(.enabled(if: geoReady, "libmaxmind-db-writer-perl is not installed"))
    func aReplacedDatabaseIsReadAgainAndABadOneIsNot() async throws {
        let dir = Backend.temporaryPath("geo-reload")
        let path = dir + "/geo.mmdb"
        _ = try MMDBWriter.write(to: path)
        var settings = VisitSettings()
        settings.geo = .country
        settings.geoDatabase = path
        settings.uniques = false
        let audience = try VisitAudience(settings: settings, store: try await Backend.sqlite.freshStore(), logger: Logger(label: "test"))
        func country(_ address: String) async throws -> String? {
            var visit = Visit(code: "abc", at: Date(), platform: .desktop)
            visit.observed = audience.observed(address: { address }, userAgent: nil, proxyCountry: nil)
            return try await audience.enrich([visit: 1], at: Date()).keys.first?.place.country
        }
        #expect(try await country("81.2.69.170") == "GB")
        // Replaced by rename, as updaters do: 81.2.69.160/27 is now in France.
        let france = MMDBWriter.testNetworks().replacingOccurrences(of: #""iso_code": "GB""#, with: #""iso_code": "FR""#)
        let next = try MMDBWriter.write(france, to: dir + "/next.mmdb")
        #expect(rename(next, path) == 0)
        audience.geo?.reloadIfReplaced(force: true)
        #expect(try await country("81.2.69.170") == "FR")
        // Rewritten in place with garbage: logged, and France still answers (no crash, no stale map).
        try Data(repeating: 0x42, count: 100).write(to: URL(fileURLWithPath: path))
        audience.geo?.reloadIfReplaced(force: true)
        #expect(try await country("81.2.69.170") == "FR")
        #expect(try await country("198.51.100.9") == "DE")
    }

    /// The same visitor on the same day is one hash, on any node; another day, another link or
    /// another browser is another; a day's secret is deleted once the day (and its grace) is over.
    @Test(arguments: Backend.available)
    func visitorsAreCountedOncePerLinkAndDayUnderASecretThatGoes(_ backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let (a, b) = (try await LinkStore.open(location), try await LinkStore.open(location))
        var settings = VisitSettings()
        settings.userAgentRegexes = nil
        let nodes = try [a, b].map { try VisitAudience(settings: settings, store: $0, logger: Logger(label: "test")) }
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        func visitor(_ node: VisitAudience, code: String = "abc", address: String = "203.0.113.7", agent: String = "UA", at date: Date = day) async throws -> String? {
            var visit = Visit(code: code, at: date, platform: .desktop)
            visit.observed = node.observed(address: { address }, userAgent: agent, proxyCountry: nil)
            return try await node.enrich([visit: 1], at: date).keys.first?.visitor
        }
        let first = try #require(try await visitor(nodes[0]))
        #expect(try await visitor(nodes[1]) == first, "another node, the same day: the same visitor")
        #expect(try await visitor(nodes[0], code: "xyz") != first)
        #expect(try await visitor(nodes[0], agent: "Other") != first)
        #expect(try await visitor(nodes[0], address: "203.0.113.8") != first)
        let nextDay = day.addingTimeInterval(86_400)
        #expect(try await visitor(nodes[0], at: nextDay) != first)
        let today = ClickDay.day(of: day)
        func secrets() async throws -> [String] {
            try await a.db.read("SELECT name FROM service_keys WHERE name LIKE 'visitors-%' ORDER BY name", []).compactMap { $0.first?.text }
        }
        #expect(try await secrets() == ["visitors-\(today)", "visitors-\(today + 1)"])
        // Within the grace after the day: kept; after it: gone, and only it.
        try await a.pruneVisitorSecrets(at: Date(timeIntervalSince1970: Double(today + 1) * 86_400 + 60))
        #expect(try await secrets().count == 2)
        try await a.pruneVisitorSecrets(at: Date(timeIntervalSince1970: Double(today + 1) * 86_400 + LinkStore.visitorSecretGrace + 1))
        #expect(try await secrets() == ["visitors-\(today + 1)"])
        // `uniques: false`: no visitor.
        settings.uniques = false
        let off = try VisitAudience(settings: settings, store: a, logger: Logger(label: "test"))
        #expect(try await visitor(off) == nil)
    }

    @Test func campaignsAreReadSafelyFromTheQuery() {
        #expect(Visit.Campaign(query: "utm_source=a&utm_medium=b&utm_campaign=c%20d&utm_term=e+f&utm_content=g&x=1")
                == .init(source: "a", medium: "b", campaign: "c d", term: "e f", content: "g"))
        #expect(Visit.Campaign(query: "utm_source=first&utm_source=second").source == "first")
        #expect(Visit.Campaign(query: "utm_source=&utm_medium=%20%20&utm_campaign=%ZZ").isEmpty, "empty, blank and undecodable are none")
        #expect(Visit.Campaign(query: "utm_source=a%00b%0D%0Ac%7F").source == "abc", "control characters dropped")
        #expect(Visit.Campaign(query: "utm_source=%E2%80%AEevil%E2%81%A6%C2%85").source == "evil", "marks that reorder text, and C1 controls, dropped")
        #expect(Visit.Campaign(query: "utm_sourcex=a&xutm_source=b&utm_source").isEmpty)
        let long = Visit.Campaign(query: Substring("utm_campaign=" + String(repeating: "%C3%A9", count: 50_000)))
        #expect(long.campaign == String(repeating: "é", count: Visit.Campaign.maximumCharacters))
        #expect(Visit.Campaign(query: "fbclid=abc&gclid=def").isEmpty)
    }

    /// Absurd User-Agents and query strings are recorded safely: 100 KB, invalid UTF-8 (as the
    /// HTTP layer repairs it), control characters.
    @Test(.enabled(if: agentsReady, "uap-core is not installed"))
    func absurdUserAgentsAndQueriesAreRecordedSafely() async throws {
        let h = try await Harness.make()
        try await h.app().test(.live) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/abs"}"#).json?["code"]?.stringValue)
            let agents = [String(repeating: "Mozilla/5.0 (iPhone) ", count: 3_000), "Mozilla/5.0 \u{FFFD}\u{FFFD} Safari", "Mozilla\t/5.0 ()"]
            for agent in agents {
                #expect(try await client.call(.get, "/i/\(code)?utm_campaign=" + String(repeating: "x", count: 4_000), headers: [.userAgent: agent]).status == .ok)
            }
            try await h.service.flushClicks()
            let records = try await h.store.visits(code: code)
            #expect(records.reduce(0) { $0 + $1.count } == 3)
            #expect(records.allSatisfy { ($0.visit.campaign.campaign?.count ?? 0) == Visit.Campaign.maximumCharacters })
            #expect(records.contains { $0.visit.software.os == "iOS" }, "the 60 KB iPhone User-Agent is read by its first 1,024 bytes")
        }
    }
}

extension JSONValue {
    /// A whole number's value.
    var intValue: Int? { if case .number(let n, _) = self, n == n.rounded() { return Int(n) } else { return nil } }
}

extension AudienceTests {
    /// Two nodes on one PostgreSQL: a visitor who lands on each in one day is one unique (the
    /// nodes share the day's secret), and the breakdown either node answers counts both visits;
    /// the place (from a database the test writes), browser, OS, device and campaign show in
    /// the other node's API, CSV and dashboard.
    @Test(.enabled(if: Backend.available.contains(.postgres) && geoReady && agentsReady, "no PostgreSQL, geo writer or uap-core for the tests"))
    func twoNodesCountOneVisitorOnce() async throws {
        try await Harness.twoNodes(extra: Self.settings(database: try MMDBWriter.write())) { a, nodeA, nodeB in
            let code = try #require(try await nodeA.call(.post, "/api/links", token: a.writer, body: #"{"deepLink": "plur://group/two"}"#).json?["code"]?.stringValue)
            #expect(try await Self.visit(nodeA, "/i/\(code)?utm_campaign=both", from: "81.2.69.170", agent: Self.iPhone) == .ok)
            #expect(try await Self.visit(nodeB, "/i/\(code)?utm_campaign=both", from: "81.2.69.170", agent: Self.iPhone) == .ok)
            #expect(try await Self.visit(nodeB, "/i/\(code)?utm_campaign=both", from: "2001:db8:1ff::1", agent: Self.iPhone) == .ok)
            // Each node writes its own batch within a second or so.
            var answer: JSONValue?
            for _ in 0..<50 {
                answer = try await nodeB.call(.get, "/api/links/\(code)/stats?by=utm_campaign", token: a.reader).json
                if answer?["visits"]?.intValue == 3 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(answer?["visits"]?.intValue == 3 && answer?["uniques"]?.intValue == 2, "\(String(describing: answer))")
            #expect(answer?["rows"]?.arrayValue?.first?["value"] == .string("both"))
            let cities = try #require(try await nodeB.call(.get, "/api/links/\(code)/stats?by=city", token: a.reader).json)
            let london = cities["rows"]?.arrayValue?.first
            #expect(london?["value"] == .string("London") && london?["country"] == .string("GB") && london?["visits"]?.intValue == 2 && london?["uniques"]?.intValue == 1, "\(cities)")
            for (by, value) in [("browser", "Mobile Safari"), ("os", "iOS"), ("device", "iPhone")] {
                #expect(try await nodeB.call(.get, "/api/links/\(code)/stats?by=\(by)", token: a.reader).json?["rows"]?.arrayValue?.first?["value"] == .string(value), "\(by)")
            }
            let records = try CSV.parse(try await nodeA.call(.get, "/api/links/\(code)/visits", token: a.reader).text).map(\.fields)
            let header = try #require(records.first)
            let column = { (name: String) in try #require(header.firstIndex(of: name)) }
            let (city, browser, campaign) = (try column("city"), try column("browser"), try column("utm_campaign"))
            #expect(records.dropFirst().contains { $0[city] == "London" && $0[browser] == "Mobile Safari" && $0[campaign] == "both" }, "\(records)")
            var dashboard = DashboardTests.Browser(client: nodeB)
            _ = try await dashboard.signIn(a.reader)
            let page = try await dashboard.get("/admin/links/\(code)")
            #expect(page.text.contains("United Kingdom (GB)<span") && page.text.contains(">London<span") && page.text.contains(">both<span"), "\(page.text)")
            #expect(page.text.contains(#"<b>3</b> visits by people, <b id="visitors">2</b> visitors"#))
        }
    }
}

extension AudienceTests {
    /// Breakdowns and a link's raw visits as CSV: every record, a header, and text a visitor
    /// chose (a campaign of `=HYPERLINK(…)`, a referrer) made inert for spreadsheets.
    @Test func breakdownsAndVisitsComeAsCSVWithFormulasMadeInert() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/csv"}"#).json?["code"]?.stringValue)
            for campaign in ["%3DHYPERLINK(%22http%3A%2F%2Fevil%22)", "-2%2B3", "spring"] {
                #expect(try await client.call(.get, "/i/\(code)?utm_campaign=\(campaign)", headers: [.userAgent: Self.iPhone, .referer: "https://t.co/x"]).status == .ok)
            }
            try await h.service.flushClicks()
            let breakdown = try await client.call(.get, "/api/links/\(code)/stats?by=utm_campaign&format=csv", token: h.reader)
            #expect(breakdown.status == .ok && breakdown.headers[.contentType] == "text/csv; charset=utf-8")
            let lines = breakdown.text.split(separator: "\r\n").map(String.init)
            #expect(lines.first == "utm_campaign,visits,uniques")
            #expect(Set(lines.dropFirst()) == ["\"'=HYPERLINK(\"\"http://evil\"\")\",1,1", "'-2+3,1,1", "spring,1,1"], "\(lines)")
            let visits = try await client.call(.get, "/api/links/\(code)/visits", token: h.reader)
            #expect(visits.status == .ok, "\(visits.text)")
            let records = try CSV.parse(visits.text).map(\.fields)
            #expect(records.first == StatsController.visitColumns)
            #expect(records.count == 4)
            let column = { (name: String) in try #require(StatsController.visitColumns.firstIndex(of: name)) }
            let campaignColumn = try column("utm_campaign")
            let campaigns = records.dropFirst().map { $0[campaignColumn] }
            #expect(Set(campaigns) == ["'=HYPERLINK(\"http://evil\")", "'-2+3", "spring"])
            let (browser, referrer, count) = (try column("browser"), try column("referrer"), try column("visits"))
            #expect(records.dropFirst().allSatisfy { $0[browser] == "Mobile Safari" && $0[referrer] == "t.co" && $0[count] == "1" })
            for record in records.dropFirst() {
                for field in record { #expect(!(field.unicodeScalars.first.map(CSVFields.formulaStarts.contains) ?? false), "\(field)") }
            }
            // A visitor hash is base64url and may begin with `-`: inert too.
            var dashed = Visit(code: code, at: h.clock.today, platform: .ios, bot: false)
            dashed.visitor = "-AbCdEfGhIjKlMnOpQrStUv"
            try await h.store.addClicks([:], visits: [dashed: 1])
            let withDash = try CSV.parse(try await client.call(.get, "/api/links/\(code)/visits", token: h.reader).text).map(\.fields)
            let visitorColumn = try column("visitor")
            #expect(withDash.dropFirst().contains { $0[visitorColumn] == "'-AbCdEfGhIjKlMnOpQrStUv" }, "\(withDash)")
            #expect(try await client.call(.get, "/api/links/\(code)/stats?by=os&format=xml", token: h.reader).json?.at("error.field") == .string("format"))
            #expect(try await client.call(.get, "/api/links/nosuch12/visits", token: h.reader).status == .notFound)
            #expect(try await client.call(.get, "/api/links/\(code)/visits").status == .unauthorized)
        }
    }

    /// Raw visits are written page by page, whole seconds per page: more records than a page
    /// holds, several in one second, all come out once.
    @Test func aLinksVisitsAreReadPageByPageWithoutLosingOrRepeatingOne() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/pages"}"#).json?["code"]?.stringValue)
            let base = h.clock.today
            var visits: [Visit: Int64] = [:]
            for i in 0..<(StatsController.visitsPerPage * 2 + 7) {
                var v = Visit(code: code, at: base.addingTimeInterval(Double(i / 3)), platform: .desktop)
                v.visitor = "v\(i)"
                visits[v] = 1
            }
            try await h.store.addClicks([:], days: [:], clicks: [], visits: visits)
            let answer = try await client.call(.get, "/api/links/\(code)/visits", token: h.reader)
            let records = try CSV.parse(answer.text).map(\.fields).dropFirst()
            let column = try #require(StatsController.visitColumns.firstIndex(of: "visitor"))
            #expect(records.count == visits.count)
            #expect(Set(records.map { $0[column] }).count == visits.count)
        }
    }
}

extension AudienceTests {
    /// A link's dashboard page ranks its audience: countries by name, browsers, OS, devices and
    /// campaigns, with visits and visitors.
    @Test(.enabled(if: agentsReady, "uap-core is not installed"))
    func theDashboardRanksTheAudience() async throws {
        let h = try await Harness.make(extra: """
            service: {publicURL: "https://rabble.community", trustForwardedFor: true}
            visits: {countryHeader: CF-IPCountry}

            """)
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/dash"}"#).json?["code"]?.stringValue)
            for (country, agent, campaign) in [("GB", Self.iPhone, "spring"), ("GB", Self.iPhone, "spring"), ("DE", Self.android, "autumn")] {
                var headers: HTTPFields = [.userAgent: agent]
                headers.append(HTTPField(name: HTTPField.Name("CF-IPCountry")!, value: country))
                headers.append(HTTPField(name: Self.xff, value: country == "GB" ? "203.0.113.7" : "203.0.113.8"))
                #expect(try await client.call(.get, "/i/\(code)?utm_campaign=\(campaign)", headers: headers).status == .ok)
            }
            try await h.service.flushClicks()
            var browser = DashboardTests.Browser(client: client)
            _ = try await browser.signIn(h.reader)
            let page = try await browser.get("/admin/links/\(code)")
            #expect(page.status == .ok)
            #expect(page.text.contains(#"<b>3</b> visits by people, <b id="visitors">2</b> visitors"#), "\(page.text)")
            for row in ["United Kingdom (GB)<span class=\"meter\"><span style=\"width:67%\"></span></span></td><td class=\"num\">2</td><td class=\"num\">1</td>",
                        "Germany (DE)<span class=\"meter\"><span style=\"width:33%\"></span></span></td><td class=\"num\">1</td><td class=\"num\">1</td>",
                        "Mobile Safari<span", "Chrome Mobile<span", ">iOS<span", ">Android<span", ">iPhone<span", ">spring<span", ">autumn<span"] {
                #expect(page.text.contains(row), "\(row)")
            }
            #expect(page.text.contains(#"<table class="ranking" id="cities">"#) && page.text.contains("Unknown<span"), "no city without a database: Unknown")
            #expect(page.text.contains(#"<p id="place-source"><small>Countries: the CF-IPCountry header of your proxy.</small></p>"#))
            // The days: a bar for today with its visits and visitors, and the range's form.
            let today = Timestamp.formatDay(ClickDay.day(of: h.clock.today)), first = Timestamp.formatDay(ClickDay.day(of: h.clock.today) - 29)
            #expect(page.text.contains(#"<g class="day" data-day="\#(today)" data-visits="3" data-visitors="2"><title>\#(today): 3 visits, 2 visitors</title>"#), "\(page.text)")
            #expect(page.text.contains(#"<input type="date" name="from" value="\#(first)">"#) && page.text.contains(#"<input type="date" name="to" value="\#(today)">"#))
            // A range of the user's: the days before today have no visits; one that cannot be read says why.
            let before = try await browser.get("/admin/links/\(code)?from=2020-01-01&to=2020-01-31")
            #expect(before.text.contains("2020-01-01 to 2020-01-31 (31 days): <b>0</b> visits by people") && !before.text.contains(#"<g class="day""#), "\(before.text)")
            let wrong = try await browser.get("/admin/links/\(code)?from=2026-13-01")
            #expect(wrong.status == .ok && wrong.text.contains(#"<p class="error" id="range-error">"#) && wrong.text.contains("showing the last 30 days"), "\(wrong.text)")
            #expect(wrong.text.contains("<b>3</b> visits by people"))
            // The list of links shows every link's audience; a search shows none.
            let list = try await browser.get("/admin")
            #expect(list.text.contains(#"<div class="card" id="audience">"#) && list.text.contains("\(first) to \(today) (30 days), every link: <b>3</b> visits by people"), "\(list.text)")
            #expect(list.text.contains("United Kingdom (GB)<span"))
            #expect(!(try await browser.get("/admin?q=dash")).text.contains(#"id="audience""#))
        }
    }
}

extension AudienceTests {
    static func record(_ code: String, day: Int64, second: Int64 = 3600, platform: VisitPlatform = .ios, country: String?, city: String? = nil,
                       browser: String? = "Mobile Safari", campaign: String? = nil, visitor: String?, bot: Bool = false, count: Int64 = 1) -> (Visit, Int64) {
        var v = Visit(code: code, at: Date(timeIntervalSince1970: Double(day * 86_400 + second)), platform: platform, bot: bot)
        v.place = .init(continent: nil, country: country, region: city == nil ? nil : "ENG", city: city)
        v.software = .init(browser: browser, os: "iOS", device: "iPhone")
        v.campaign.campaign = campaign
        v.visitor = visitor
        return (v, count)
    }

    /// Days that are over are rolled up; a breakdown answers the same from the rollups as from
    /// the records, for every grouping, one link or all; after the records are deleted the
    /// rolled days still answer; a late record of a rolled day is taken in on the next run.
    @Test(arguments: Backend.available)
    func rollupsAnswerAsTheRecordsDidAndOutliveThem(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        let today: Int64 = 20_700
        let now = Date(timeIntervalSince1970: Double(today * 86_400 + 3600))
        for (code, tags) in [("aaaaaa", ["team_a"]), ("bbbbbb", ["team-a"])] {
            var link = StoredLink(code: code, createdAt: Date(timeIntervalSince1970: 0))
            link.tags = tags
            try await store.insert(link)
        }
        var records: [Visit: Int64] = [:]
        for (v, n) in [
            Self.record("aaaaaa", day: today - 3, country: "GB", city: "London", campaign: "spring", visitor: "v1", count: 3),
            Self.record("aaaaaa", day: today - 3, second: 7200, country: "GB", city: "London", visitor: "v1"),
            Self.record("aaaaaa", day: today - 2, platform: .android, country: "DE", browser: "Chrome Mobile", visitor: "v2"),
            Self.record("aaaaaa", day: today - 2, country: nil, browser: nil, visitor: "v3"),
            Self.record("aaaaaa", day: today - 1, country: "GB", city: "Leeds", visitor: "v4", count: 2),
            Self.record("aaaaaa", day: today - 1, country: "GB", visitor: nil, bot: true, count: 5),
            Self.record("bbbbbb", day: today - 1, country: "US", city: "Austin", visitor: "v5"),
            Self.record("bbbbbb", day: today, country: "US", city: "Austin", visitor: "v6"),
        ] { records[v, default: 0] += n }
        try await store.addClicks([:], visits: records)
        let span = LinkStore.BreakdownFilter(days: (today - 10)...today)
        func all() async throws -> [String] {
            var out: [String] = []
            // Each link, every link, and the links tagged team_a (aaaaaa alone: `_` is not a wildcard).
            for (code, tag) in [("aaaaaa", nil), ("bbbbbb", nil), (nil, nil), (nil, "team_a")] as [(String?, String?)] {
                for by in LinkStore.Breakdown.allCases {
                    var filter = span
                    filter.code = code
                    filter.tag = tag
                    let r = try await store.breakdown(by, filter, limit: 100)
                    out.append("\(code ?? tag.map { "tag:" + $0 } ?? "*") \(by.rawValue) \(r.visits)/\(r.uniques): " + r.rows.map { "\($0.value ?? "-")|\($0.country ?? "")=\($0.visits)/\($0.uniques)" }.joined(separator: " "))
                }
            }
            return out
        }
        let fromRecords = try await all()
        #expect(fromRecords.filter { $0.hasPrefix("tag:team_a ") }.map { $0.dropFirst("tag:team_a".count) }
                == fromRecords.filter { $0.hasPrefix("aaaaaa ") }.map { $0.dropFirst("aaaaaa".count) }, "\(fromRecords)")
        #expect(fromRecords.contains("aaaaaa country 8/4: GB|=6/2 DE|=1/1 -|=1/1"), "\(fromRecords)")
        #expect(fromRecords.contains("* city 10/6: London|GB=4/1 Austin|US=2/2 Leeds|GB=2/1 -|=2/2"), "\(fromRecords)")
        func same(_ a: [String], _ b: [String]) { for (x, y) in zip(a, b) where x != y { Issue.record("\(x)\n  ≠ \(y)") } }
        // Not yet past the grace after yesterday: the day before it is the last rolled.
        let early = Date(timeIntervalSince1970: Double(today * 86_400 + 60))
        let longAgo = Date(timeIntervalSince1970: 0)
        #expect(try await store.rollUpVisits(at: early, recordsKeptSince: longAgo) == [today - 3, today - 2])
        #expect(try await store.rolledThrough() == today - 2)
        same(try await all(), fromRecords)
        #expect(try await store.rollUpVisits(at: now, recordsKeptSince: longAgo) == [today - 3, today - 2, today - 1])
        #expect(try await store.rolledThrough() == today - 1)
        same(try await all(), fromRecords)
        // The records before yesterday go: the rolled days still answer.
        let yesterday = Date(timeIntervalSince1970: Double((today - 1) * 86_400))
        try await store.pruneVisits(before: yesterday)
        same(try await all(), fromRecords)
        // A late batch of yesterday's visits is taken in on the next run (the last two days are
        // rolled again), and the day before, whose records are gone, keeps its rollup.
        try await store.addClicks([:], visits: Dictionary(uniqueKeysWithValues: [Self.record("bbbbbb", day: today - 1, second: 9000, country: "FR", visitor: "v7")]))
        #expect(try await store.rollUpVisits(at: now, recordsKeptSince: yesterday) == [today - 1])
        let again = try await store.breakdown(.country, .init(code: "bbbbbb", days: span.days), limit: 100)
        #expect(again.visits == 3 && again.uniques == 3 && again.rows.map(\.value) == ["US", "FR"], "\(again)")
        #expect(try await store.breakdown(.country, .init(code: "aaaaaa", days: span.days), limit: 100).visits == 8)
        // A campaign's breakdown reads the records (within their retention).
        let campaign = try await store.breakdown(.country, .init(days: span.days, campaign: "spring"), limit: 100)
        #expect(campaign.visits == 0, "spring's records are gone with their day")
        try await store.pruneVisits(before: Date(timeIntervalSince1970: Double(today * 86_400)))
        same(try await all().filter { !$0.hasPrefix("bbbbbb") && !$0.hasPrefix("*") }, fromRecords.filter { !$0.hasPrefix("bbbbbb") && !$0.hasPrefix("*") })
        // A deleted link's rollups go with it.
        _ = try await store.delete(code: "aaaaaa")
        #expect(try await store.breakdown(.country, .init(code: "aaaaaa", days: span.days), limit: 100).visits == 0)
    }
}

extension AudienceTests {
    /// With `uniques: false` the API says visitors are not counted (null), not that there were none.
    @Test func withoutUniquesVisitorsAreNullNotZero() async throws {
        let h = try await Harness.make(extra: "visits: {uniques: false}\n")
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/nou"}"#).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.iPhone]).status == .ok)
            try await h.service.flushClicks()
            let answer = try #require(try await client.call(.get, "/api/links/\(code)/stats?by=platform", token: h.reader).json)
            #expect(answer["visits"]?.intValue == 1 && answer["uniques"] == .null && answer["rows"]?.arrayValue?.first?["uniques"] == .null, "\(answer)")
            #expect(try await client.call(.get, "/api/links/\(code)/stats?by=platform&format=csv", token: h.reader).text == "platform,visits\r\nios,1\r\n")
            var browser = DashboardTests.Browser(client: client)
            _ = try await browser.signIn(h.reader)
            let page = try await browser.get("/admin/links/\(code)")
            #expect(page.text.contains("<b>1</b> visits by people.</p>") && !page.text.contains("Visitors</th>"))
        }
    }

    /// Settings that record nothing are said at start.
    @Test func settingsThatRecordNoPlaceAreWarnedOf() throws {
        func warnings(_ visits: String) throws -> [String] {
            try ServiceConfiguration(document: JSONParser.parse(#"{"apple": [{"teamId": "ABCDE12345", "bundleId": "a.b"}], "hosts": ["example.com"], "routes": [], "visits": \#(visits)}"#)).servingWarnings
        }
        #expect(try warnings(#"{"geo": "city"}"#).contains { $0.hasPrefix("visits.geo: city records no place") })
        #expect(try warnings(#"{"geo": "off", "geoDatabase": "x.mmdb"}"#).contains { $0.hasPrefix("visits.geoDatabase:") })
        #expect(try warnings(#"{"record": false, "geoDatabase": "x.mmdb"}"#).contains { $0.hasPrefix("visits: nothing of the audience") })
        #expect(try warnings("{}").isEmpty)
    }
}

extension AudienceTests {
    /// The dashboard credits the geo database as its licence asks: DB-IP's Lite files by name.
    @Test(.enabled(if: geoReady, "libmaxmind-db-writer-perl is not installed"))
    func aDBIPDatabaseIsCredited() async throws {
        let spec = MMDBWriter.testNetworks().replacingOccurrences(of: #"{"ip_version": 6,"#, with: #"{"ip_version": 6, "type": "DBIP-City-Lite","#)
        var settings = VisitSettings()
        settings.geoDatabase = try MMDBWriter.write(spec)
        let audience = try VisitAudience(settings: settings, store: try await Backend.sqlite.freshStore(), logger: Logger(label: "test"))
        #expect(audience.placeSource == "Places: IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0.")
        settings.geo = .off
        #expect(try VisitAudience(settings: settings, store: try await Backend.sqlite.freshStore(), logger: Logger(label: "test")).placeSource == nil)
    }
}

extension AudienceTests {
    /// A rolled day whose records were partly deleted keeps its rollup even when the retention
    /// is raised afterwards (the deletion is remembered, not the setting); a code no link has
    /// (another node's late batch for a deleted link) is not rolled up.
    @Test(arguments: Backend.available)
    func aRollupIsNeverMadeAgainFromPartOfItsDay(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        let today: Int64 = 20_700
        let now = Date(timeIntervalSince1970: Double(today * 86_400 + 3600))
        try await store.insert(StoredLink(code: "keptkept", createdAt: Date(timeIntervalSince1970: 0)))
        var records: [Visit: Int64] = [:]
        for (v, n) in [Self.record("keptkept", day: today - 1, second: 3600, country: "JP", visitor: "a", count: 3),
                       Self.record("keptkept", day: today - 1, second: 79_200, country: "FR", visitor: "b", count: 2)] { records[v] = n }
        try await store.addClicks([:], visits: records)
        #expect(try await store.rollUpVisits(at: now, recordsKeptSince: Date(timeIntervalSince1970: 0)) == [today - 1])
        // Records deleted up to the middle of yesterday (a retention of about a day)…
        try await store.pruneVisits(before: Date(timeIntervalSince1970: Double((today - 1) * 86_400 + 43_200)))
        // …then the retention raised: yesterday is not made again from its evening alone.
        #expect(try await store.rollUpVisits(at: now, recordsKeptSince: Date(timeIntervalSince1970: 0)).isEmpty)
        let answer = try await store.breakdown(.country, .init(code: "keptkept", days: (today - 3)...today), limit: 10)
        #expect(answer.visits == 5 && answer.rows.map(\.value) == ["JP", "FR"], "\(answer)")
        // Records of a code no link has are not rolled up.
        let ghost = Self.record("ghost123", day: today - 1, country: "DE", visitor: "g")
        try await store.db.run("INSERT INTO visits (code, second, platform, bot, visits, country, visitor) VALUES (?, ?, 'ios', 0, 1, 'DE', 'g')",
                               [.text(ghost.0.code), .int(ghost.0.second)])
        try await store.rollUpVisits(at: now.addingTimeInterval(86_400), recordsKeptSince: Date(timeIntervalSince1970: 0))
        #expect(try await store.db.read("SELECT COUNT(*) FROM visit_rollups WHERE code = 'ghost123'", []).first?.first?.int == 0)
    }

    @Test func placesFromADatabaseAreCodesAsKept() {
        #expect(VisitSettings.countryCode("gb") == "GB")
        for none in ["EU", "ZZ", "XX", "AP", "GBR", "G1", "", "\u{202E}G"] { #expect(VisitSettings.countryCode(none) == nil, "\(none)") }
        #expect(VisitText.region("ENG", country: "GB") == "GB-ENG")
        #expect(VisitText.region("GB-ENG", country: "GB") == "GB-ENG", "a code that names its country keeps it once")
        #expect(VisitText.region("ca", country: "US") == "US-CA")
        #expect(VisitText.region("ENG", country: nil) == nil && VisitText.region("=X", country: "GB") == nil && VisitText.region("ABCD", country: "GB") == nil)
        #expect(VisitText.cleaned("abc\u{200B}d\u{FEFF}e\u{2060}") == "abcde")
    }
}
