import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing

/// Nothing a manifest, a script, a server or an input URL holds can write a control character
/// to the terminal: human output escapes them, result URLs with them are errors, input URLs
/// with them (C1 included) are refused.
@Suite struct TerminalSafetyCLITests {
    static func temporaryDirectory() throws -> URL {
        let url = TestTemporary.root.appendingPathComponent("switchyard-term-\(UUID().uuidString)")
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
        let human = try await CLITests.run(["resolve", "--offline", "--script-isolation", isolation, "--manifest", manifest.path, "https://e.example/"])
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

        let json = try await CLITests.run(["resolve", "--offline", "--json", "--script-isolation", isolation, "--manifest", manifest.path, "https://e.example/"])
        let actions = try #require((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["actions"] as? [[String: Any]])
        #expect(actions.map { ($0["error"] as? [String: Any])?["code"] as? String } == ["invalid-result", "invalid-result", "invalid-result", "script-exception", nil])
        #expect(actions.map { $0["url"] as? String } == [nil, nil, nil, nil, "app://fine/1"])
    }

    /// U+009B is a CSI to terminals that read C1 controls: an input URL with one is refused
    /// with invalid-url, and never echoed raw (README: "spaces or control characters").
    @Test func inputURLsWithC1ControlsAreRefused() async throws {
        let input = "https://x.example/\u{9B}31mred"
        let human = try await CLITests.run(["resolve", "--offline", input])
        #expect(human.status == 1)
        #expect(human.stderr == "error: https://x.example/\\u{9B}31mred: contains the control character U+009B\n", "\(human.stderr.debugDescription)")
        let json = try await CLITests.run(["resolve", "--offline", "--json", input])
        #expect(json.status == 1)
        #expect(json.stdout == #"{"input":"https://x.example/\u009b31mred","error":{"code":"invalid-url","message":"contains the control character U+009B"}}"# + "\n")
        let unwrap = try await CLITests.run(["unwrap", "\u{1B}]0;x\u{7}https://x.example/"])
        #expect(unwrap.status == 1)
        #expect(!Self.hasControl(unwrap.stderr), "\(unwrap.stderr.debugDescription)")
    }

    /// A wrapper whose target decodes to control characters (%1B, %0A) is not unwrapped: the
    /// input comes back as it is, and nothing raw reaches the terminal.
    @Test func decodedEscapesAreNeverPrinted() async throws {
        let input = "https://www.youtube.com/redirect?q=https%3A%2F%2Fa.example%2F%1B%5D0%3Bpwned%07%0AFAKE&v=x"
        let unwrapped = try await CLITests.run(["unwrap", input])
        #expect(unwrapped.status == 0)
        #expect(unwrapped.stdout == input + "\n", "\(unwrapped.stdout.debugDescription)")
        #expect(!Self.hasControl(unwrapped.stdout + unwrapped.stderr))
    }

    /// `open` shows a refused URL as `relay send` does: quoted, control characters as `\u{1B}`.
    @Test func openShowsARefusedURLWithoutItsControlCharacters() async throws {
        let directory = try Self.temporaryDirectory()
        let r = try await CLITests.run(["open", "--offline", "--dry-run", "--script-isolation", "none", "javascript:x\u{1B}]0;pwned\u{7}\u{9B}2J"],
                                           environment: ["SWITCHYARD_INBOX": directory.appendingPathComponent("inbox").path])
        #expect(r.status == 1)
        #expect(r.stderr == #"refused: 'javascript:x\u{1B}]0;pwned\u{7}\u{9B}2J': the URL contains the control character U+001B"# + "\n", "\(r.stderr.debugDescription)")
    }

