import SwitchyardCore
import Foundation
import Testing

/// Nothing a manifest, a script, a server or an input URL holds can write a control character
/// to the terminal: human output escapes them, result URLs with them are errors, input URLs
/// with them (C1 included) are refused.
@Suite struct TerminalSafetyCLITests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-term-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// C0 controls, DEL and C1 controls.
    static func hasControl(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
    }

    /// An app whose name holds an escape sequence and a newline, and scripts that answer with
    /// an escape sequence, a number, text without a scheme, and an exception carrying an escape.
    static let hostileManifest = #"""
        {"apps": [{"identifier": "app", "name": "App\u001b]0;pwned\u0007\nFAKE → line", "scheme": "app"}],
         "actions": [{"title": "E", "regex": "^https://e\\.example/",
           "formats": [
             {"appId": "app", "script2": "function process(u, c) { c('app://x\\u001b]0;pwned\\u0007\\u001b[2J\\nFAKE → line'); }"},
             {"appId": "app", "script2": "function process(u, c) { c(12345); }"},
             {"appId": "app", "script2": "function process(u, c) { c('no scheme here'); }"},
             {"appId": "app", "script2": "function process(u, c) { throw new Error('boom\\u001b[2J'); }"},
             {"appId": "app", "script2": "function process(u, c) { c('app://fine/1'); }"}
           ]}]}
        """#

    @Test(arguments: ["process", "none"])
    func resolveEscapesNamesAndRefusesResultsThatAreNotLinks(_ isolation: String) async throws {
        let directory = try Self.temporaryDirectory()
        let manifest = directory.appendingPathComponent("manifest.json")
        try Data(Self.hostileManifest.utf8).write(to: manifest)
        let human = try await CLITests.running(["resolve", "--offline", "--script-isolation", isolation, "--manifest", manifest.path, "https://e.example/"])
        #expect(human.status == 0, "one format gave a link: \(human.stderr)")
        #expect(!Self.hasControl(human.stdout), "\(human.stdout.debugDescription)")
        let lines = human.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "one line per format, no forged line: \(human.stdout)")
        let name = #"App\u{1B}]0;pwned\u{7}\u{A}FAKE → line"#
        #expect(lines.allSatisfy { $0.hasPrefix(name + " → ") }, "\(lines)")
        #expect(lines[0].hasSuffix("error: invalid-result: the result contains the control character U+001B at character 7; a link is one line of printable text"), "\(lines[0])")
        #expect(lines[1].hasSuffix("error: invalid-result: the script passed a number to completionHandler; it takes a URL string or null"), "\(lines[1])")
        #expect(lines[2].hasSuffix(#"error: invalid-result: the result "no scheme here" is not an absolute URL (it needs a scheme such as app:)"#), "\(lines[2])")
        #expect(lines[3].contains(#"boom\u{1B}[2J"#), "\(lines[3])")
        #expect(lines[4] == name + " → app://fine/1")

        let json = try await CLITests.running(["resolve", "--offline", "--json", "--script-isolation", isolation, "--manifest", manifest.path, "https://e.example/"])
        let actions = try #require((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["actions"] as? [[String: Any]])
        #expect(actions.map { ($0["error"] as? [String: Any])?["code"] as? String } == ["invalid-result", "invalid-result", "invalid-result", "script-exception", nil])
        #expect(actions.map { $0["url"] as? String } == [nil, nil, nil, nil, "app://fine/1"])
    }

    /// U+009B is a CSI to terminals that read C1 controls: an input URL with one is refused
    /// with invalid-url, and never echoed raw (README: "spaces or control characters").
    @Test func inputURLsWithC1ControlsAreRefused() async throws {
        let input = "https://x.example/\u{9B}31mred"
        let human = try await CLITests.running(["resolve", "--offline", input])
        #expect(human.status == 1)
        #expect(human.stderr == "error: https://x.example/\\u{9B}31mred: contains the control character U+009B\n", "\(human.stderr.debugDescription)")
        let json = try await CLITests.running(["resolve", "--offline", "--json", input])
        #expect(json.status == 1)
        #expect(json.stdout == #"{"input":"https://x.example/\u009b31mred","error":{"code":"invalid-url","message":"contains the control character U+009B"}}"# + "\n")
        let unwrap = try await CLITests.running(["unwrap", "\u{1B}]0;x\u{7}https://x.example/"])
        #expect(unwrap.status == 1)
        #expect(!Self.hasControl(unwrap.stderr), "\(unwrap.stderr.debugDescription)")
    }

    /// `unwrap` and `route` print percent-decoded text: %1B and %0A come out escaped.
    @Test func decodedEscapesAreEscapedInHumanOutput() async throws {
        let unwrapped = try await CLITests.running(["unwrap", "https://www.youtube.com/redirect?q=https%3A%2F%2Fa.example%2F%1B%5D0%3Bpwned%07%0AFAKE&v=x"])
        #expect(unwrapped.status == 0)
        #expect(unwrapped.stdout == "https://a.example/\\u{1B}]0;pwned\\u{7}\\u{A}FAKE\n", "\(unwrapped.stdout.debugDescription)")
    }

    /// `open` shows a refused URL as `relay send` does: quoted, control characters as "?".
    @Test func openShowsARefusedURLWithoutItsControlCharacters() async throws {
        let directory = try Self.temporaryDirectory()
        let r = try await CLITests.running(["open", "--offline", "--dry-run", "--script-isolation", "none", "javascript:x\u{1B}]0;pwned\u{7}\u{9B}2J"],
                                           environment: ["SWITCHYARD_INBOX": directory.appendingPathComponent("inbox").path])
        #expect(r.status == 1)
        #expect(r.stderr == "refused: 'javascript:x?]0;pwned??2J': the URL contains a space or a control character\n", "\(r.stderr.debugDescription)")
    }
}
