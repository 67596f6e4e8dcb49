import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing

/// `switchyard import fdl`, `import csv` and `export csv` through the built binary, on a
/// synthetic Firebase console export (no customer data): thousands of rows, a few that cannot be
/// used, columns we do not know; then the imported links served at their old paths.
@Suite struct ImportCLITests {
    static let validRows = 2_000

    /// A Firebase export: header with extra columns, `validRows` good rows and five bad ones.
    static func firebaseExport() -> (text: String, badLines: [Int]) {
        var text = "Short Dynamic Link,Link name,Long Dynamic Link,Clicks (30 days),Created,apn\r\n"
        for i in 0..<validRows {
            let query = "link=https://rabble.community/g/group\(i)&isi=1234567890&st=Group%20\(i)%2C%20%22quoted%22&sd=Line%20one"
            text += "https://rabble.community/s\(i),Group \(i),\"https://rabble.community/?\(query)\",\(i % 7),2024-05-01,community.rabble.plur\r\n"
        }
        let bad = [
            "https://rabble.community/evil,,https://rabble.community/?link=https://evil.example/phish,0,2024-01-01,",
            "https://rabble.community/other,,https://rabble.community/?link=https://rabble.community/g/x,0,2024-01-01,com.other.app",
            "https://rabble.community/a/b,,https://rabble.community/?link=https://rabble.community/g/x,0,2024-01-01,",
            "https://rabble.community/s1,dup,https://rabble.community/?link=https://rabble.community/g/x,0,2024-01-01,",
            ",no short link,https://rabble.community/?link=https://rabble.community/g/x,0,2024-01-01,",
        ]
        var badLines: [Int] = []
        for (i, row) in bad.enumerated() {
            text += row + "\r\n"
            badLines.append(validRows + 2 + i)
        }
        return (text, badLines)
    }

    @Test func aFirebaseExportIsImportedOnceWithEveryBadRowReportedAndServedAtItsPaths() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let (text, badLines) = Self.firebaseExport()
        let export = directory.appendingPathComponent("firebase-export.csv")
        try Data(text.utf8).write(to: export)

        let first = try await CLITests.run(["import", "fdl", export.path, "--database", database])
        #expect(first.status == 1, "a row was left out: \(first.stderr)")
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(lines.last == "\(Self.validRows + 5) rows: \(Self.validRows) created, 0 updated, 0 unchanged, 5 left out (sqlite, one transaction); a new database: \(database)", "\(first.stdout)")
        let reported = lines.filter { $0.hasPrefix(export.path + ":") }
        #expect(reported.count == 5)
        #expect(reported.compactMap { Int($0.dropFirst(export.path.count + 1).prefix { $0 != ":" }) } == badLines, "\(reported)")
        #expect(reported[0].hasSuffix("link: host evil.example is not in the configuration's hosts or service.redirectHosts"))
        #expect(reported[1].hasSuffix(#"apn: "com.other.app" is not an Android package of this configuration"#))
        #expect(reported[3].hasSuffix("shortLink path /s1 is on line 3 already"))
        #expect(reported[4].hasSuffix("shortLink is empty"))
        #expect(lines.contains("ignored columns: Clicks (30 days), Created"))

        let again = try await CLITests.run(["import", "fdl", export.path, "--database", database, "--json"])
        #expect(again.status == 1)
        let report = try #require(try? JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any], "\(again.stdout)")
        #expect(report["created"] as? Int == 0 && report["updated"] as? Int == 0 && report["unchanged"] as? Int == Self.validRows, "idempotent: \(again.stdout)")
        #expect((report["problems"] as? [[String: Any]])?.count == 5)
        #expect(report["newDatabase"] is NSNull, "the database was there: \(again.stdout)")