    /// Control characters, bidirectional format characters and line separators.
    static func hasUnsafe(_ text: String) -> Bool {
        hasControl(text) || text.unicodeScalars.contains {
            (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029
        }
    }

    /// C1 controls (U+009B is a CSI), bidirectional overrides and isolates and line separators
    /// are refused by the one URL policy: `relay send` stores nothing, `open` hands nothing to
    /// its command, and neither echoes them raw.
    @Test(arguments: ["plur://group/\u{9B}2J", "plur://group/\u{85}x", "plur://group/a\u{202E}txt.exe", "plur://group/\u{2066}a\u{2069}", "plur://group/a\u{2028}b"])
    func relaySendAndOpenRefuseC1AndBidiCharacters(_ url: String) async throws {
        let directory = try Self.temporaryDirectory()
        let inbox = directory.appendingPathComponent("inbox").path
        let sent = try await CLITests.run(["relay", "send", "--inbox", inbox, url])
        #expect(sent.status == 1)
        #expect(sent.stderr.hasPrefix("refused: 'plur://group/"), "\(sent.stderr.debugDescription)")
        #expect(!Self.hasUnsafe(sent.stderr), "\(sent.stderr.debugDescription)")
        #expect(sent.stdout.isEmpty)
        let stdin = try await CLITests.run(["relay", "send", "--stdin", "--inbox", inbox], stdin: url + "\nplur://group/ok\n")
        #expect(stdin.status == 1)
        #expect(stdin.stdout.split(separator: "\n").count == 1)
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"])
        #expect(status.stdout.contains(#""pending":1"#), "\(status.stdout)")

        // `open --open-with`: the command is never run with such a URL.
        let marker = directory.appendingPathComponent("ran").path
        let opened = try await CLITests.run(["open", "--offline", "--script-isolation", "none", "--inbox", inbox, "--open-with", "touch \(marker)", url])
        #expect(opened.status == 1)
        #expect(opened.stderr.hasPrefix("refused: "), "\(opened.stderr.debugDescription)")
        #expect(!Self.hasUnsafe(opened.stderr + opened.stdout), "\(opened.stderr.debugDescription)")
        #expect(!FileManager.default.fileExists(atPath: marker))
    }

    /// A record stored with such a URL (by an older version, or written by hand): `relay status`
    /// escapes it, and a drain moves it to rejected/ instead of handing it over.
    @Test func storedRecordsWithC1OrBidiURLsAreEscapedByStatusAndRejectedByTheDrain() async throws {
        let directory = try Self.temporaryDirectory()
        let inbox = directory.appendingPathComponent("inbox").path
        #expect(try await CLITests.run(["relay", "send", "--inbox", inbox, "plur://group/first"]).status == 0)
        let id = UUID()
        let record = RelayRecord.line(id: id, url: "plur://group/\u{9B}2J\u{202E}gpj.exe", source: "old\u{9B}31m")
        try Data(record.utf8).write(to: URL(fileURLWithPath: inbox + "/requests/99999999999999999999-\(id.uuidString.lowercased()).json"))
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox])
        #expect(status.status == 0)
        #expect(!Self.hasUnsafe(status.stdout), "\(status.stdout.debugDescription)")
        #expect(status.stdout.contains("old\\u{9B}31m  plur://group/\\u{9B}2J\\u{202E}gpj.exe"), "\(status.stdout)")

