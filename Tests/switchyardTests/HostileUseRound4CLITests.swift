import SwitchyardCore
import Foundation
import Testing

/// The fourth hostile-use round (issue 41), through the binary.
@Suite struct HostileUseRound4CLITests {
    /// A 1 MB decision case (50 rules of 9,900 characters, a 500,000-character path) used to run
    /// past 100 s: the work of a case is its patterns times its URL, and past the bound it is an
    /// error line that says so; a case of real size beside it is still answered.
    @Test func decisionsAreBoundedInWork() async throws {
        let pattern = "/" + String(repeating: "*a", count: 4_949) + "c"
        let rules = (0..<50).map { _ in #"{"/": "\#(pattern)"}"# }.joined(separator: ",")
        let statement = #"{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.e.app", "sha256_cert_fingerprints": ["\#(Array(repeating: "AB", count: 32).joined(separator: ":"))"]}, "relation_extensions": {"delegate_permission/common.handle_all_urls": {"dynamic_app_link_components": [\#(rules)]}}}"#
        let url = "https://e.example/" + String(repeating: "a", count: 500_000)
        let big = #"{"id": 1, "package": "com.e.app", "url": "\#(url)", "assetlinks": [\#(statement)]}"#
        // With this file a URL may have 101 characters: one of 60 is decided.
        let small = #"{"id": 2, "package": "com.e.app", "url": "https://e.example/\#(String(repeating: "a", count: 40))c", "assetlinks": [\#(statement)]}"#
        #expect(big.utf8.count > 900_000)
        let android = try await CLITests.run(["assetlinks", "decide", "--jsonl"], stdin: big + "\n" + small + "\n")
        let lines = android.stdout.split(separator: "\n").map(String.init)
        #expect(android.status == 1 && lines.count == 2, "\(android.stdout.prefix(500)) \(android.stderr.prefix(500))")
        #expect(lines.first?.contains(#""code":"too-much-work""#) == true && lines.first?.contains("500018 characters") == true, "\(lines.first ?? "")")
        #expect(lines.last == #"{"id":2,"decision":"no_match"}"#, "\(lines.last ?? "")")

        // The same bound for iOS (an AASA has at most 128 KB): 12 components of the same
        // patterns, as a case and through explain.
        let components = (0..<12).map { _ in #"{"/": "\#(pattern)"}"# }.joined(separator: ",")
        let aasa = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.e.app"], "components": [\#(components)]}]}}"#
        // A 2,000-character URL (an argument or a case line has room for it) is past the bound too.
        let long = "https://e.example/" + String(repeating: "a", count: 2_000)
        let iOSCase = #"{"id": 3, "appId": "ABCDE12345.com.e.app", "url": "\#(long)", "aasa": \#(aasa)}"#
        let iOS = try await CLITests.run(["aasa", "decide", "--jsonl"], stdin: iOSCase + "\n")
        #expect(iOS.status == 1 && iOS.stdout.contains(#""code":"too-much-work""#), "\(iOS.stdout.prefix(500))")
        let directory = try ErrorPathCLITests.temporaryDirectory()
        let file = directory.appendingPathComponent("aasa.json").path
        try aasa.write(toFile: file, atomically: true, encoding: .utf8)
        let explain = try await CLITests.run(["aasa", "explain", file, long, "--app-id", "ABCDE12345.com.e.app"])
        #expect(explain.status == 1 && explain.stderr.contains("more work than one decision may take"), "\(explain.stderr.prefix(500))")
        let links = directory.appendingPathComponent("assetlinks.json").path
        try "[\(statement)]".write(toFile: links, atomically: true, encoding: .utf8)
        let androidExplain = try await CLITests.run(["assetlinks", "explain", links, long, "--package", "com.e.app"])
        #expect(androidExplain.status == 1 && androidExplain.stderr.contains("more work than one decision may take"), "\(androidExplain.stderr.prefix(500))")
        let json = try await CLITests.run(["aasa", "explain", file, long, "--app-id", "ABCDE12345.com.e.app", "--json"])
        #expect(json.status == 1 && json.stdout.hasPrefix(#"{"error":{"code":"too-much-work","message":"deciding this URL"#), "\(json.stdout.prefix(300))")
    }
}
