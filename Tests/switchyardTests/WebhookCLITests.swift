import SwitchyardTestSupport
import SwitchyardCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Webhooks as an operator runs them: the built `serve`, a real receiver process that checks
/// signatures with the webhooks guide's own snippet, and a SIGKILL of the service mid-delivery.
@Suite struct WebhookCLITests {
    /// The Python `verify` function in docs/webhooks.md, between `<!-- webhook-verify -->` and
    /// the end of the code block after it.
    static func guideSnippet() throws -> String {
        let guide = try String(contentsOf: CLITests.root.appendingPathComponent("docs/webhooks.md"), encoding: .utf8)
        let marker = try #require(guide.range(of: "<!-- webhook-verify -->"), "docs/webhooks.md has no <!-- webhook-verify --> snippet")
        let rest = guide[marker.upperBound...]
        let open = try #require(rest.range(of: "```python\n"))
        let close = try #require(rest[open.upperBound...].range(of: "\n```"))
        return String(rest[open.upperBound..<close.lowerBound]) + "\n"
    }

    /// Starts a process and returns it with the first line of its stdout.
    static func start(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (ChildProcess, String, CLITests.LogCollector) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        return (process, String(decoding: line, as: UTF8.self), CLITests.LogCollector(err.fileHandleForReading))
    }