        // Our own CSV round-trips: export, import into an empty database, export again.
        let exported = directory.appendingPathComponent("links.csv")
        let out = try await CLITests.run(["export", "csv", "-o", exported.path, "--database", database])
        #expect(out.status == 0 && out.stderr.contains("wrote \(exported.path): \(Self.validRows) links"), "\(out.stderr)")
        let copy = "sqlite:" + directory.appendingPathComponent("copy.sqlite").path
        let restored = try await CLITests.run(["import", "csv", exported.path, "--database", copy])
        #expect(restored.status == 0, "\(restored.stdout)\(restored.stderr)")
        #expect(restored.stdout.hasSuffix("\(Self.validRows) rows: \(Self.validRows) created, 0 updated, 0 unchanged, 0 left out (sqlite, one transaction); a new database: \(copy)\n"), "\(restored.stdout)")
        // SQLite takes "~" as a directory's name, and the summary says the file it made.
        let tilde = try await CLITests.run(["/bin/sh", "-c", "cd \"$1\" && exec \"$0\" import csv \"$2\" --database 'sqlite:~/t.sqlite'",
                                            CLITests.binary.path, directory.path, exported.path], shell: true)
        #expect(tilde.status == 0 && tilde.stdout.hasSuffix("; a new database: sqlite:\(directory.path)/~/t.sqlite\n"), "\(tilde.stdout)\(tilde.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.path + "/~/t.sqlite"))
        let second = try await CLITests.run(["export", "csv", "--database", copy])
        #expect(second.stdout == (try String(contentsOf: exported, encoding: .utf8)), "the round trip keeps every field")
        #expect(try await CLITests.run(["import", "csv", exported.path, "--database", copy]).stdout.contains("0 created, 0 updated, \(Self.validRows) unchanged"))