        let handled = directory.appendingPathComponent("handled.jsonl").path
        let watch = try RelayCLITests.startWatch(["relay", "watch", "--inbox", inbox, "--record", handled])
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, ((try? FileManager.default.contentsOfDirectory(atPath: inbox + "/rejected")) ?? []).count < 2 { try await Task.sleep(for: .milliseconds(20)) }
        watch.terminate()
        await watch.waitForExit()
        let rejected = try FileManager.default.contentsOfDirectory(atPath: inbox + "/rejected")
        let reason = try String(contentsOfFile: inbox + "/rejected/" + (rejected.first { $0.hasSuffix(".reason") } ?? ""), encoding: .utf8)
        #expect(reason == "the URL contains the control character U+009B\n", "\(reason)")
        let delivered = try String(contentsOfFile: handled, encoding: .utf8)
        #expect(delivered.contains("plur://group/first") && !delivered.contains("gpj.exe"), "\(delivered)")
    }

    /// Human output escapes bidirectional overrides and line separators as it does control characters.
    @Test func bidiAndLineSeparatorsAreEscapedInHumanOutput() async throws {
        // Unwrapped, they are percent-encoded, as a browser goes to the URL: nothing raw is left.
        let r = try await CLITests.run(["unwrap", "https://www.youtube.com/redirect?q=https%3A%2F%2Fa.example%2F%E2%80%AEexe.txt%E2%80%A8FAKE&v=x"])
        #expect(r.stdout == "https://a.example/%E2%80%AEexe.txt%E2%80%A8FAKE\n", "\(r.stdout.debugDescription)")
        // A link that is printed as given keeps them, escaped.
        let given = try await CLITests.run(["unwrap", "https://a.example/\u{202E}exe.txt\u{2028}FAKE"])
        #expect(given.stdout == "https://a.example/\\u{202E}exe.txt\\u{2028}FAKE\n", "\(given.stdout.debugDescription)")
    }

    /// Sign an x-callback-url as `callback build` does, with any request id (build refuses control
    /// characters in `--id`; a sender need not use it).
    static func signedCallback(id: String, keyID: String, secret: String) async throws -> String {
        let python = """
            import hashlib, hmac, base64, sys, time, urllib.parse
            q = lambda s: urllib.parse.quote(s, safe="")
            rid, kid, secret = sys.argv[1], sys.argv[2], sys.argv[3].encode()
            params = [("x-sy-id", rid), ("x-sy-kid", kid), ("x-sy-exp", str(int(time.time()) + 300)), ("x-sy-nonce", "00112233445566778899aabbccddeeff")]
            canonical = "\\n".join([q(x) for x in ["switchyard-callback-v1", "helper", "act", "", "", "", ""]] + sorted(q(k) + "=" + q(v) for k, v in params))
            sig = base64.urlsafe_b64encode(hmac.new(secret, canonical.encode(), hashlib.sha256).digest()).decode().rstrip("=")
            sys.stdout.write("helper://x-callback-url/act?" + "&".join(q(k) + "=" + q(v) for k, v in params + [("x-sy-sig", sig)]))
            """
        return try await CLITests.output(of: ["python3", "-c", python, id, keyID, secret])
    }

    /// `callback verify` prints the sender's request id and key id escaped; `callback build --id`
    /// refuses control characters.
    @Test func callbackVerifyEscapesWhatTheSenderWroteAndBuildRefusesControlIDs() async throws {
        let directory = try Self.temporaryDirectory()
        let keyFile = directory.appendingPathComponent("k1.key").path
        try Data("0123456789abcdef0123456789abcdef".utf8).write(to: URL(fileURLWithPath: keyFile))
        let seen = directory.appendingPathComponent("nonces").path
        let signed = try await Self.signedCallback(id: "req\u{1B}]0;pwned\u{7}\nFAKE", keyID: "k1", secret: "0123456789abcdef0123456789abcdef")
        let verified = try await CLITests.run(["callback", "verify", signed, "--key", "k1=\(keyFile)", "--seen", seen])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout == "req\\u{1B}]0;pwned\\u{7}\\u{A}FAKE\n", "\(verified.stdout.debugDescription)")

        // An unknown key id with an escape sequence: refused, and said escaped.
        let unknown = try await Self.signedCallback(id: "r1", keyID: "k\u{1B}[2J\u{9B}2J", secret: "0123456789abcdef0123456789abcdef")
        let refused = try await CLITests.run(["callback", "verify", unknown, "--key", "k1=\(keyFile)", "--seen", seen])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("unknown"), "\(refused.stderr)")
        #expect(!Self.hasControl(String(refused.stderr.dropLast())), "\(refused.stderr.debugDescription)")

        for id in ["req\u{1B}[2J", "a\nb", "x\u{9B}1m", "a\u{202E}b"] {
            let built = try await CLITests.run(["callback", "build", "--scheme", "helper", "--action", "act", "--key", "k1=\(keyFile)", "--id", id])
            #expect(built.status == 2, "\(id.debugDescription): \(built.status)")
            #expect(built.stderr.contains("--id contains U+") && built.stderr.contains("(a control, bidirectional or replacement character)"), "\(built.stderr)")
            #expect(built.stdout.isEmpty)
        }
    }
}
