import SwitchyardCore
import SwitchyardTestSupport
import Foundation
import Testing

/// The traps a new operator fell into (issue 42), through the binary.
@Suite struct NewcomerTrapsCLITests {
    /// `serve` with no ./switchyard.yaml says, in one plain line on stderr, that it serves the
    /// built-in example and how to get your own; with a configuration of its own it says nothing of it.
    @Test func serveSaysPlainlyWhenItServesTheExample() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let run = try await blocking {
            try CLITests.withService(CLITests.binary, ["serve", "--port", "0"], in: directory) { service in HTTP.send("GET", service + "/healthz").status }
        }
        #expect(run.result == 200, "\(run.log)")
        let note = run.log.split(separator: "\n").first { $0.hasPrefix("note: no ./switchyard.yaml here") }
        #expect(note?.contains("built-in example configuration (the Plur app") == true && note?.contains("switchyard init") == true, "\(run.log)")
        #expect(try await CLITests.run(["init", "--domain", "acme.example", "--team-id", "ABCDE12345", "--bundle-id", "com.acme.app", "--directory", directory.path]).status == 0)
        let own = try await blocking {
            try CLITests.withService(CLITests.binary, ["serve", "--port", "0"], in: directory) { service in HTTP.send("GET", service + "/healthz").status }
        }
        #expect(own.result == 200 && !own.log.contains("note: no ./switchyard.yaml"), "\(own.log)")
    }

    /// A command that writes, run where no database is, says it made a new one and where (the
    /// token then failed as `invalid-token` against a service running elsewhere); with an
    /// existing database it says nothing.
    @Test func aNewDatabaseIsSaidWithWhere() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let made = try await CLITests.run(["token", "create", "--name", "a"], environment: [:], in: directory)
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stderr.contains("note: made a new, empty database at \(directory.standardizedFileURL.path)/.switchyard/switchyard.sqlite: none was there"), "\(made.stderr)")
        #expect(made.stderr.contains("serve reads the one where it runs"), "\(made.stderr)")
        let again = try await CLITests.run(["token", "create", "--name", "b"], environment: [:], in: directory)
        #expect(again.status == 0 && !again.stderr.contains("made a new"), "\(again.stderr)")
    }

    /// `aasa explain` needs no --app-id for a file of one app, and names the apps otherwise.
    @Test func aasaExplainDefaultsToTheOnlyApp() async throws {
        let only = try await CLITests.run(["aasa", "explain", "../../Examples/shop-aasa.json", "https://shop.example/buy/7?ref=mail"])
        let named = try await CLITests.run(["aasa", "explain", "../../Examples/shop-aasa.json", "https://shop.example/buy/7?ref=mail", "--app-id", "ABCDE12345.com.example.shop"])
        #expect(only.status == named.status && only.stdout == named.stdout && !only.stdout.isEmpty, "\(only.stdout) \(only.stderr)")
        let file = try ServiceProcessTests.temporaryDirectory().appendingPathComponent("two.json").path
        try #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.a", "ABCDE12345.com.b"], "components": [{"/": "/x"}]}]}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let two = try await CLITests.run(["aasa", "explain", file, "https://e.example/x"])
        #expect(two.status == 2 && two.stderr.contains("the file names 2 apps (ABCDE12345.com.a, ABCDE12345.com.b); give the one to explain with --app-id"), "\(two.stderr)")
    }

    /// `assetlinks generate` writes a file with -o, as `aasa generate` does; and the Android
    /// decision tools treat a URL on another host than the file's as the iOS ones do.
    @Test func assetlinksGenerateWritesAFileAndAnotherHostIsNotAssociated() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let file = directory.appendingPathComponent("assetlinks.json").path
        let fingerprint = Array(repeating: "AB", count: 32).joined(separator: ":")
        let written = try await CLITests.run(["assetlinks", "generate", "--package", "com.e.app", "--fingerprint", fingerprint, "-o", file])
        #expect(written.status == 0 && written.stdout.isEmpty, "\(written.stdout) \(written.stderr)")
        let printed = try await CLITests.run(["assetlinks", "generate", "--package", "com.e.app", "--fingerprint", fingerprint])
        #expect(try String(contentsOfFile: file, encoding: .utf8) == printed.stdout)
        let statement = #"{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.e.app", "sha256_cert_fingerprints": ["\#(fingerprint)"]}, "relation_extensions": {"delegate_permission/common.handle_all_urls": {"dynamic_app_link_components": [{"/": "/x/*"}]}}}"#
        let cases = [#"{"id": 1, "domain": "e.example", "package": "com.e.app", "url": "https://other.example/x/1", "assetlinks": [\#(statement)]}"#,
                     #"{"id": 2, "domain": "e.example", "package": "com.e.app", "url": "https://E.example/x/1", "assetlinks": [\#(statement)]}"#,
                     #"{"id": 3, "package": "com.e.app", "url": "https://other.example/x/1", "assetlinks": [\#(statement)]}"#]
        let decided = try await CLITests.run(["assetlinks", "decide", "--jsonl"], stdin: cases.joined(separator: "\n") + "\n")
        #expect(decided.stdout == #"{"id":1,"decision":"not_associated"}"# + "\n" + #"{"id":2,"decision":"match"}"# + "\n" + #"{"id":3,"decision":"match"}"# + "\n", "\(decided.stdout)")
        let links = directory.appendingPathComponent("links.json").path
        try "[\(statement)]".write(toFile: links, atomically: true, encoding: .utf8)
        let explained = try await CLITests.run(["assetlinks", "explain", links, "https://other.example/x/1", "--package", "com.e.app", "--domain", "e.example", "--json"])
        #expect(explained.stdout.contains(#""decision":"not_associated""#) && explained.stdout.contains("is not e.example"), "\(explained.stdout)")
    }

    /// The generate commands refuse what no association file can say, or iOS would ignore:
    /// route text with `$(` or `*` (a variable or a wildcard to a pattern), and an AASA over
    /// 128 KB; the file is not written. A table of too many enum combinations is written, with
    /// a note on stderr.
    @Test func generateRefusesWhatNoFileCanSay() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let dollar = directory.appendingPathComponent("dollar.yaml").path
        try "hosts: [e.example]\nroutes:\n  - {name: v, pattern: \"/v/$(digit)\"}\n".write(toFile: dollar, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("aasa.json").path
        let refused = try await CLITests.run(["aasa", "generate", "--routes", dollar, "--team-id", "ABCDE12345", "--bundle-id", "com.e.app", "-o", out])
        #expect(refused.status == 2 && refused.stderr.contains("routes[0] (v): the path text \"$(digit)\" holds *, ? or $("), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let android = try await CLITests.run(["assetlinks", "generate", "--package", "com.e.app", "--fingerprint", Array(repeating: "AB", count: 32).joined(separator: ":"), "--routes", dollar])
        #expect(android.status == 2 && android.stdout.isEmpty && android.stderr.contains("routes[0] (v)"), "\(android.stderr)")

        let many = directory.appendingPathComponent("many.yaml").path
        try ("hosts: [e.example]\nroutes:\n" + (0..<1_000).map { "  - {name: r\($0), pattern: \"/section-\($0)/{id}/details/{tab:one|two}\"}\n" }.joined()).write(toFile: many, atomically: true, encoding: .utf8)
        let big = try await CLITests.run(["aasa", "generate", "--routes", many, "--team-id", "ABCDE12345", "--bundle-id", "com.e.app", "-o", out])
        #expect(big.status == 2 && big.stderr.contains("bytes; iOS ignores files over 131072 bytes"), "\(big.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))

        let values = (0..<9).map { "v\($0)" }.joined(separator: "|")
        let grid = directory.appendingPathComponent("grid.yaml").path
        try "hosts: [e.example]\nroutes:\n  - {name: grid, pattern: \"/e/{x:\(values)}/{y:\(values)}\"}\n".write(toFile: grid, atomically: true, encoding: .utf8)
        let wide = try await CLITests.run(["aasa", "generate", "--routes", grid, "--team-id", "ABCDE12345", "--bundle-id", "com.e.app", "-o", out])
        #expect(wide.status == 0 && wide.stderr.contains("note: routes[0]: route grid: its enums have more than 64 combinations"), "\(wide.stderr)")
        let check = try await CLITests.run(["routes", "check", "--routes", grid, "--aasa", out])
        #expect(check.status == 0 && check.stdout.contains("[pattern-wider-than-route]"), "\(check.stdout)")
    }

    /// `init` names the app from its bundle ID without the generic parts (`com.acme.app` was
    /// "app") and says so; `--name` overrides it.
    @Test func initNamesTheAppFromItsBundleIDAndSaysSo() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let written = try await CLITests.run(["init", "--domain", "acme.example", "--team-id", "ABCDE12345", "--bundle-id", "com.acme.app", "--directory", directory.path])
        #expect(written.status == 0 && written.stdout.contains(#"the landing pages call the app "Acme" (from com.acme.app); give --name to call it otherwise"#), "\(written.stdout)")
        #expect(try String(contentsOfFile: directory.appendingPathComponent("switchyard.yaml").path, encoding: .utf8).contains("Acme"))
        let named = try ServiceProcessTests.temporaryDirectory()
        let own = try await CLITests.run(["init", "--domain", "acme.example", "--package", "com.acme.android", "--fingerprint", Array(repeating: "AB", count: 32).joined(separator: ":"), "--name", "Acme Chat", "--directory", named.path])
        #expect(own.status == 0 && !own.stdout.contains("give --name"), "\(own.stdout)")
        #expect(try String(contentsOfFile: named.appendingPathComponent("switchyard.yaml").path, encoding: .utf8).contains("Acme Chat"))
    }

    /// Small ways on: a URL without its scheme gets the https form offered; --offline says it
    /// followed no redirect when no app took a link; a scope typo gets a did-you-mean; a
    /// Switchyard CSV given to `import fdl` is pointed at `import csv`.
    @Test func smallWaysOn() async throws {
        let bare = try await CLITests.run(["resolve", "www.youtube.com/watch?v=dQw4w9WgXcQ"])
        #expect(bare.status == 1 && bare.stderr.contains("did you mean https://www.youtube.com/watch?v=dQw4w9WgXcQ?"), "\(bare.stderr)")
        let offline = try await CLITests.run(["resolve", "--offline", "https://t.co/abc"])
        #expect(offline.stdout == "no app handles this link\n" && offline.stderr.contains("note: --offline follows no HTTP redirects"), "\(offline.stdout) \(offline.stderr)")
        let online = try await CLITests.run(["resolve", "--offline", "https://twitter.com/jack/status/20"])
        #expect(online.status == 0 && !online.stderr.contains("note:"), "\(online.stderr)")
        let scope = try await CLITests.run(["token", "create", "--name", "x", "--scope", "links:wrte", "--database", "sqlite:" + ServiceProcessTests.temporaryDirectory().appendingPathComponent("s.sqlite").path])
        #expect(scope.status == 2 && scope.stderr.contains("unknown scope 'links:wrte'; did you mean links:write?"), "\(scope.stderr)")
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("own.sqlite").path
        // The example export has rows it reports (status 1) and links it imports.
        #expect([0, 1].contains(try await CLITests.run(["import", "fdl", "../../Examples/fdl-export.csv", "--database", database]).status))
        let csv = directory.appendingPathComponent("links.csv").path
        #expect(try await CLITests.run(["export", "csv", "-o", csv, "--database", database]).status == 0)
        let wrong = try await CLITests.run(["import", "fdl", csv, "--database", database])
        #expect(wrong.status != 0 && wrong.stderr.contains("this is Switchyard's own CSV") && wrong.stderr.contains("switchyard import csv"), "\(wrong.stderr)")
    }

    /// The operator guide's SQLite backup line, run as written, leaves a copy only its owner
    /// can read (the copy holds the claim-signing key and the tokens' hashes).
    @Test func theBackupRecipeMakesAnOwnerOnlyCopy() async throws {
        let guide = try String(contentsOf: CLITests.testsDirectory.appendingPathComponent("../../docs/operator-guide.md").standardized, encoding: .utf8)
        let line = try #require(guide.split(separator: "\n").first { $0.contains("sqlite3 /var/lib/switchyard/switchyard.sqlite \".backup") })
        var command = String(try #require(line.split(separator: "`").dropFirst().first))
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = directory.appendingPathComponent("switchyard.sqlite").path
        #expect(try await CLITests.run(["token", "create", "--name", "b", "--database", "sqlite:" + database]).status == 0)
        command = command.replacingOccurrences(of: "/var/lib/switchyard/switchyard.sqlite", with: database).replacingOccurrences(of: "/backups/", with: directory.path + "/")
        let run = try await CLITests.run(["/bin/sh", "-c", "umask 022; " + command], shell: true)
        #expect(run.status == 0, "\(command): \(run.stderr)")
        let copies = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("switchyard-") }
        let copy = try #require(copies.first, "\(command) made no copy")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(copy).path)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "the copy's mode is \(String(mode, radix: 8))")
    }
}