        // The old paths answer.
        let pages = try await blocking { () throws -> [HTTP.Answer] in
            let run = try CLITests.withService(CLITests.binary, ["serve", "--port", "0", "--database", database]) { service in
                [HTTP.send("GET", service + "/s42"), HTTP.send("GET", service + "/i/s42"), HTTP.send("GET", service + "/evil")]
            }
            return try #require(run.result, "\(run.log)")
        }
        #expect(pages.map(\.status) == [200, 200, 404])
        #expect(pages[0].body.contains(#"<meta property="og:title" content="Group 42, &quot;quoted&quot;">"#), "\(pages[0].body.prefix(600))")
    }

    /// With several domains, a row's `domain` puts the link on that domain, and `export csv
    /// --domain` writes one domain's links only.
    @Test func linksGoBackToTheirDomainAndExportOneDomain() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let config = CLITests.root.appendingPathComponent("Examples/domains-config.yaml").path
        let header = "code,kind,deepLink,route,parameters,webURL,appStoreURL,playStoreURL,title,description,image,expiresAt,maxUses,createdAt,clicks,updatedAt,utm,tags,domain"
        let made = directory.appendingPathComponent("made.csv")
        try Data((header + "\npromo1,link,plur://group/p,,,,,,Plur promo,,,,,,,,,,\npromo1,link,shop://product/p,,,,,,Shop promo,,,,,,,,,,shop\n").utf8).write(to: made)
        let imported = try await CLITests.run(["import", "csv", made.path, "--config", config, "--database", database])
        #expect(imported.status == 0 && imported.stdout.contains("2 created"), "\(imported.stdout)\(imported.stderr)")
        let shop = try await CLITests.run(["export", "csv", "--domain", "shop", "--config", config, "--database", database])
        #expect(shop.status == 0 && shop.stdout.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 2 && shop.stdout.contains("Shop promo,") && !shop.stdout.contains("Plur promo"), "\(shop.stdout)\(shop.stderr)")
        let plur = try await CLITests.run(["export", "csv", "--domain", "plur", "--config", config, "--database", database])
        #expect(plur.stdout.contains("Plur promo,") && !plur.stdout.contains("Shop promo"), "\(plur.stdout)")
        let nowhere = try await CLITests.run(["export", "csv", "--domain", "nope", "--config", config, "--database", database])
        #expect(nowhere.status == 2 && nowhere.stderr.contains("no domain of the configuration is named so (domains: plur, shop)"), "\(nowhere.stderr)")
    }

    /// A link's campaign and tags go through export and import; a file from before they were
    /// exported (no `utm`, no `tags` column) leaves an existing link's as they are.
    @Test func campaignsAndTagsRoundTripAndAnOlderExportLeavesThem() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let header = "code,kind,deepLink,route,parameters,webURL,appStoreURL,playStoreURL,title,description,image,expiresAt,maxUses,createdAt,clicks,updatedAt"
        let made = directory.appendingPathComponent("made.csv")
        try Data((header + ",utm,tags\n" + #"spring01,link,plur://group/s,,,,,,Spring,,,,,2026-01-02T03:04:05Z,7,,"{""source"":""news"",""campaign"":""a,b""}",spring email_2026"# + "\n").utf8).write(to: made)
        let first = try await CLITests.run(["import", "csv", made.path, "--database", database])
        #expect(first.status == 0 && first.stdout.contains("1 created"), "\(first.stdout)\(first.stderr)")
        let exported = try await CLITests.run(["export", "csv", "--database", database])
        #expect(exported.stdout.hasPrefix(header + ",utm,tags,expiredURL,domain\r\n"), "\(exported.stdout)")
        #expect(exported.stdout.contains(#","{""source"":""news"",""campaign"":""a,b""}",spring email_2026"#), "\(exported.stdout)")
        // Into another database and out again: the same file.
        let file = directory.appendingPathComponent("links.csv")
        try Data(exported.stdout.utf8).write(to: file)
        let copy = "sqlite:" + directory.appendingPathComponent("copy.sqlite").path
        #expect(try await CLITests.run(["import", "csv", file.path, "--database", copy]).status == 0)
        #expect(try await CLITests.run(["export", "csv", "--database", copy]).stdout == exported.stdout)
        // An older export with a new title: the title changes, the campaign and tags stay.
        let older = directory.appendingPathComponent("older.csv")
        try Data((header + "\nspring01,link,plur://group/s,,,,,,Spring again,,,,,2026-01-02T03:04:05Z,7,\n").utf8).write(to: older)
        let update = try await CLITests.run(["import", "csv", older.path, "--database", database])
        #expect(update.status == 0 && update.stdout.contains("1 updated"), "\(update.stdout)\(update.stderr)")
        let after = try await CLITests.run(["export", "csv", "--database", database]).stdout
        #expect(after.contains("Spring again") && after.contains(#""{""source"":""news"",""campaign"":""a,b""}",spring email_2026"#), "\(after)")
        // A bad campaign or tag in a row is that row's problem, with its line.
        let bad = directory.appendingPathComponent("bad.csv")
        try Data((header + ",utm,tags\nbad00001,link,plur://g/1,,,,,,,,,,,,,,\"{\"\"channel\"\":\"\"x\"\"}\",\nbad00002,link,plur://g/2,,,,,,,,,,,,,,,Spring\n").utf8).write(to: bad)
        let refused = try await CLITests.run(["import", "csv", bad.path, "--database", database])
        let said = refused.stdout + refused.stderr
        #expect(refused.status == 1 && said.contains("bad.csv:2: unknown field \"channel\"") && said.contains("bad.csv:3: tag 'Spring' is not"), "\(said)")
    }

    /// An export's file name, columns and values are the sender's text: the report prints their
    /// control and invisible format characters escaped, never raw.
    @Test func theReportNeverPrintsTheFilesTextRaw() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let file = directory.appendingPathComponent("x\u{1B}]0;pwn\u{7}.csv")
        try Data("Short Dynamic Link,Link name,Long Dynamic Link,\u{1B}[31mEvilCol\u{7}\nhttps://plur\u{202E}.page.link/abc,,https://rabble.community/g/x,1\n".utf8).write(to: file)
        let r = try await CLITests.run(["import", "fdl", file.path, "--dry-run", "--database", "sqlite:" + directory.appendingPathComponent("db.sqlite").path])
        #expect(r.stdout.contains("ignored columns: \\u{1B}[31mEvilCol\\u{7}"), "\(r.stdout)")
        #expect(r.stdout.contains(#"shortLink "https://plur\u202e.page.link/abc""#), "\(r.stdout)")  // a JSON-quoted value: JSON's escape
        #expect(!TerminalSafetyCLITests.hasUnsafe(r.stdout + r.stderr), "\(r.stdout.debugDescription) \(r.stderr.debugDescription)")
    }

    @Test func filesThatAreNotAnExportAreRefusedWithTheirLine() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        func attempt(_ text: String, _ command: String = "fdl") async throws -> CLITests.Run {
            let file = directory.appendingPathComponent("in-\(UUID().uuidString).csv")
            try Data(text.utf8).write(to: file)
            return try await CLITests.run(["import", command, file.path, "--database", database])
        }
        let unclosed = try await attempt("shortLink,link\nhttps://rabble.community/a,\"https://rabble.community/x\n")
        #expect(unclosed.status == 2 && unclosed.stderr.contains("not CSV: line 2: a quoted field is not closed"), "\(unclosed.stderr)")
        let noShort = try await attempt("url,link\nx,y\n")
        #expect(noShort.status == 2 && noShort.stderr.contains("line 1: no shortLink column"), "\(noShort.stderr)")
        let noCode = try await attempt("name\nx\n", "csv")
        #expect(noCode.status == 2 && noCode.stderr.contains("no code column"), "\(noCode.stderr)")
        let latin1 = directory.appendingPathComponent("latin1.csv")
        try Data([0x73, 0x68, 0x6F, 0x72, 0x74, 0x4C, 0x69, 0x6E, 0x6B, 0x0A, 0xE9, 0x0A]).write(to: latin1)
        let notText = try await CLITests.run(["import", "fdl", latin1.path, "--database", database])
        #expect(notText.status == 2 && notText.stderr == "error: \(latin1.path): not UTF-8 text: line 2, byte 0xE9 is not UTF-8 here (save the export as UTF-8)\n", "\(notText.stderr)")
        let missing = try await CLITests.run(["import", "fdl", directory.appendingPathComponent("nope.csv").path, "--database", database])
        #expect(missing.status == 2 && missing.stderr.contains("nope.csv"), "\(missing.stderr)")
        let dry = try await attempt("shortLink,link\nhttps://rabble.community/ok1,https://rabble.community/g/1\n")
        #expect(dry.status == 0)
        let preview = try await attempt("shortLink,link\nhttps://rabble.community/ok2,https://rabble.community/g/2\n")
        #expect(preview.status == 0)
        let dryRun = try await CLITests.run(["import", "fdl", "--dry-run", "-", "--database", database],
                                                stdin: "shortLink,link\nhttps://rabble.community/ok3,https://rabble.community/g/3\n")
        #expect(dryRun.status == 0 && dryRun.stdout.contains("1 row: 1 would be imported, 0 left out (dry run: nothing stored)"), "\(dryRun.stdout)")
        let exported = try await CLITests.run(["export", "csv", "--database", database])
        #expect(exported.stdout.contains("ok1,fdl,") && exported.stdout.contains("ok2,fdl,") && !exported.stdout.contains("ok3"), "the dry run stored nothing")
    }
}

