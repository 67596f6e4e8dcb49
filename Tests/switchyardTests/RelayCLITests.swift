import Foundation
import Testing

/// The relay, open and callback commands, run as a user would.
@Suite struct RelayCLITests {
    static func inbox() throws -> String {
        try ServiceProcessTests.temporaryDirectory().appendingPathComponent("inbox").path
    }

    /// Starts `switchyard` with `arguments` (a `relay watch`), its output discarded.
    static func startWatch(_ arguments: [String]) throws -> Process {
        let watch = Process()
        watch.executableURL = CLITests.binary
        watch.arguments = arguments
        watch.standardOutput = FileHandle.nullDevice
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        return watch
    }

    @Test func sendStatusWatchAndAStopOnSIGTERM() throws {
        let inbox = try Self.inbox()
        let record = inbox + "-handled.jsonl"
        let a = try CLITests.run(["relay", "send", "plur://group/a", "--inbox", inbox, "--source", "share-ext", "--meta", "k=v"])
        #expect(a.status == 0)
        let idA = a.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: idA) != nil)
        let b = try CLITests.run(["relay", "send", "--stdin", "--inbox", inbox], stdin: "plur://group/b\nplur://group/c\n")
        #expect(b.stdout.split(separator: "\n").count == 2)
        let status = try CLITests.run(["relay", "status", "--inbox", inbox, "--json"])
        #expect(status.stdout.contains(#""pending":3"#))
        #expect(status.stdout.contains(#""next":"plur://group/a""#))

        let watch = try Self.startWatch(["relay", "watch", "--inbox", inbox, "--record", record])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").count < 3 { usleep(20_000) }
        // A request sent while the watcher runs arrives through the wake-up.
        _ = try CLITests.run(["relay", "send", "plur://group/d", "--inbox", inbox])
        while Date() < deadline, ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").count < 4 { usleep(20_000) }
        let stopAsked = Date()
        watch.terminate()   // SIGTERM
        watch.waitUntilExit()
        #expect(Date().timeIntervalSince(stopAsked) < 3)
        #expect(watch.terminationReason == .exit && watch.terminationStatus == 0)
        let lines = try String(contentsOfFile: record, encoding: .utf8).split(separator: "\n")
        #expect(lines.map { $0.contains("plur://group/") }.count == 4)
        #expect(lines.first?.contains(idA) == true && lines.first?.contains(#""metadata":{"k":"v"}"#) == true)
        #expect(try CLITests.run(["relay", "status", "--inbox", inbox, "--json"]).stdout.contains(#""pending":0"#))
    }

    @Test func sendRefusesWhatThePolicyDeniesAndStoresNothing() throws {
        let inbox = try Self.inbox()
        for (url, reason) in [("javascript:alert(1)", "scheme javascript: is denied"), ("not a url", "not an absolute URL (no scheme)"),
                              ("plur://group/a b", "the URL contains a space or a control character")] {
            let r = try CLITests.run(["relay", "send", url, "--inbox", inbox])
            #expect(r.status == 1, "\(url)")
            #expect(r.stdout.isEmpty)
            #expect(r.stderr.contains(reason), "\(r.stderr)")
        }
        // A NUL (possible only on stdin) and a 10 KB URL are refused; the good line is stored.
        let huge = try CLITests.run(["relay", "send", "--stdin", "--inbox", inbox],
                                    stdin: "plur://group/a\u{0}b\nhttps://example.com/" + String(repeating: "a", count: 10_000) + "\nplur://group/ok\n")
        #expect(huge.status == 1)
        #expect(huge.stdout.split(separator: "\n").count == 1)
        #expect(huge.stderr.contains("the URL contains a space or a control character"), "\(huge.stderr)")
        #expect(huge.stderr.contains("over the 8193-byte limit; skipped"), "\(huge.stderr)")
        let status = try CLITests.run(["relay", "status", "--inbox", inbox, "--json"])
        #expect(status.stdout.contains(#""pending":1"#), "\(status.stdout)")
        #expect(status.stdout.contains(#""next":"plur://group/ok""#))
    }

    @Test func aStoredRecordThePolicyDeniesGoesToRejectedWithItsReason() throws {
        let inbox = try Self.inbox()
        _ = try CLITests.run(["relay", "send", "plur://group/first", "--inbox", inbox])
        // A record written by hand (or by an older version) that the policy refuses.
        let id = UUID().uuidString.lowercased()
        let now = String(format: "%.6f", Date().timeIntervalSince1970)
        let record = #"{"v":1,"id":"\#(id)","time":\#(now),"source":"old","url":"javascript:alert(1)"}"# + "\n"
        try Data(record.utf8).write(to: URL(fileURLWithPath: inbox + "/requests/99999999999999999999-\(id).json"))
        let handled = inbox + "-handled.jsonl"
        let watch = try Self.startWatch(["relay", "watch", "--inbox", inbox, "--record", handled])
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, ((try? FileManager.default.contentsOfDirectory(atPath: inbox + "/rejected")) ?? []).count < 2 { usleep(20_000) }
        watch.terminate()
        watch.waitUntilExit()
        let rejected = try FileManager.default.contentsOfDirectory(atPath: inbox + "/rejected").sorted()
        #expect(rejected.count == 2, "\(rejected)")
        let reason = try String(contentsOfFile: inbox + "/rejected/" + (rejected.first { $0.hasSuffix(".reason") } ?? ""), encoding: .utf8)
        #expect(reason == "scheme javascript: is denied\n")
        let delivered = try String(contentsOfFile: handled, encoding: .utf8)
        #expect(delivered.contains("plur://group/first"))
        #expect(!delivered.contains("javascript:"))
        #expect(try CLITests.run(["relay", "status", "--inbox", inbox, "--json"]).stdout.contains(#""rejected":1"#))
    }

    @Test func openWithFailingCommandLeavesTheRequestForARetry() throws {
        let inbox = try Self.inbox()
        _ = try CLITests.run(["relay", "send", "plur://group/x", "--inbox", inbox])
        let watch = Process()
        watch.executableURL = CLITests.binary
        watch.arguments = ["relay", "watch", "--inbox", inbox, "--open-with", "false"]
        let err = Pipe()
        watch.standardError = err
        watch.standardOutput = FileHandle.nullDevice
        try watch.run()
        usleep(1_200_000)
        watch.terminate()
        watch.waitUntilExit()
        let log = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(log.contains("not handled: false exited with status 1"))
        #expect(log.contains("retrying in"))
        #expect(try CLITests.run(["relay", "status", "--inbox", inbox, "--json"]).stdout.contains(#""pending":1"#))
    }

    @Test func openDryRunAndPolicy() throws {
        let inbox = try Self.inbox()
        let dry = try CLITests.run(["open", "--dry-run", "--offline", "--inbox", inbox, "https://twitter.com/jack/status/20"])
        #expect(dry.status == 0)
        #expect(dry.stdout == "would open twitter://status?id=20 (X (Twitter))\n  1. xdg-open twitter://status?id=20\n  2. then always relay to \(inbox)\n")
        let denied = try CLITests.run(["open", "--offline", "--inbox", inbox, "javascript:alert(1)"])
        #expect(denied.status == 1)
        #expect(denied.stderr.contains("scheme javascript: is denied"))
        // Direct open fails (no such command), the relay still gets it.
        let opened = try CLITests.run(["open", "--offline", "--inbox", inbox, "--open-with", "false", "https://twitter.com/jack/status/20"])
        // The direct command failed: the request was only relayed, and the output says so.
        #expect(opened.stdout == "relayed, not opened: twitter://status?id=20 (X (Twitter)) is waiting in \(inbox) for a watcher; false failed\n")
        #expect(opened.status == 0)
        #expect(opened.stderr.contains("command(false): false exited with status 1"))
        #expect(try CLITests.run(["relay", "status", "--inbox", inbox, "--json"]).stdout.contains(#""next":"twitter://status?id=20""#))
    }

    @Test func callbackBuildParseVerify() throws {
        let dir = try ServiceProcessTests.temporaryDirectory()
        let keyFile = dir.appendingPathComponent("k1.key").path
        try Data("0123456789abcdef0123456789abcdef".utf8).write(to: URL(fileURLWithPath: keyFile))
        let built = try CLITests.run(["callback", "build", "--scheme", "helper", "--action", "export", "--success", "plur://x-callback-url/ok?a=1&b=2",
                                      "--param", "file=a b.txt", "--key", "k1=\(keyFile)", "--id", "req-7"])
        #expect(built.status == 0)
        let url = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix("helper://x-callback-url/export?x-success=plur%3A%2F%2Fx-callback-url%2Fok%3Fa%3D1%26b%3D2&file=a%20b.txt&x-sy-id=req-7"))
        let parsed = try CLITests.run(["callback", "parse", url])
        #expect(parsed.stdout.contains(#""success": "plur://x-callback-url/ok?a=1&b=2""#))
        let seen = dir.appendingPathComponent("nonces").path
        #expect(try CLITests.run(["callback", "verify", url, "--key", "k1=\(keyFile)", "--seen", seen]).stdout == "req-7\n")
        // The same request again, from a new process: a replay, refused.
        let replay = try CLITests.run(["callback", "verify", url, "--key", "k1=\(keyFile)", "--seen", seen])
        #expect(replay.status == 1)
        #expect(replay.stderr.contains("replayed"), "\(replay.stderr)")
        let forged = try CLITests.run(["callback", "verify", url.replacingOccurrences(of: "a%20b.txt", with: "evil.txt"), "--key", "k1=\(keyFile)", "--seen", seen])
        #expect(forged.status == 1)
        #expect(forged.stderr.contains("bad-signature"))
    }

    @Test func crashTestLosesNothingAndHandlesNothingTwice() async throws {
        let (summary, status) = try await CLITests.blocking { () throws -> (String, Int32) in
            let process = Process()
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