    /// Starts `serve`, waiting for the log line that says where it listens.
    static func serve(_ arguments: [String], environment: [String: String]) throws -> (ChildProcess, String, CLITests.LogCollector) {
        let process = ChildProcess()
        process.executableURL = CLITests.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let log = CLITests.LogCollector(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && process.isRunning {
            if let range = log.text.range(of: #""url":"http://127.0.0.1:\d+""#, options: .regularExpression) {
                return (process, String(log.text[range].dropFirst(7).dropLast()), log)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        process.terminate()
        throw CancellationError()
    }

    /// Writes the example configuration with `extra` YAML after it to DIRECTORY/config.yaml.
    static func exampleConfig(in directory: URL, appending extra: String) throws -> URL {
        let example = try String(contentsOf: CLITests.root.appendingPathComponent("Sources/LinkService/Resources/example-config.yaml"), encoding: .utf8)
        let config = directory.appendingPathComponent("config.yaml")
        try Data((example + "\n" + extra).utf8).write(to: config)
        return config
    }

    static func lines(_ file: URL) -> [[String: Any]] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    static func wait(_ seconds: Double, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    /// The receiver takes the first delivery and never answers; the service is SIGKILLed while it
    /// waits. Restarted, the service sends the same event again once the lease has run out, and
    /// the receiver's copy of the guide snippet accepts both signatures.
    @Test func aDeliveryCutOffBySigkillIsSentAgainAfterRestartAndVerifiesWithTheReadmeSnippet() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        try Data(try Self.guideSnippet().utf8).write(to: directory.appendingPathComponent("verify.py"))
        let secret = "whsec-\(UUID().uuidString)"
        let received = directory.appendingPathComponent("received.jsonl")
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let created = try await CLITests.run(["token", "create", "--name", "hooks", "--scope", "links:write", "--database", database])
        let token = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        let receiverScript = CLITests.testsDirectory.appendingPathComponent("Inputs/webhook-receiver.py").path
        let example = try String(contentsOf: CLITests.root.appendingPathComponent("Sources/LinkService/Resources/example-config.yaml"), encoding: .utf8)

        let outcome = try await blocking { () throws -> (later: Int, kill: String, restart: String) in
            let (receiver, port, receiverLog) = try Self.start("/usr/bin/env", ["python3", receiverScript, directory.path, secret, received.path, "hold-first"])
            // SIGKILL: a handler thread holds the first request, and a child spawned from a test thread
            // may inherit a signal mask that keeps SIGTERM pending.
            defer { kill(receiver.processIdentifier, SIGKILL); receiver.waitUntilExit() }
            guard Int(port) != nil else { throw Failure("the receiver did not start: \(receiverLog.text)") }
            let config = directory.appendingPathComponent("config.yaml")
            try Data((example + """

                resolve: {offline: true}
                webhooks:
                  endpoints:
                    - name: crm
                      url: http://127.0.0.1:\(port)/hooks/switchyard
                      keyId: k1
                      secret: env:SWITCHYARD_WEBHOOK_SECRET
                  allowedHosts: [127.0.0.1]
                  allowPrivateAddresses: true
                  timeout: 2
                  firstRetryDelay: 0.2
                  pollInterval: 0.1

                """).utf8).write(to: config)
            let arguments = ["serve", "--config", config.path, "--port", "0", "--database", database]
            let environment = ["SWITCHYARD_WEBHOOK_SECRET": secret]

            let (first, origin, firstLog) = try Self.serve(arguments, environment: environment)
            let answer = HTTP.send("POST", origin + "/api/links", token: token, body: #"{"deepLink": "plur://group/G7", "title": "Killed mid-delivery"}"#)
            guard answer.status == 201 else { throw Failure("create: \(answer.status) \(answer.body)") }
            guard Self.wait(20, until: { Self.lines(received).count == 1 }) else { throw Failure("no first attempt: \(firstLog.text)") }
            kill(first.processIdentifier, SIGKILL)
            first.waitUntilExit()
            let kill = "\(first.terminationReason == .uncaughtSignal ? "signal" : "exit") \(first.terminationStatus)"

            let (second, _, secondLog) = try Self.serve(arguments, environment: environment)
            defer { if second.isRunning { second.terminate() }; second.waitUntilExit() }
            // The lease is the timeout (2 s) and 5 s; then the restarted service takes it again.
            guard Self.wait(30, until: { Self.lines(received).count >= 2 }) else { throw Failure("not sent again: \(secondLog.text)") }
            Thread.sleep(forTimeInterval: 1)
            let later = Self.lines(received).count
            second.terminate()
            second.waitUntilExit()
            return (later, kill, "\(second.terminationReason == .exit ? "exit" : "signal") \(second.terminationStatus)")
        }
        #expect(outcome.kill == "signal \(SIGKILL)")
        #expect(outcome.restart == "exit 0", "a graceful stop after SIGTERM")
        let records = Self.lines(received)
        #expect(outcome.later == 2, "delivered once more, then nothing: \(records)")
        try #require(records.count == 2)
        #expect(records.map { $0["attempt"] as? String } == ["1", "2"])
        #expect(records.map { $0["event"] as? String } == ["link.created", "link.created"])
        #expect(records.map { $0["path"] as? String } == ["/hooks/switchyard", "/hooks/switchyard"])
        let ids = records.compactMap { $0["id"] as? String }
        #expect(ids.count == 2 && ids[0] == ids[1] && ids[0].hasPrefix("evt_"), "\(ids)")
        #expect(records.allSatisfy { $0["verified"] as? Bool == true }, "the guide snippet accepts our signature: \(records)")
        #expect(records.allSatisfy { $0["verifiedWithAnotherBody"] as? Bool == false && $0["verifiedWithAnotherSecret"] as? Bool == false })
        let body = try #require((records.last?["body"] as? String).flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(body["id"] as? String == ids.first)
        #expect((body["data"] as? [String: Any])?["title"] as? String == "Killed mid-delivery")
        print("webhook delivery as received: \(records.last?["signature"] ?? "") \(records.last?["body"] ?? "")")
    }

    /// A bad endpoint stops `serve` at start with the key and the reason, exit status 2.
    @Test func aPlainHttpEndpointOffTheAllowlistStopsServeAtStart() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let config = try Self.exampleConfig(in: directory, appending: "webhooks:\n  endpoints:\n    - {url: 'http://hooks.example.com/x', secret: env:SWITCHYARD_WEBHOOK_SECRET}\n")
        let run = try await CLITests.run(["serve", "--config", config.path, "--port", "0", "--database", "sqlite:" + directory.appendingPathComponent("db.sqlite").path],
                                             environment: ["SWITCHYARD_WEBHOOK_SECRET": "0123456789abcdef0123"])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("webhooks.endpoints[0].url: http://hooks.example.com/… is not https; plain http is allowed only to a host in webhooks.allowedHosts"), "\(run.stderr)")
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