/// `switchyard import shlink|kutt|yourls` through the built binary: stdin, --dry-run reading
/// the clashes, --json, --domain, the exit statuses, and 100,000 rows of a YOURLS dump.
@Suite struct ForeignImportCLITests {
    static func config(_ directory: URL) throws -> String {
        let base = try String(contentsOf: CLITests.root.appendingPathComponent("Sources/LinkService/Resources/example-config.yaml"), encoding: .utf8)
        let path = directory.appendingPathComponent("config.yaml").path
        try base.replacingOccurrences(of: "  publicURL: https://rabble.community\n", with: "  publicURL: https://rabble.community\n  redirectHosts: [blog.example.org]\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func importsFromStdinReportClashesAndNeverOverwrite() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let config = try Self.config(directory)
        let shlink = "createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits\n"
            + "2023-04-05T11:15:00+02:00,s.example.net,cafe,https://s.example.net/cafe,https://blog.example.org/cafe,\"Café, guide\",food,42\n"
            + "2023-04-05T11:15:00+02:00,s.example.net,bad1,https://s.example.net/bad1,https://evil.example/x,,,0\n"
        let first = try await CLITests.run(["import", "shlink", "-", "--config", config, "--database", database], stdin: shlink)
        #expect(first.status == 1, "\(first.stdout)\(first.stderr)")
        #expect(first.stdout.contains("-:3: bad1: longUrl: host evil.example is not in the configuration's hosts or service.redirectHosts"), "\(first.stdout)")
        #expect(first.stdout.contains("2 rows: 1 created, 0 updated, 0 unchanged, 1 left out"), "\(first.stdout)")
        // Kutt's answer with the same code and another target: a dry run reads the clash, storing nothing.
        let kutt = #"{"total": 2, "limit": 50, "skip": 0, "data": [{"address": "cafe", "target": "https://blog.example.org/other", "visit_count": 1}, {"address": "k2", "target": "https://blog.example.org/k2", "visit_count": 0}]}"#
        let dry = try await CLITests.run(["import", "kutt", "-", "--config", config, "--database", database, "--dry-run", "--json"], stdin: kutt)
        #expect(dry.status == 1, "\(dry.stdout)\(dry.stderr)")
        let report = try JSONParser.parse(dry.stdout)
        #expect(report["valid"] == .int(1) && report["created"] == .int(1) && report["unchanged"] == .int(0), "\(dry.stdout)")
        #expect(report["problems"]?.arrayValue?.first?["item"] == .int(1), "\(dry.stdout)")
        #expect(report["problems"]?.arrayValue?.first?["message"]?.stringValue == "code cafe is taken by a stored link that differs; not imported (nothing stored is overwritten)")
        let stored = try await CLITests.run(["import", "kutt", "-", "--config", config, "--database", database], stdin: kutt)
        #expect(stored.status == 1 && stored.stdout.contains("1 created"), "\(stored.stdout)")
        let exported = try await CLITests.run(["export", "csv", "--database", database])
        #expect(exported.stdout.contains("cafe,imported,,,,https://blog.example.org/cafe,,,\"Café, guide\""), "\(exported.stdout)")
        #expect(exported.stdout.contains("k2,imported,"))
        // The same Shlink file again changes nothing; a file that is not such an export is exit 2.
        let again = try await CLITests.run(["import", "shlink", "-", "--config", config, "--database", database], stdin: shlink)
        #expect(again.stdout.contains("0 created, 0 updated, 1 unchanged, 1 left out"), "\(again.stdout)")
        let wrong = try await CLITests.run(["import", "kutt", "-", "--config", config, "--database", database], stdin: "a,b\n1,2\n")
        #expect(wrong.status == 2 && wrong.stderr == "error: -: not an export this command reads: it reads Kutt's API answer (GET /api/v2/links) saved as JSON\n", "\(wrong.stderr)")
        let domain = try await CLITests.run(["import", "yourls", "-", "--config", config, "--database", database, "--domain", "nope"], stdin: "source,target,hits\n")
        #expect(domain.status == 2 && domain.stderr.contains("no domain of the configuration is named so (domains: rabble.community)"), "\(domain.stderr)")
    }

    @Test func aYOURLSDumpOf100000LinksInOneExtendedInsert() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let config = try Self.config(directory)
        var dump = "/*!40103 SET TIME_ZONE='+00:00' */;\nINSERT INTO `yourls_url` VALUES "
        dump += (0..<100_000).map { "('k\($0)','https://blog.example.org/p?id=\($0)','It\\'s \($0)','2024-01-01 00:00:00','127.0.0.1',\($0 % 10))" }.joined(separator: ",")
        dump += ",('k/1','https://blog.example.org/x',NULL,'2024-01-01 00:00:00','::1',0);\n"
        let file = directory.appendingPathComponent("yourls.sql")
        try Data(dump.utf8).write(to: file)
        let run = try await CLITests.run(["import", "yourls", file.path, "--config", config, "--database", database])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.hasSuffix("100001 rows: 100000 created, 0 updated, 0 unchanged, 1 left out (sqlite, one transaction); a new database: \(database)\n"), "\(run.stdout.suffix(400))")
        #expect(run.stdout.contains(#":2: code "k/1" is not 1–64 ASCII letters"#), "\(run.stdout.prefix(400))")
    }

    /// Bitly's and Short.io's API answers through the binary, with the repository's example
    /// files: stored, served at their old paths (a Bitlink's custom back-half too), and a second
    /// run changes nothing; a CSV is refused saying what is read instead.
    @Test func bitlyAndShortioAnswersThroughTheBinary() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let config = CLITests.root.appendingPathComponent("Examples/migrating-config.yaml").path
        let bitly = CLITests.root.appendingPathComponent("Examples/migrating/bitly-bitlinks.json").path
        let shortio = CLITests.root.appendingPathComponent("Examples/migrating/shortio-links.json").path
        let first = try await CLITests.run(["import", "bitly", bitly, "--config", config, "--database", database, "--json"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let report = try JSONParser.parse(first.stdout)
        #expect(report["created"] == .int(3) && report["rows"] == .int(2), "\(first.stdout)")
        let second = try await CLITests.run(["import", "shortio", shortio, "--config", config, "--database", database])
        #expect(second.status == 1, "the protected link is left out: \(second.stdout)")
        #expect(second.stdout.contains("item 3: board: protected by a password in Short.io"), "\(second.stdout)")
        #expect(second.stdout.contains("3 rows: 2 created, 0 updated, 0 unchanged, 1 left out"), "\(second.stdout)")
        let again = try await CLITests.run(["import", "bitly", bitly, "--config", config, "--database", database])
        #expect(again.status == 0 && again.stdout.contains("3 unchanged"), "\(again.stdout)")
        let served = try await blocking { () throws -> [Int] in
            let run = try CLITests.withService(CLITests.binary, ["serve", "--port", "0", "--config", config, "--database", database]) { service in
                ["/rabble-rave", "/3xYz9Ab", "/summer-sale", "/board"].map { HTTP.send("GET", service + $0, following: false).status }
            }
            return run.result ?? []
        }
        #expect(served == [302, 302, 302, 404], "\(served)")
        let csv = try await CLITests.run(["import", "bitly", "-", "--config", config, "--database", database], stdin: "Bitlink,Long URL\nbit.ly/a,https://blog.rabble.community/a\n")
        #expect(csv.status == 2 && csv.stderr.contains("its CSV export is not read"), "\(csv.stderr)")
    }
}

