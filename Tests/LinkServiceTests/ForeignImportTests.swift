import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkConfiguration
import LinkImport
import LinkRequests
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// `switchyard import shlink|kutt|yourls`: each product's export as its documentation and code
/// write it, read into imported links served at their old paths, checked as the API checks a
/// link, and never overwriting a stored one.
@Suite struct ForeignImportTests {
    /// The example configuration with the hosts the files' links point to allowed.
    static func importer(extra: String = "") throws -> LinkImport {
        let base = try String(contentsOfFile: CLITestsPaths.exampleConfig, encoding: .utf8)
        let text = base.replacingOccurrences(of: "  publicURL: https://rabble.community\n", with: "  publicURL: https://rabble.community\n  redirectHosts: [blog.example.org, shop.example.com]\n") + extra
        let path = Backend.temporaryPath("foreign") + "/config.yaml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return LinkImport(configuration: try ServiceConfiguration(contentsOf: path))
    }

    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }

    @Test func shlinksWebClientCSVBothGenerations() throws {
        // The current client: every value quoted, tags joined with |, a domain and shortCode column.
        let current = """
        "createdAt","domain","shortCode","shortUrl","longUrl","title","tags","visits"
        "2023-04-05T11:15:00+02:00","s.example.net","cafe","https://s.example.net/cafe","https://blog.example.org/caf%C3%A9","Café guide, part 1","Food|Travel Tips",42
        "2024-01-02T23:59:59-05:00","s.example.net","q1","https://s.example.net/q1","https://evil.example/x","","",0
        "2024-02-29T12:00:00+01:00","s.example.net","a/b","https://s.example.net/a/b","https://blog.example.org/deep","","",3
        """
        let export = try ForeignFormat.shlinkCSV.read(current)
        #expect(export.rows == 3 && export.links.count == 3 && export.problems.isEmpty)
        #expect(export.links[0] == {
            var l = ForeignLink(line: 2, code: "cafe", target: "https://blog.example.org/caf%C3%A9")
            l.title = "Café guide, part 1"; l.tags = ["Food", "Travel Tips"]; l.createdAt = Self.date("2023-04-05T09:15:00Z"); l.clicks = 42; l.host = "s.example.net"
            return l
        }())
        let plan = try Self.importer().foreign(export, format: .shlinkCSV, domain: nil, now: Date())
        #expect(plan.links.map(\.code) == ["cafe"] && plan.links[0].kind == .imported && plan.links[0].tags == ["food", "travel-tips"])
        #expect(plan.links[0].webURL == "https://blog.example.org/caf%C3%A9" && plan.links[0].deepLink == nil && plan.links[0].clicks == 42)
        #expect(plan.existing == .keep)
        #expect(plan.problems.map(\.description) == [
            "line 3: q1: longUrl: host evil.example is not in the configuration's hosts or service.redirectHosts",
            #"line 4: code "a/b" is not 1–64 ASCII letters, digits, "-" and "_"; Switchyard cannot serve it at its old path"#,
        ])
        #expect(plan.notes.contains { $0.hasPrefix("1 link was on s.example.net, which no domain of the configuration serves") }, "\(plan.notes)")
        #expect(plan.notes.contains("the tags of 1 link were written as Switchyard's tags are: lowercase, other characters as -, at most 20 of 50 characters"))

        // The earlier client: no domain or shortCode (the code is shortUrl's path), tags joined with ,.
        let earlier = "createdAt,shortUrl,longUrl,title,tags,visits\r\n2022-01-01T00:00:00+00:00,https://s.example.net/old,https://shop.example.com/p,Old,\"a,b\",5\r\n"
        let old = try ForeignFormat.shlinkCSV.read(earlier)
        #expect(old.links.map(\.code) == ["old"] && old.links[0].tags == ["a", "b"] && old.links[0].host == "s.example.net")
        // Not Shlink's export: said, with the header it has.
        #expect(throws: LinkImport.Failure.self) { try ForeignFormat.shlinkCSV.read("code,url\nx,https://a.example\n") }
    }

    @Test func shlinksAPIAnswerKeepsExpiryUseLimitAndVisits() throws {
        let page = """
        {"shortUrls": {"data": [
          {"shortCode": "cafe", "shortUrl": "https://s.example.net/cafe", "longUrl": "https://blog.example.org/cafe", "dateCreated": "2023-04-05T11:15:00+02:00",
           "tags": ["food"], "meta": {"validSince": "2023-04-06T00:00:00+00:00", "validUntil": "2030-12-31T23:59:59+01:00", "maxVisits": 500},
           "domain": null, "title": null, "visitsSummary": {"total": 42, "nonBots": 40, "bots": 2}},
          {"shortCode": "v3", "longUrl": "https://blog.example.org/v3", "dateCreated": "2021-01-01T00:00:00+00:00", "tags": [], "meta": {}, "visitsCount": 7},
          {"longUrl": "https://blog.example.org/none"}
        ], "pagination": {"currentPage": 1, "pagesCount": 1, "itemsPerPage": -1, "itemsInCurrentPage": 3, "totalItems": 3}}}
        """
        let export = try ForeignFormat.shlinkJSON.read(page)
        #expect(export.links.map(\.code) == ["cafe", "v3"] && export.links.map(\.clicks) == [42, 7])
        #expect(export.links[0].expiresAt == Self.date("2030-12-31T22:59:59Z") && export.links[0].maxUses == 500)
        #expect(export.problems.map(\.description) == ["line 3: no shortCode"])
        #expect(export.notes == ["1 link has a validSince: Switchyard links work from their creation, so they work at once"])
        let plan = try Self.importer().foreign(export, format: .shlinkJSON, domain: nil, now: Date())
        #expect(plan.linesAreItems && plan.links.map(\.maxUses) == [500, nil])
        // One page of several is read, and said to be one.
        let partial = try ForeignFormat.shlinkJSON.read(page.replacingOccurrences(of: #""pagesCount": 1"#, with: #""pagesCount": 4"#))
        #expect(partial.links.count == 2 && partial.notes.contains("this file is page 1 of 4: import every page's file (or ask the API for every link on one page, itemsPerPage=-1)"), "\(partial.notes)")
    }

    @Test func kuttsAPIAnswerLeavesOutBannedAndProtectedLinks() throws {
        let answer = """
        {"total": 3, "limit": 50, "skip": 0, "data": [
          {"id": "0b6f3c1e-6f1d-4a57-9b0e-2f4f2d6a9c11", "address": "cafe", "banned": false, "created_at": "2023-04-05T09:15:00.000Z",
           "updated_at": "2023-04-05T09:15:00.000Z", "password": false, "description": "Café", "expire_in": "2031-01-01 00:00:00",
           "target": "https://blog.example.org/cafe", "visit_count": 42, "domain": null, "link": "https://kutt.example/cafe"},
          {"address": "secret", "banned": false, "password": true, "target": "https://blog.example.org/s", "visit_count": 1},
          {"address": "spam", "banned": true, "password": false, "target": "https://blog.example.org/x", "visit_count": 0}
        ]}
        """
        let export = try ForeignFormat.kuttJSON.read(answer)
        #expect(export.links.map(\.code) == ["cafe"] && export.links[0].title == "Café" && export.links[0].clicks == 42)
        #expect(export.links[0].expiresAt == Self.date("2031-01-01T00:00:00Z"))
        #expect(export.problems.map(\.message) == [
            "secret: protected by a password in Kutt, which its export does not carry; not imported, so that it is not opened to everyone",
            "spam: banned in Kutt; not imported",
        ])
        let page = try ForeignFormat.kuttJSON.read(answer.replacingOccurrences(of: #""total": 3"#, with: #""total": 120"#))
        #expect(page.links.count == 1 && page.notes == ["this file holds links 1–3 of 120 (Kutt answers at most 50 at a time): import every page's file (skip=0, 50, 100, …)"], "\(page.notes)")
    }

    /// Bitly's `GET /v4/groups/{guid}/bitlinks`: the code after the domain in `id`, `+0000`
    /// offsets, custom back-halves as links of their own, deleted Bitlinks left out, no clicks.
    @Test func bitlysAPIAnswerKeepsEveryBackHalf() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples/migrating/bitly-bitlinks.json")
        let example = try ForeignFormat.bitlyJSON.read(String(contentsOf: file, encoding: .utf8))
        #expect(example.problems.isEmpty, "\(example.problems)")
        #expect(example.links.map(\.code) == ["3xYz9Ab", "rabble-rave", "4aBcDeF"] && example.links.map(\.host) == ["bit.ly", "bit.ly", "bit.ly"])
        #expect(example.links[1].target == "https://blog.rabble.community/spring-rave" && example.links[1].tags == ["events", "spring"])
        #expect(example.links[0].createdAt == Self.date("2025-03-05T14:02:11Z") && example.links[2].expiresAt == Self.date("2027-01-28T14:30:00Z"))
        #expect(example.links.allSatisfy { $0.clicks == nil })
        #expect(example.notes.contains("1 Bitlink was archived in Bitly (hidden from its lists): imported, and served as the others"), "\(example.notes)")
        let odd = """
        {"links": [
          {"id": "go.example.com/x1", "long_url": "https://blog.example.org/x1", "is_deleted": true},
          {"id": "nodomain", "long_url": "https://blog.example.org/n"},
          {"id": "bit.ly/e1", "long_url": "https://blog.example.org/e1", "expiration_at": "someday"},
          {"id": "go.example.com/ok1", "long_url": "https://blog.example.org/ok", "custom_bitlinks": ["go.example.com/ok1", "https://go.example.com/other"]}
        ], "pagination": {"next": "https://api-ssl.bitly.com/v4/groups/G/bitlinks?search_after=A", "search_after": "A", "size": 4}}
        """
        let read = try ForeignFormat.bitlyJSON.read(odd)
        #expect(read.problems.map(\.message) == [
            "x1: deleted in Bitly; not imported", "no id of the form domain/back-half",
            #"e1: expiration_at "someday" is not a time (ISO 8601, or YYYY-MM-DD HH:MM:SS) (a link whose expiry cannot be read is not imported: it might be live where it ended)"#,
        ], "\(read.problems)")
        // The back-half the Bitlink already is is not made twice.
        #expect(read.links.map(\.code) == ["ok1", "other"] && read.links.map(\.host) == ["go.example.com", "go.example.com"])
        #expect(read.notes.first == "this file is one page of the group's Bitlinks (pagination.next is set): import every page's file (size=100, following next)")
        #expect(throws: LinkImport.Failure.self) { try ForeignFormat.bitlyJSON.read(#"{"data": []}"#) }
        #expect(ForeignFormat.detect(product: "bitly", text: "Bitlink,Long URL\n") == nil && ForeignFormat.detect(product: "bitly", text: "{") == .bitlyJSON)
    }

    /// Short.io's `GET /api/links`: times as ISO 8601 or milliseconds, `clicksLimit` as the use
    /// limit, the root link and links with a password left out, no clicks.
    @Test func shortiosAPIAnswerReadsBothKindsOfTime() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Examples/migrating/shortio-links.json")
        let example = try ForeignFormat.shortioJSON.read(String(contentsOf: file, encoding: .utf8))
        #expect(example.links.map(\.code) == ["summer-sale", "guide"] && example.links.map(\.host) == ["go.rabble.community", "go.rabble.community"])
        #expect(example.links[0].maxUses == 1000 && example.links[0].tags == ["shop"] && example.links[0].expiresAt == Self.date("2026-12-31T23:59:59Z"))
        #expect(example.links[1].createdAt == Date(timeIntervalSince1970: 1_741_183_331) && example.links[1].maxUses == nil)
        #expect(example.problems.map(\.message) == ["board: protected by a password in Short.io, which its export does not carry; not imported, so that it is not opened to everyone"])
        let odd = """
        {"count": 3, "links": [
          {"path": "", "originalURL": "https://blog.example.org/"},
          {"path": "t1", "originalURL": "https://blog.example.org/t1", "expiresAt": true},
          {"path": "t2", "originalURL": "https://blog.example.org/t2", "createdAt": "yesterday", "password": "hunter2"},
          {"path": "t3", "originalURL": "https://blog.example.org/t3", "createdAt": "never"}
        ], "nextPageToken": "abc"}
        """
        let read = try ForeignFormat.shortioJSON.read(odd)
        #expect(read.problems.map(\.message) == [
            "the domain's root link (no path): Switchyard serves its own root; not imported",
            "t1: expiresAt true is not a time (ISO 8601, or milliseconds since 1970) (a link whose expiry cannot be read is not imported: it might be live where it ended)",
            "t2: protected by a password in Short.io, which its export does not carry; not imported, so that it is not opened to everyone",
        ], "\(read.problems)")
        #expect(read.links.map(\.code) == ["t3"] && read.links[0].createdAt == nil)
        #expect(read.notes.contains("1 creation time could not be read (such as 0000-00-00 00:00:00): its link is dated when imported"), "\(read.notes)")
        #expect(read.notes.first == "this file is one page of the domain's links (nextPageToken is set): import every page's file (pageToken=…)")
    }

    @Test func yourlsCSVAndADumpWithEveryEscape() throws {
        let plugin = "source,target,hits\r\n/cafe/,https://blog.example.org/cafe,42\r\n/q1/,\"https://blog.example.org/s?q=a,b\",0\r\n"
        let csv = try ForeignFormat.yourlsCSV.read(plugin)
        #expect(csv.links.map(\.code) == ["cafe", "q1"] && csv.links.map(\.target) == ["https://blog.example.org/cafe", "https://blog.example.org/s?q=a,b"])
        #expect(csv.links.map(\.clicks) == [42, 0])

        let dump = """
        -- MySQL dump 10.13
        /*!40103 SET TIME_ZONE='+00:00' */;
        DROP TABLE IF EXISTS `yourls_url`;
        CREATE TABLE `yourls_url` (
          `keyword` varchar(100) COLLATE utf8mb4_bin NOT NULL DEFAULT '',
          `url` text COLLATE utf8mb4_bin NOT NULL,
          `title` text COLLATE utf8mb4_unicode_ci,
          `timestamp` timestamp NOT NULL DEFAULT current_timestamp(),
          `ip` varchar(41) COLLATE utf8mb4_bin NOT NULL,
          `clicks` int(10) unsigned NOT NULL,
          PRIMARY KEY (`keyword`)
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
        LOCK TABLES `yourls_url` WRITE;
        INSERT INTO `yourls_url` VALUES ('cafe','https://blog.example.org/cafe','Caf\\xC3 it\\'s \\"quoted\\", a \\\\ and;\\nline two','2023-04-05 09:15:00','127.0.0.1',42),('nt','https://blog.example.org/nt',NULL,'2024-02-29 11:00:00','::1',3),
        ('dq','https://blog.example.org/dq','It''s doubled','2024-03-01 00:00:00','10.0.0.1',0);
        INSERT INTO `yourls_options` VALUES (1,'version','1.9.2','yes');
        UNLOCK TABLES;
        """
        let export = try ForeignFormat.yourlsSQL.read(dump)
        #expect(export.problems.isEmpty && export.notes.isEmpty, "\(export.problems) \(export.notes)")
        #expect(export.links.map(\.code) == ["cafe", "nt", "dq"])
        #expect(export.links[0].title == "CafxC3 it's \"quoted\", a \\ and;\nline two")
        #expect(export.links[1].title == nil && export.links[2].title == "It's doubled")
        #expect(export.links.map(\.line) == [14, 14, 15] && export.links[0].createdAt == Self.date("2023-04-05T09:15:00Z"))
        // A column list, in another order, wins over the table's; a dump without the table is said.
        let listed = try ForeignFormat.yourlsSQL.read("INSERT INTO yourls_url (`url`, `keyword`, `clicks`) VALUES ('https://blog.example.org/a','a1',5);")
        #expect(listed.links.map(\.code) == ["a1"] && listed.links[0].clicks == 5 && listed.notes.count == 1)
        #expect(throws: LinkImport.Failure.self) { try ForeignFormat.yourlsSQL.read("INSERT INTO `wp_posts` VALUES (1);") }
        #expect(throws: LinkImport.Failure.self) { try ForeignFormat.yourlsSQL.read("INSERT INTO `yourls_url` VALUES ('cut") }
        #expect(ForeignFormat.detect(product: "yourls", text: dump) == .yourlsSQL && ForeignFormat.detect(product: "yourls", text: plugin) == .yourlsCSV)
        #expect(ForeignFormat.detect(product: "shlink", text: " \n{\"shortUrls\"") == .shlinkJSON && ForeignFormat.detect(product: "kutt", text: "a,b") == nil)
    }

    /// What an export says of a link beyond its code and target is kept when it can be, cleaned
    /// or left out when it cannot — the link is imported either way; counts past any real one
    /// (a red-team file's Int64.max, which overflowed the database) are not kept.
    @Test func metadataThatCannotBeKeptAsWrittenNeverCostsTheLink() throws {
        let csv = "keyword,url,title,timestamp,ip,clicks\n"
            + "k1,https://blog.example.org/1,\"Line one\nline\ttwo \u{202E}txt\",0000-00-00 00:00:00,::1,\"1,234\"\n"
            + "k2,https://blog.example.org/2,\(String(repeating: "t", count: 400)),2025-03-01,::1,9223372036854775807\n"
            + "k3,https://blog.example.org/3,,2099-01-01 00:00:00,::1,-5\n"
        let export = try ForeignFormat.yourlsCSV.read(csv)
        #expect(export.links.map(\.clicks) == [1234, nil, nil] && export.links.map(\.createdAt) == [nil, Self.date("2025-03-01T00:00:00Z"), Self.date("2099-01-01T00:00:00Z")])
        #expect(export.notes.contains("2 click counts could not be read (not a whole number from 0 to 999999999999999): those links start at 0"), "\(export.notes)")
        #expect(export.notes.contains("1 creation time could not be read (such as 0000-00-00 00:00:00): its link is dated when imported"), "\(export.notes)")
        let now = Date()
        var shlink = try ForeignFormat.shlinkJSON.read(##"[{"shortCode": "t1", "longUrl": "https://blog.example.org/t", "dateCreated": "2024-05-01T00:00:00Z", "tags": ["A", "b", "日本語", "#x", "Événements"], "meta": {"validUntil": "2020-01-01T00:00:00Z"}}]"##)
        shlink.links[0].tags += (0..<30).map { "t\($0)" }
        let plan = try Self.importer().foreign(export, format: .yourlsCSV, domain: nil, now: now)
        #expect(plan.links.map(\.code) == ["k1", "k2", "k3"] && plan.problems.isEmpty, "\(plan.problems)")
        #expect(plan.links[0].title == "Line one line two txt" && plan.links[1].title?.count == 300 && plan.links[1].title?.hasSuffix("…") == true)
        #expect(plan.links[2].createdAt == now && plan.links.map(\.clicks) == [1234, 0, 0])
        #expect(plan.notes.contains("1 creation time was in the future: dated when imported"), "\(plan.notes)")
        let tagged = try Self.importer().foreign(shlink, format: .shlinkJSON, domain: nil, now: now)
        #expect(tagged.links[0].tags.prefix(4) == ["a", "b", "x", "evenements"] && tagged.links[0].tags.count == 20, "\(tagged.links[0].tags)")
        #expect(tagged.links[0].expiresAt == tagged.links[0].createdAt, "expired before it was made: expired at creation")
        #expect(tagged.notes.contains("1 link lost tags with no letter or digit Switchyard's tags take (a-z, 0-9), or past the first 20"), "\(tagged.notes)")
        // A file that is not CSV as these products write it is said, not half read.
        do { _ = try ForeignFormat.yourlsCSV.read("keyword;url;clicks\nk;https://blog.example.org/;1\n"); Issue.record("a semicolon file was read") } catch {
            #expect(error.message == "line 1: the header's names are separated by ; — export the file with commas (comma-separated values)")
        }
        do { _ = try ForeignFormat.yourlsSQL.read("INSERT INTO `yourls_url` VALUES ('a','https://blog.example.org/a',NULL,'2024-01-01 00:00:00','::1',1)"); Issue.record("a cut dump was read") } catch {
            #expect(error.message == "line 1: the dump ends inside this INSERT (no closing ;): it was cut short; dump the table again")
        }
        #expect(ForeignFormat.detect(product: "yourls", text: "REPLACE INTO `yourls_url` VALUES ('a','b',NULL,'x','y',1);") == .yourlsSQL)
        #expect(try ForeignFormat.yourlsSQL.read("REPLACE INTO `yourls_url` VALUES ('a','https://blog.example.org/a',NULL,'2024-01-01 00:00:00','::1',1);").links.map(\.code) == ["a"])
    }

    /// A count SQLite turned into a real (an integer sum past Int64) reads as the largest count,
    /// never a trap: once, one such link stopped the service at every start.
    @Test func aCountPastWhatSQLiteHoldsIsReadNotATrap() async throws {
        let store = try await Backend.sqlite.freshStore()
        var link = StoredLink(code: "big1", createdAt: Date())
        link.deepLink = "plur://group/x"
        link.clicks = .max
        try await store.insert(link)
        _ = try await store.db.run("UPDATE links SET clicks = clicks + 1 WHERE code = ?", [.text("big1")])
        #expect(try await store.link(code: "big1")?.clicks == .max)
    }

    /// Stored links are never overwritten: the same link again is unchanged, a different one
    /// with the code a clash, reported; a dry run reads the clashes without writing.
    @Test(arguments: Backend.available)
    func aClashIsReportedAndNothingStoredIsOverwritten(_ backend: Backend) async throws {
        let store = try await backend.freshStore()
        let importer = try Self.importer()
        let first = importer.foreign(try ForeignFormat.yourlsCSV.read("source,target,hits\n/cafe/,https://blog.example.org/cafe,42\n"), format: .yourlsCSV, domain: nil, now: Date())
        #expect(try await store.importLinks(first.links, existing: first.existing) == [.created])
        #expect(try await store.importLinks(first.links, existing: first.existing) == [.unchanged])
        let other = importer.foreign(try ForeignFormat.yourlsCSV.read("source,target,hits\n/cafe/,https://blog.example.org/elsewhere,1\n/new1/,https://blog.example.org/n,0\n"),
                                     format: .yourlsCSV, domain: nil, now: Date())
        #expect(try await store.importOutcomes(other.links) == [.conflict, .created])
        #expect(try await store.link(code: "new1") == nil)
        let outcomes = try await store.importLinks(other.links, existing: other.existing)
        #expect(outcomes == [.conflict, .created])
        #expect(try await store.link(code: "cafe")?.webURL == "https://blog.example.org/cafe")
        let report = LinkImport.Report(source: "y.csv", plan: other, dryRun: false, outcomes: outcomes)
        #expect(report.problems.map(\.message) == ["code cafe is taken by a stored link that differs; not imported (nothing stored is overwritten)"])
    }

    /// An imported link whose target no app opens sends people on (302, counted); one whose
    /// target the app's route table routes gets the landing page with "Open in the app".
    @Test func importedLinksAreServedAtTheirOldPaths() async throws {
        let h = try await Harness.make(extra: "service:\n  publicURL: https://rabble.community\n  redirectHosts: [blog.example.org]\n")
        let importer = LinkImport(configuration: h.service.configuration)
        let csv = "source,target,hits\n/blog1/,https://blog.example.org/post,4\n/group1/,https://rabble.community/g/ravers,0\n/about1/,https://rabble.community/about,0\n/frag1/,https://blog.example.org/p?id=1#top,0\n"
        let plan = importer.foreign(try ForeignFormat.yourlsCSV.read(csv), format: .yourlsCSV, domain: nil, now: Date())
        #expect(plan.problems.isEmpty, "\(plan.problems)")
        #expect(plan.links.map(\.deepLink) == [nil, "https://rabble.community/g/ravers", "https://rabble.community/about", nil])
        _ = try await h.store.importLinks(plan.links, existing: plan.existing)
        // Through export csv and import csv, tags and all, into another database.
        var tagged = try #require(try await h.store.link(code: "blog1"))
        tagged.tags = ["blog", "old"]
        _ = try await h.store.update(tagged)
        let (exported, _, _) = try await LinkImport.export(from: h.store)
        let again = try importer.ownLinks(exported, now: Date())
        #expect(again.problems.isEmpty && again.links.count == 4, "\(again.problems)")
        #expect(again.links.first { $0.code == "blog1" }?.tags == ["blog", "old"] && again.links.allSatisfy { $0.kind == .imported })
        try await h.app().test(.router) { client in
            let web = try await client.call(.get, "/blog1", headers: [.userAgent: LandingPageTests.desktop])
            #expect(web.status == .found && web.headers[.location] == "https://blog.example.org/post", "\(web.status) \(web.text)")
            let app = try await client.call(.get, "/group1", headers: [.userAgent: LandingPageTests.iPhone])
            #expect(app.status == .ok && app.text.contains(#"id="open-app""#), "\(app.text)")
            let read = try await client.call(.get, "/api/links/blog1", token: h.reader)
            #expect(read.json?["kind"]?.stringValue == "imported" && read.json?["url"]?.stringValue == "https://rabble.community/blog1", "\(read.text)")
            // The visited URL's query is handed on, as the shorteners did (before any fragment).
            let forwarded = try await client.call(.get, "/blog1?utm_source=mail&q=a%20b", headers: [.userAgent: LandingPageTests.desktop])
            #expect(forwarded.headers[.location] == "https://blog.example.org/post?utm_source=mail&q=a%20b", "\(forwarded.headers)")
            let fragment = try await client.call(.get, "/frag1?a=b", headers: [.userAgent: LandingPageTests.desktop])
            #expect(fragment.headers[.location] == "https://blog.example.org/p?id=1&a=b#top", "\(fragment.headers)")
            // A link of the service's own host that no route takes opens no app: sent on too.
            let own = try await client.call(.get, "/about1", headers: [.userAgent: LandingPageTests.iPhone])
            #expect(own.status == .found && own.headers[.location] == "https://rabble.community/about", "\(own.status) \(own.text)")
            // Edited as any link, its web page its only target.
            let edited = try await client.call(.patch, "/api/links/blog1", token: h.writer, body: #"{"title": "New", "tags": ["blog"]}"#)
            #expect(edited.status == .ok && edited.json?["title"]?.stringValue == "New", "\(edited.text)")
            let emptied = try await client.call(.patch, "/api/links/blog1", token: h.writer, body: #"{"webURL": null}"#)
            #expect(emptied.status == .badRequest && emptied.json?.at("error.code")?.stringValue == "missing-target", "\(emptied.text)")
            #expect(try await client.call(.get, "/i/nothing-here", headers: [.userAgent: LandingPageTests.desktop]).status == .notFound)
        }
    }
}

/// Paths of the repository the tests read.
enum CLITestsPaths {
    static let exampleConfig = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Sources/LinkService/Resources/example-config.yaml").standardized.path
}
