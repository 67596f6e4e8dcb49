import SwitchyardTestSupport
import SwitchyardCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The third hostile-use round (issue 24), through the built binary: a relay handler's
/// background child, secrets in a debug log, and a reordered signed callback.
@Suite struct HostileUseCLITests {
    /// Writes an executable shell script and returns its path.
    static func script(_ directory: URL, _ name: String, _ body: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(("#!/bin/sh\n" + body + "\n").utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o755)
        return path
    }

    /// A handler that leaves a child running in the background (holding nothing of ours) ends
    /// its attempt when it exits: the next request reaches the handler at once, not when the
    /// child ends. A handler that hangs is stopped with its whole process group at the timeout,
    /// and SIGTERM stops the watcher within a second, whatever a handler left behind.
    @Test func aHandlersBackgroundChildDoesNotStallTheRelay() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let inbox = directory.appendingPathComponent("inbox").path
        let handled = directory.appendingPathComponent("handled.log").path
        let marker = "sy-bg-\(UUID().uuidString.prefix(8))"
        let handler = try Self.script(directory, "h.sh", """
            echo "$1" >> \(handled)
            case "$1" in
              *bg*) sleep 20 >/dev/null 2>&1 </dev/null & ;;
              *detached*) setsid sh -c 'exec -a \(marker) sleep 300' >/dev/null 2>&1 </dev/null & ;;
              *hang*) sleep 300 ;;
            esac
            exit 0
            """)
        for url in ["plur://x/bg", "plur://x/next", "plur://x/detached", "plur://x/after-detached", "plur://x/hang", "plur://x/after-hang"] {
            #expect(try await CLITests.run(["relay", "send", url, "--inbox", inbox]).status == 0)
        }
        let start = Date()
        let watch = try RelayCLITests.startWatch(["relay", "watch", "--inbox", inbox, "--open-with", handler, "--handler-timeout", "2", "--max-attempts", "1"])
        defer { kill(watch.processIdentifier, SIGKILL) }
        func lines() -> [String] { ((try? String(contentsOfFile: handled, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init) }
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && lines().count < 6 { try await Task.sleep(for: .milliseconds(20)) }
        let elapsed = Date().timeIntervalSince(start)
        #expect(lines() == ["plur://x/bg", "plur://x/next", "plur://x/detached", "plur://x/after-detached", "plur://x/hang", "plur://x/after-hang"])
        // Five handlers that exit at once and one stopped at its 2 s limit: not the 20 s or 300 s
        // of the children (a loaded machine gets a wide margin).
        #expect(elapsed < 12, "six requests took \(elapsed) s")
        let stopAsked = Date()
        watch.terminate()
        await watch.waitForExit()
        #expect(Date().timeIntervalSince(stopAsked) < 3, "the watcher took \(Date().timeIntervalSince(stopAsked)) s to stop")
        // The hung handler's group was ended; the detached child (its own session) is left to the user.
        let leftover = try await CLITests.run(["/bin/sh", "-c", "pgrep -f \(marker) || true"], shell: true)
        for pid in leftover.stdout.split(separator: "\n").compactMap({ Int32($0) }) { kill(pid, SIGKILL) }
    }

    /// A handler that leaves its own process group (so a signal to the group misses it) is still
    /// stopped at its time limit, and SIGTERM still stops the watcher; a handler whose path has
    /// spaces runs, quoted or named whole, and an open quote is a usage error.
    @Test func aHandlerThatLeavesItsGroupIsStillStoppedAndPathsWithSpacesRun() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let inbox = directory.appendingPathComponent("inbox").path
        let escaper = directory.appendingPathComponent("escaper.py").path
        try Data("""
            #!/usr/bin/env python3
            import os, sys, time
            os.setpgid(0, os.getpgid(os.getppid()))
            time.sleep(60)

            """.utf8).write(to: URL(fileURLWithPath: escaper))
        chmod(escaper, 0o755)
        #expect(try await CLITests.run(["relay", "send", "plur://x/escape", "--inbox", inbox]).status == 0)
        let watch = ChildProcess()
        watch.executableURL = CLITests.binary
        watch.arguments = ["relay", "watch", "--inbox", inbox, "--open-with", escaper, "--handler-timeout", "1", "--max-attempts", "1"]
        let err = Pipe()
        watch.standardError = err
        watch.standardOutput = FileHandle.nullDevice
        try watch.run()
        defer { kill(watch.processIdentifier, SIGKILL) }
        let log = CLITests.LogCollector(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && !log.text.contains("did not finish within") { try await Task.sleep(for: .milliseconds(50)) }
        #expect(log.text.contains("did not finish within 1.0 s and was stopped"), "\(log.text)")
        let stopAsked = Date()
        watch.terminate()
        await watch.waitForExit()
        #expect(Date().timeIntervalSince(stopAsked) < 4)

        let spaced = directory.appendingPathComponent("my handlers")
        try FileManager.default.createDirectory(at: spaced, withIntermediateDirectories: true)
        let record = directory.appendingPathComponent("spaced.log").path
        let handler = try Self.script(spaced, "h.sh", "echo \"$1\" >> \(record)")
        // One request and one watcher per form of the command, stopped once its request is
        // journalled as handled: stopped while the handler still ran, the watcher would stop it
        // and the request would rightly be handled again (at least once) by the next watcher.
        for (url, command, queue) in [("plur://x/whole", handler, inbox + "2"), ("plur://x/quoted", "'\(handler)'", inbox + "3")] {
            _ = try await CLITests.run(["relay", "send", url, "--inbox", queue])
            let run = try RelayCLITests.startWatch(["relay", "watch", "--inbox", queue, "--open-with", command])
            let until = Date().addingTimeInterval(30)
            while Date() < until, !(try await CLITests.run(["relay", "status", "--inbox", queue, "--json"]).stdout.contains(#""pending":0"#)) {
                try await Task.sleep(for: .milliseconds(50))
            }
            run.terminate()
            await run.waitForExit()
        }
        #expect(((try? String(contentsOfFile: record, encoding: .utf8)) ?? "") == "plur://x/whole\nplur://x/quoted\n")
        for bad in ["'unclosed", "''", "   ", "trailing\\", "\n", "\r\n"] {
            let open = try await CLITests.run(["relay", "watch", "--inbox", inbox, "--open-with", bad])
            #expect(open.status == 2 && open.stderr.contains("--open-with has no command, or a quote or a backslash left open"), "\(bad): \(open.stderr)")
        }
        // A mistyped handler is refused at start: it would spend every request's retries.
        for missing in ["/nonexistent/handler", "no-such-program-here --flag", directory.path] {
            let open = try await CLITests.run(["relay", "watch", "--inbox", inbox, "--open-with", missing])
            #expect(open.status == 2 && open.stderr.contains("is not an executable file or a program in PATH"), "\(missing): \(open.stderr)")
        }
    }

    /// SIGTERM while a handler is running: the watcher stops within a second or two and the
    /// request stays in the inbox for the next watcher.
    @Test func sigtermStopsTheWatcherDuringAHandler() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let inbox = directory.appendingPathComponent("inbox").path
        let started = directory.appendingPathComponent("started").path
        let handler = try Self.script(directory, "slow.sh", "touch \(started)\nsleep 300\n")
        #expect(try await CLITests.run(["relay", "send", "plur://x/slow", "--inbox", inbox]).status == 0)
        let watch = try RelayCLITests.startWatch(["relay", "watch", "--inbox", inbox, "--open-with", handler, "--handler-timeout", "600", "--max-attempts", "1"])
        defer { kill(watch.processIdentifier, SIGKILL) }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && !FileManager.default.fileExists(atPath: started) { try await Task.sleep(for: .milliseconds(20)) }
        #expect(FileManager.default.fileExists(atPath: started))
        let stopAsked = Date()
        watch.terminate()
        await watch.waitForExit()
        #expect(Date().timeIntervalSince(stopAsked) < 4, "the watcher took \(Date().timeIntervalSince(stopAsked)) s to stop")
        // Stopping is not the handler failing: no attempt is counted, nothing is rejected.
        let status = try await CLITests.run(["relay", "status", "--inbox", inbox, "--json"]).stdout
        #expect(status.contains(#""pending":1"#) && status.contains(#""rejected":0"#), "\(status)")
        #expect(((try? String(contentsOfFile: inbox + "/attempts", encoding: .utf8)) ?? "").isEmpty)
    }

    /// `serve --log-level debug` with a webhook whose URL carries an API key and whose secret is
    /// set, an API token, a transaction verified and a page visited: no line of the log holds
    /// the key, the secret (as text or bytes), the token's secret or the transaction id.
    @Test func aDebugLogHoldsNoSecret() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let created = try await CLITests.run(["token", "create", "--name", "logs", "--scope", "links:write", "--scope", "transactions", "--database", database])
        let token = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        let tokenSecret = String(token.split(separator: "_", maxSplits: 2)[2])
        let config = try WebhookCLITests.exampleConfig(in: directory, appending: """
            resolve: {offline: true}
            webhooks:
              endpoints:
                - name: crm
                  url: http://127.0.0.1:9/PATHSECRET/x?apikey=TOPSECRETKEY
                  secret: "0123456789abcdef0123"
              allowedHosts: [127.0.0.1]
              allowPrivateAddresses: true
              firstRetryDelay: 0.1
              maxAttempts: 2
              pollInterval: 0.1

            """)
        let (serve, origin, log) = try await blocking {
            try WebhookCLITests.serve(["serve", "--config", config.path, "--port", "0", "--database", database, "--log-level", "debug"], environment: [:])
        }
        defer { kill(serve.processIdentifier, SIGKILL) }
        let transaction = try await blocking { () throws -> String in
            let link = HTTP.send("POST", origin + "/api/links", token: token, body: #"{"deepLink": "plur://group/logs"}"#)
            guard link.status == 201, let code = (try? JSONParser.parse(link.body))?["code"]?.stringValue else { throw WebhookCLITests.Failure("create: \(link.status) \(link.body)") }
            _ = HTTP.send("GET", origin + "/i/\(code)")
            _ = HTTP.send("GET", origin + "/api/links/\(code)", token: "sy_wrongid_\(tokenSecret)")
            let created = HTTP.send("POST", origin + "/api/transactions", token: token, body: #"{"purpose": "export"}"#)
            guard let id = (try? JSONParser.parse(created.body))?["id"]?.stringValue else { throw WebhookCLITests.Failure("transaction: \(created.body)") }
            guard HTTP.send("POST", origin + "/api/transactions/\(id)/verify", token: token).status == 200 else { throw WebhookCLITests.Failure("verify") }
            // The router takes repeated slashes too: the id is still kept out of the log.
            let other = HTTP.send("POST", origin + "/api/transactions", token: token, body: #"{"purpose": "again"}"#)
            guard let id2 = (try? JSONParser.parse(other.body))?["id"]?.stringValue else { throw WebhookCLITests.Failure("transaction 2") }
            _ = HTTP.send("POST", origin + "//api//transactions//\(id2)/verify", token: token)
            _ = HTTP.send("POST", origin + "/%61pi/transactions/\(id2)/verify", token: token)
            // Deliveries fail (nothing listens on port 9) and are logged, then given up.
            _ = WebhookCLITests.wait(10) { log.text.contains("webhook given up") }
            return id + " " + id2
        }
        serve.terminate()
        await serve.waitForExit()
        let text = log.finished()
        #expect(text.contains("Starting service"), "a debug log: \(text.prefix(400))")
        #expect(text.contains("webhook given up"))
        #expect(text.contains("/api/transactions/…/verify"), "the request line is there, without the id")
        for secret in ["TOPSECRETKEY", "PATHSECRET", "0123456789abcdef0123", "48, 49, 50, 51", tokenSecret] + transaction.split(separator: " ").map(String.init) {
            let hits = text.split(separator: "\n").filter { $0.contains(secret) }
            #expect(hits.isEmpty, "\(secret) in the log: \(hits.prefix(3))")
        }
    }

    /// `callback build` with a name given twice, then the two swapped in the URL: `callback
    /// verify` refuses it (the signature covers their order).
    @Test func aSignedCallbackWithItsRepeatedParametersSwappedIsRefused() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let keyFile = directory.appendingPathComponent("k1.key").path
        try Data("0123456789abcdef0123456789abcdef".utf8).write(to: URL(fileURLWithPath: keyFile))
        let built = try await CLITests.run(["callback", "build", "--scheme", "helper", "--action", "export", "--param", "file=a.txt", "--param", "file=b.txt",
                                            "--key", "k1=\(keyFile)", "--id", "req-swap"])
        #expect(built.status == 0)
        let url = built.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.contains("file=a.txt&file=b.txt"))
        let swapped = url.replacingOccurrences(of: "file=a.txt&file=b.txt", with: "file=b.txt&file=a.txt")
        let refused = try await CLITests.run(["callback", "verify", swapped, "--key", "k1=\(keyFile)", "--seen", directory.appendingPathComponent("seen").path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("bad-signature"), "\(refused.stderr)")
        let accepted = try await CLITests.run(["callback", "verify", url, "--key", "k1=\(keyFile)", "--seen", directory.appendingPathComponent("seen").path])
        #expect(accepted.status == 0 && accepted.stdout == "req-swap\n", "\(accepted.stderr)")
    }
}
