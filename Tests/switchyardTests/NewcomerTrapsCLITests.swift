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
}
