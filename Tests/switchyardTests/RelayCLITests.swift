import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing

/// The relay, open and callback commands, run as a user would.
@Suite struct RelayCLITests {
    static func inbox() throws -> String {
        try ServiceProcessTests.temporaryDirectory().appendingPathComponent("inbox").path
    }

    /// Starts `switchyard` with `arguments` (a `relay watch`), its output discarded.
    static func startWatch(_ arguments: [String]) throws -> ChildProcess {
        let watch = ChildProcess()
        watch.executableURL = CLITests.binary
        watch.arguments = arguments
        watch.standardOutput = FileHandle.nullDevice
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        return watch
    }

    @Test func sendStatusWatchAndAStopOnSIGTERM() async throws {
        let inbox = try Self.inbox()
        let record = inbox + "-handled.jsonl"
        let a = try await CLITests.run(["relay", "send", "plur://group/a", "--inbox", inbox, "--source", "share-ext", "--meta", "k=v"])
        #expect(a.status == 0)
        let idA = a.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: idA) != nil)
        let b = try await CLITests.run(["relay", "send", "--stdin", "--inbox", inbox], stdin: "plur://group/b\nplur://group/c\n")
        #expect(b.stdout.split(separator: "\n").count == 2)
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"])
        #expect(status.stdout.contains(#""pending":3"#))
        #expect(status.stdout.contains(#""next":"plur://group/a""#))

        // The safety-net poll is out of reach (600 s), so a request sent while the watcher runs
        // can only arrive through the wake-up. Each wait is bounded generously: a busy full run
        // once took past 10 s for the four.
        let watch = try Self.startWatch(["relay", "watch", "--inbox", inbox, "--record", record, "--poll", "600"])
        func recorded() -> Int { ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").count }
        var deadline = Date().addingTimeInterval(60)
        while Date() < deadline, recorded() < 3 { try await Task.sleep(for: .milliseconds(20)) }
        _ = try await CLITests.run(["relay", "send", "plur://group/d", "--inbox", inbox])
        deadline = Date().addingTimeInterval(60)
        while Date() < deadline, recorded() < 4 { try await Task.sleep(for: .milliseconds(20)) }
        let stopAsked = Date()
        watch.terminate()   // SIGTERM
        await watch.waitForExit()
        #expect(Date().timeIntervalSince(stopAsked) < 3)
        #expect(watch.terminationReason == .exit && watch.terminationStatus == 0)
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        #expect(lines.map { $0.contains("plur://group/") }.count == 4)
        #expect(lines.first?.contains(idA) == true && lines.first?.contains(#""metadata":{"k":"v"}"#) == true)
        #expect(try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"]).stdout.contains(#""pending":0"#))
    }

    /// SIGTERM stops a watcher that prints or records a long backlog within a second or two, not
    /// at the backlog's end: what it did not hand out waits for the next watcher, nothing twice.
    @Test(arguments: [false, true]) func SIGTERMStopsAWatcherInTheMiddleOfABacklog(recording: Bool) async throws {
        let inbox = try Self.inbox()
        let total = 10_000
        let urls = (0..<total).map { "plur://group/\($0)\n" }.joined()
        #expect(try await CLITests.run(["relay", "send", "--stdin", "--batch", "1000", "--inbox", inbox], stdin: urls).status == 0)
        let out = inbox + "-out.jsonl"
        func delivered() -> [Substring] { ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n") }
        func watch() throws -> ChildProcess {
            let watch = ChildProcess()
            watch.executableURL = CLITests.binary
            watch.arguments = ["relay", "watch", "--inbox", inbox] + (recording ? ["--record", out] : [])
            if !recording {
                if !FileManager.default.fileExists(atPath: out) { FileManager.default.createFile(atPath: out, contents: nil) }
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
                handle.seekToEndOfFile()
                watch.standardOutput = handle
            }
            watch.standardError = FileHandle.nullDevice
            try watch.run()
            return watch
        }
        let first = try watch()
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, delivered().count < 50 { try await Task.sleep(for: .milliseconds(10)) }
        let stopAsked = Date()
        first.terminate()
        await first.waitForExit()
        let stoppedAfter = Date().timeIntervalSince(stopAsked)
        let before = delivered().count
        #expect(stoppedAfter < 3, "stopped \(stoppedAfter) s after SIGTERM")
        #expect(first.terminationReason == .exit && first.terminationStatus == 0)
        #expect(before < total, "the whole backlog (\(before)) was handed out after SIGTERM")
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"])
        #expect(status.stdout.contains(#""pending":\#(total - before)"#), "\(before) delivered; \(status.stdout)")

        // The next watcher delivers the rest, none of them twice.
        let second = try watch()
        let rest = Date().addingTimeInterval(240)  // a loaded machine running the debug build
        while Date() < rest, delivered().count < total { try await Task.sleep(for: .milliseconds(50)) }
        second.terminate()
        await second.waitForExit()
        let urlsDelivered = delivered().compactMap { line in line.range(of: "plur://group/").map { line[$0.upperBound...].prefix { $0.isNumber } } }
        #expect(urlsDelivered.count == total)
        #expect(Set(urlsDelivered).count == total)
    }

    /// `--meta` is key=value with a key: anything else is a usage error, and nothing is sent.
    @Test func metadataWithoutAKeyIsAUsageError() async throws {
        let inbox = try Self.inbox()
        for meta in ["=v", "novalue"] {
            let r = try await CLITests.run(["relay", "send", "plur://group/a", "--inbox", inbox, "--meta", meta])
            #expect(r.status == 2, "\(meta)")
            #expect(r.stderr.contains("--meta '\(meta)' is not key=value (a key before the =)"), "\(r.stderr)")
        }
        let sent = try await CLITests.run(["relay", "send", "plur://group/a", "--inbox", inbox, "--meta", "a=b=c", "--meta", "empty="])
        #expect(sent.status == 0)
        let listed = try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"])
        #expect(listed.stdout.contains(#""pending":1"#), "\(listed.stdout)")
    }

    @Test func sendRefusesWhatThePolicyDeniesAndStoresNothing() async throws {
        let inbox = try Self.inbox()
        for (url, reason) in [("javascript:alert(1)", "scheme javascript: is denied"), ("not a url", "not an absolute URL (no scheme)"),
                              ("plur://group/a b", "the URL contains a space")] {
            let r = try await CLITests.run(["relay", "send", url, "--inbox", inbox])
            #expect(r.status == 1, "\(url)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.contains(reason), "\(r.stderr)")
        }
        // A NUL (possible only on stdin) and a 10 KB URL are refused; the good line is stored.
        let huge = try await CLITests.run(["relay", "send", "--stdin", "--inbox", inbox],
                                    stdin: "plur://group/a\u{0}b\nhttps://example.com/" + String(repeating: "a", count: 10_000) + "\nplur://group/ok\n")
        #expect(huge.status == 1)
        #expect(huge.stdout.split(separator: "\n").count == 1)
        #expect(huge.stderr.contains(#"refused: stdin line 1: 'plur://group/a\u{0}b': the URL contains the control character U+0000"#), "\(huge.stderr)")
        #expect(huge.stderr.contains("refused: stdin line 2 (10020 bytes): the URL is longer than 8192 bytes; nothing stored for it"), "\(huge.stderr)")
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"])
        #expect(status.stdout.contains(#""pending":1"#), "\(status.stdout)")
        #expect(status.stdout.contains(#""next":"plur://group/ok""#))
    }

    @Test func aStoredRecordThePolicyDeniesGoesToRejectedWithItsReason() async throws {
        let inbox = try Self.inbox()
        _ = try await CLITests.run(["relay", "send", "plur://group/first", "--inbox", inbox])
        // A record written by hand (or by an older version) that the policy refuses.
        let id = UUID().uuidString.lowercased()
        let now = String(format: "%.6f", Date().timeIntervalSince1970)
        let record = #"{"v":1,"id":"\#(id)","time":\#(now),"source":"old","url":"javascript:alert(1)"}"# + "\n"
        try Data(record.utf8).write(to: URL(fileURLWithPath: inbox + "/requests/99999999999999999999-\(id).json"))
        let handled = inbox + "-handled.jsonl"
        let watch = try Self.startWatch(["relay", "watch", "--inbox", inbox, "--record", handled])
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, ((try? FileManager.default.contentsOfDirectory(atPath: inbox + "/rejected")) ?? []).count < 2 { try await Task.sleep(for: .milliseconds(20)) }
        watch.terminate()
        await watch.waitForExit()
        let rejected = try FileManager.default.contentsOfDirectory(atPath: inbox + "/rejected").sorted()
        #expect(rejected.count == 2, "\(rejected)")
        let reason = try String(contentsOfFile: inbox + "/rejected/" + (rejected.first { $0.hasSuffix(".reason") } ?? ""), encoding: .utf8)
        #expect(reason == "scheme javascript: is denied\n")
        let delivered = try String(contentsOfFile: handled, encoding: .utf8)
        #expect(delivered.contains("plur://group/first"))
        #expect(!delivered.contains("javascript:"))
        #expect(try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"]).stdout.contains(#""rejected":1"#))
    }

    @Test func sendRefusesA10MBURLAndControlCharactersInEveryFieldWithTheReason() async throws {
        let inbox = try Self.inbox()
        // 10 MB on stdin: refused as it streams by (never held in memory), the next line still stored.
        let big = try await CLITests.run(["relay", "send", "--stdin", "--inbox", inbox],
                                             stdin: "https://example.com/" + String(repeating: "a", count: 10 << 20) + "\nplur://group/after\n")
        #expect(big.status == 1)
        #expect(big.stderr == "refused: stdin line 1 (10485780 bytes): the URL is longer than 8192 bytes; nothing stored for it\n")
        #expect(big.stdout.split(separator: "\n").count == 1)
        // As an argument (Linux caps one argument at 128 KiB, so 100 KB is the most a shell can pass).
        let long = try await CLITests.run(["relay", "send", "https://example.com/" + String(repeating: "a", count: 100_000), "--inbox", inbox])
        #expect(long.status == 1)
        #expect(long.stdout.isEmpty)
        #expect(long.stderr.hasSuffix("…' (100020 bytes): the URL is longer than 8192 bytes\n"), "\(long.stderr)")
        #expect(long.stderr.utf8.count < 300, "only the start of the URL is quoted")
        for (arguments, reason) in [(["--source", "ext\u{1B}[2J"], "the source contains a control character (U+001B)"),
                                    (["--meta", "note=a\u{7}b"], "metadata 'note' contains a control character (U+0007)")] {
            let r = try await CLITests.run(["relay", "send", "plur://group/a", "--inbox", inbox] + arguments)
            #expect(r.status == 1, "\(arguments)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr == "refused: 'plur://group/a': \(reason)\n")
        }
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"])
        #expect(status.stdout.contains(#""pending":1"#), "\(status.stdout)")
        #expect(try await CLITests.run(["relay", "watch", "--inbox", inbox, "--max-attempts=-1"]).status == 2)
    }

    /// The red-team reproduction: a 10 MB record (as an older version stored it) and a URL that
    /// no handler can open, between good requests. Every good one is delivered within seconds, in
    /// order; both poisoned ones end in rejected/ with their reasons.
    @Test func poisonedRecordsBetweenGoodOnesDoNotStallTheRelay() async throws {
        let dir = try ServiceProcessTests.temporaryDirectory().path
        let inbox = dir + "/inbox"
        let handled = dir + "/handled.txt"
        let handler = dir + "/handler.sh"
        try """
            case "$1" in *poison*) echo "cannot open $1" >&2; exit 3;; esac
            printf '%s\\n' "$1" >> \(handled)
            """.write(toFile: handler, atomically: true, encoding: .utf8)
        func send(_ url: String) async throws {
            #expect(try await CLITests.run(["relay", "send", url, "--inbox", inbox]).status == 0)
        }
        try await send("plur://good/1")
        try await send("plur://good/2")
        // Sorts right after good/2's file.
        let second = try #require(try FileManager.default.contentsOfDirectory(atPath: inbox + "/requests").sorted().last)
        let giantName = String(second.prefix(20)) + "-zzzz.json"
        let giant = RelayRecord.line(id: UUID(), url: "https://example.com/" + String(repeating: "a", count: 10 << 20))
        try Data(giant.utf8).write(to: URL(fileURLWithPath: inbox + "/requests/" + giantName))
        try await send("plur://poison/1")
        for i in 3...6 { try await send("plur://good/\(i)") }

        let (log, elapsed) = try await blocking { () throws -> (String, Double) in
            let watch = ChildProcess()
            watch.executableURL = CLITests.binary
            watch.arguments = ["relay", "watch", "--inbox", inbox, "--open-with", "/bin/sh \(handler)", "--max-attempts", "3"]
            let err = Pipe()
            watch.standardError = err
            watch.standardOutput = FileHandle.nullDevice
            let start = Date()
            try watch.run()
            func delivered() -> Int { ((try? String(contentsOfFile: handled, encoding: .utf8)) ?? "").split(separator: "\n").count }
            while Date().timeIntervalSince(start) < 60, delivered() < 6 { usleep(20_000) }
            let elapsed = Date().timeIntervalSince(start)
            watch.terminate()
            watch.waitUntilExit()
            return (String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), elapsed)
        }
        let lines = try String(contentsOfFile: handled, encoding: .utf8).split(separator: "\n")
        #expect(lines == (1...6).map { "plur://good/\($0)" }, "\(log)")
        // Three attempts of the poisoned URL at 0, 0.5 and 1.5 s, then the rest at once: about 2–3 s
        // alone. The red team saw 0 of 6 delivered in 20 s; 20 s leaves room for a loaded test run.
        #expect(elapsed < 20, "\(elapsed) s\n\(log)")
        let rejected = try FileManager.default.contentsOfDirectory(atPath: inbox + "/rejected").sorted()
        #expect(rejected.count == 4, "\(rejected)")
        let reasons = try rejected.filter { $0.hasSuffix(".reason") }.map { name in
            (name, try String(contentsOfFile: inbox + "/rejected/" + name, encoding: .utf8))
        }
        #expect(reasons.first { $0.0.hasPrefix(giantName) }?.1 == "the URL is longer than 8192 bytes\n", "\(reasons)")
        #expect(reasons.first { !$0.0.hasPrefix(giantName) }?.1
                == "not delivered after 3 attempts (the retry budget is 3); last failure: /bin/sh exited with status 3\n", "\(reasons)")
        #expect(log.contains("not delivered (attempt 1 of 3): /bin/sh exited with status 3"), "\(log)")
        #expect(log.contains("gave up on request"), "\(log)")
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"])
        #expect(status.stdout.contains(#""pending":0"#) && status.stdout.contains(#""rejected":2"#), "\(status.stdout)")
    }

    @Test func openWithFailingCommandLeavesTheRequestForARetry() async throws {
        let inbox = try Self.inbox()
        _ = try await CLITests.run(["relay", "send", "plur://group/x", "--inbox", inbox])
        let watch = ChildProcess()
        watch.executableURL = CLITests.binary
        watch.arguments = ["relay", "watch", "--inbox", inbox, "--open-with", "false"]
        let err = Pipe()
        watch.standardError = err
        watch.standardOutput = FileHandle.nullDevice
        try watch.run()
        // Until the failed attempt and its retry are logged (about 1 s alone; more on a loaded machine).
        let collected = CLITests.LogCollector(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && !(collected.text.contains("retrying in")) { try await Task.sleep(for: .milliseconds(50)) }
        watch.terminate()
        await watch.waitForExit()
        let log = collected.finished()
        #expect(log.contains("not handled: false exited with status 1"))
        #expect(log.contains("retrying in"))
        #expect(try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"]).stdout.contains(#""pending":1"#))
    }

    @Test func openDryRunAndPolicy() async throws {
        let inbox = try Self.inbox()
        let dry = try await CLITests.run(["open", "--dry-run", "--offline", "--inbox", inbox, "https://twitter.com/jack/status/20"])
        #expect(dry.status == 0)
        #expect(dry.stdout == "would open twitter://status?id=20 (X (Twitter))\n  1. xdg-open twitter://status?id=20\n  2. then always relay to \(inbox)\n")
        #expect(!FileManager.default.fileExists(atPath: inbox), "a dry run creates no inbox")
        let denied = try await CLITests.run(["open", "--offline", "--inbox", inbox, "javascript:alert(1)"])
        #expect(denied.status == 1)
        #expect(denied.stderr.contains("scheme javascript: is denied"))
        // Direct open fails (no such command), the relay still gets it.
        let opened = try await CLITests.run(["open", "--offline", "--inbox", inbox, "--open-with", "false", "https://twitter.com/jack/status/20"])
        // The direct command failed: the request was only relayed, and the output says so.
        #expect(opened.stdout == "relayed, not opened: twitter://status?id=20 (X (Twitter)) is waiting in \(inbox) for a watcher; false failed\n")
        #expect(opened.status == 0)
        #expect(opened.stderr.contains("command(false): false exited with status 1"))
        #expect(try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"]).stdout.contains(#""next":"twitter://status?id=20""#))
    }

    @Test func callbackBuildParseVerify() async throws {
        let dir = try ServiceProcessTests.temporaryDirectory()
        let keyFile = dir.appendingPathComponent("k1.key").path
        try Data("0123456789abcdef0123456789abcdef".utf8).write(to: URL(fileURLWithPath: keyFile))
        let built = try await CLITests.run(["callback", "build", "--scheme", "helper", "--action", "export", "--success", "plur://x-callback-url/ok?a=1&b=2",
                                      "--param", "file=a b.txt", "--key", "k1=\(keyFile)", "--id", "req-7"])
        #expect(built.status == 0)
        let url = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix("helper://x-callback-url/export?x-success=plur%3A%2F%2Fx-callback-url%2Fok%3Fa%3D1%26b%3D2&file=a%20b.txt&x-sy-id=req-7"))
        let parsed = try await CLITests.run(["callback", "parse", url])
        #expect(parsed.stdout.contains(#""success": "plur://x-callback-url/ok?a=1&b=2""#))
        let seen = dir.appendingPathComponent("nonces").path
        #expect(try await CLITests.run(["callback", "verify", url, "--key", "k1=\(keyFile)", "--seen", seen]).stdout == "req-7\n")
        // The same request again, from a new process: a replay, refused.
        let replay = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(keyFile)", "--seen", seen])
        #expect(replay.status == 1)
        #expect(replay.stderr.contains("replayed"), "\(replay.stderr)")
        let forged = try await CLITests.run(["callback", "verify", url.replacingOccurrences(of: "a%20b.txt", with: "evil.txt"), "--key", "k1=\(keyFile)", "--seen", seen])
        #expect(forged.status == 1)
        #expect(forged.stderr.contains("bad-signature"))
    }

    @Test func crashTestLosesNothingAndHandlesNothingTwice() async throws {
        let (summary, status) = try await blocking { () throws -> (String, Int32) in
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", CLITests.root.appendingPathComponent("Scripts/relay-crash.py").path, "--binary", CLITests.binary.path, "--requests", "10000"]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let summary = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (summary, process.terminationStatus)
        }
        #expect(status == 0, "\(summary)")
        #expect(summary.contains(#""acknowledged": 10000"#), "\(summary)")
        #expect(summary.contains(#""lost": 0, "handledTwice": 0"#), "\(summary)")
        #expect(!summary.contains(#""drainerKills": 0"#))
    }
}

/// Inbox records written by hand, as an older version (or another program) could have stored them.
enum RelayRecord {
    static func line(id: UUID, url: String, source: String = "old-version") -> String {
        let time = String(format: "%.6f", Date().timeIntervalSince1970)
        return #"{"v":1,"id":"\#(id.uuidString.lowercased())","time":\#(time),"source":"\#(source)","url":"\#(url)"}"# + "\n"
    }
}
