import SwitchyardTestSupport
import SwitchyardCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Drives the built binary as an operator would: tokens from the CLI, and the SIGKILL
/// durability script against SQLite and (when available) PostgreSQL.
@Suite struct ServiceProcessTests {
    static var postgresURL: String? { ProcessInfo.processInfo.environment["SWITCHYARD_TEST_POSTGRES"] }
    static var toolsRequired: Bool { ProcessInfo.processInfo.environment["SWITCHYARD_REQUIRE_TOOLS"] != nil }

    static func temporaryDirectory() throws -> URL {
        let url = TestTemporary.root.appendingPathComponent("switchyard-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func tokenCreatePrintsTheTokenAloneOnTheLastLineAndStoresOnlyItsHash() async throws {
        let db = "sqlite:" + (try Self.temporaryDirectory()).appendingPathComponent("t.sqlite").path
        let created = try await CLITests.run(["token", "create", "--name", "deploy", "--scope", "links:write", "--database", db])
        #expect(created.status == 0)
        let token = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        #expect(token.hasPrefix("sy_") && token.count == 3 + 12 + 1 + 43)
        #expect(created.stderr.contains("shown once"))
        let file = try Data(contentsOf: URL(fileURLWithPath: String(db.dropFirst("sqlite:".count))))
        let secret = String(token.split(separator: "_", maxSplits: 2)[2])
        #expect(file.range(of: Data(secret.utf8)) == nil, "the secret must not be stored")
        let list = try await CLITests.run(["token", "list", "--json", "--database", db])
        #expect(list.stdout.contains(#""name":"deploy","scopes":["links:write"]"#))
        #expect(!list.stdout.contains(secret))
        #expect(try await CLITests.run(["token", "revoke", "deploy", "--database", db]).stdout == "revoked 1 token\n")
        let again = try await CLITests.run(["token", "revoke", "deploy", "--database", db])
        #expect(again.status == 1)
        #expect(again.stderr.contains("no active token"))
        // The database by its full path, wherever the command runs; a name names one active token.
        let path = String(db.dropFirst("sqlite:".count))
        let ops = try await CLITests.run(["token", "create", "--name", "ops", "--database", db])
        #expect(ops.stderr.contains("in sqlite:\(URL(fileURLWithPath: path).standardizedFileURL.path). It is shown once"), "\(ops.stderr)")
        let twice = try await CLITests.run(["token", "create", "--name", "ops", "--database", db])
        #expect(twice.status == 1 && twice.stderr.contains("an active token is already named \"ops\""), "\(twice.stderr)")
        let badScope = try await CLITests.run(["token", "create", "--name", "x", "--scope", "root", "--database", db])
        #expect(badScope.status != 0)
        #expect(badScope.stderr.contains("unknown scope 'root'"))
        let badDB = try await CLITests.run(["token", "create", "--name", "x", "--database", "mysql://x"])
        #expect(badDB.status == 2)
        #expect(badDB.stderr.contains("expected sqlite:PATH or postgres://"))
    }

    static var databases: [String] { postgresURL != nil || toolsRequired ? ["sqlite", "postgres"] : ["sqlite"] }

    @Test(arguments: databases)
    func sigkillDuringCreatesLosesNoAcknowledgedLink(_ kind: String) async throws {
        var arguments = [CLITests.root.appendingPathComponent("Scripts/durability.py").path, "--binary", CLITests.binary.path, "--rounds", "2"]
        if kind == "postgres" {
            arguments += ["--database", try #require(Self.postgresURL, "SWITCHYARD_TEST_POSTGRES is not set; run bash .ci/run")]
        }
        let command = arguments
        let (summary, status) = try await blocking { () throws -> (String, Int32) in
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3"] + command
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (String(decoding: data, as: UTF8.self), process.terminationStatus)
        }
        #expect(status == 0, "\(summary)")
        #expect(summary.contains(#""missing": 0, "wrong": 0"#), "\(summary)")
        #expect(!summary.contains(#""acknowledged": 0,"#))
    }

    /// Three clicks on a new link of `serve` on `database`, stopped by `signal`, then what a
    /// second `serve` on the same database says of the link (its JSON).
    static func clicksAfterAStop(database: String, stoppedBy signal: Int32, tag: String) async throws -> String? {
        // A PostgreSQL database outlives one run: names of this run's own.
        let name = "\(tag)-\(UUID().uuidString.prefix(8))"
        let created = try await CLITests.run(["token", "create", "--name", name, "--database", database])
        let token = try #require(created.stdout.split(separator: "\n").last.map(String.init), "\(created.stderr)")
        let first = try await blocking { () throws -> (log: String, result: String?, stillRunning: Bool) in
            try CLITests.withService(CLITests.binary, ["serve", "--port", "0", "--database", database], stoppedBy: signal) { service -> String in
                let made = HTTP.send("POST", service + "/api/links", token: token, body: #"{"deepLink": "plur://group/\#(name)"}"#)
                guard made.status == 201, let range = made.body.range(of: #""code":"[^"]+""#, options: .regularExpression) else { return "create: \(made.status) \(made.body)" }
                let code = String(made.body[range].dropFirst(8).dropLast())
                for _ in 0..<3 { _ = HTTP.send("GET", service + "/i/\(code)") }
                return code
            }
        }
        let code = try #require(first.result, "\(first.log)")
        try #require(!code.hasPrefix("create:"), "\(code)")
        #expect(!first.log.contains(#""level":"error""#), "\(first.log)")
        return try await blocking { () throws -> String? in
            try CLITests.withService(CLITests.binary, ["serve", "--port", "0", "--database", database]) { service in
                HTTP.send("GET", service + "/api/links/\(code)", token: token).body
            }.result
        }
    }

    /// A public URL off the route table's hosts builds links that never open the app: `serve`
    /// starts and says so at once; the example configuration's own gets no such warning.
    @Test func servePublicURLOffTheHostsIsWarnedAtStart() async throws {
        let directory = try Self.temporaryDirectory()
        let example = try String(contentsOf: CLITests.root.appendingPathComponent("Sources/LinkService/Resources/example-config.yaml"), encoding: .utf8)
        let config = directory.appendingPathComponent("off.yaml")
        try example.replacingOccurrences(of: "publicURL: https://rabble.community", with: "publicURL: https://go.rabble.example")
            .write(to: config, atomically: true, encoding: .utf8)
        for (file, warned) in [(config.path, true), (CLITests.root.appendingPathComponent("Sources/LinkService/Resources/example-config.yaml").path, false)] {
            let run = try await blocking {
                try CLITests.withService(CLITests.binary, ["serve", "--port", "0", "--config", file, "--database", "sqlite:" + directory.appendingPathComponent("w.sqlite").path]) { service in
                    HTTP.send("GET", service + "/healthz").status
                }
            }
            #expect(run.result == 200, "\(run.log)")
            let line = "service.publicURL: https://go.rabble.example is not on the route table's hosts (rabble.community, www.rabble.community): the links and pages built on it are no universal links or App Links, so they never open the app; put go.rabble.example in hosts, or give publicURL one of them"
            #expect(run.log.contains(line) == warned, "\(run.log)")
        }
    }

    /// A database others may read is warned of when `serve` starts, with the mend; the one it
    /// made itself is not.
    @Test func aDatabaseOthersMayReadIsWarnedAtStart() async throws {
        let path = try Self.temporaryDirectory().appendingPathComponent("shared.sqlite").path
        for (mode, warned) in [(nil, false), (0o640, true)] as [(Int?, Bool)] {
            if let mode { try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path) }
            let run = try await blocking {
                try CLITests.withService(CLITests.binary, ["serve", "--port", "0", "--database", "sqlite:" + path]) { service in
                    HTTP.send("GET", service + "/healthz").status
                }
            }
            #expect(run.result == 200, "\(run.log)")
            #expect(run.log.contains("sqlite:\(path) may be read by other users (mode 640)") == warned, "\(run.log)")
            #expect(run.log.contains("run chmod 600 \(path)") == warned, "\(run.log)")
        }
    }

    /// SIGHUP stops `serve` as SIGTERM does: gracefully, with the clicks held in memory written
    /// (it does not reload: the configuration and templates are read at start).
    @Test func sighupStopsServeGracefully() async throws {
        let directory = TestTemporary.root.appendingPathComponent("hup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let counted = try await Self.clicksAfterAStop(database: "sqlite:" + directory.appendingPathComponent("links.sqlite").path, stoppedBy: SIGHUP, tag: "hup")
        #expect(counted?.contains(#""clicks":3"#) == true, "the clicks held in memory were written at SIGHUP: \(counted ?? "nothing")")
    }

    /// On PostgreSQL `serve` runs the connection pool in its ServiceGroup: migrated before it
    /// listens, and stopped only after the click flusher's last write at SIGTERM. A database that
    /// cannot be reached ends `serve` with the reason and status 2.
    @Test func servePostgresPoolStopsAfterTheLastClickWrite() async throws {
        guard let database = Self.postgresURL else {
            try #require(!Self.toolsRequired, "SWITCHYARD_TEST_POSTGRES is not set; run bash .ci/run")
            return
        }
        let counted = try await Self.clicksAfterAStop(database: database, stoppedBy: SIGTERM, tag: "pool")
        #expect(counted?.contains(#""clicks":3"#) == true, "the clicks held in memory were written at SIGTERM: \(counted ?? "nothing")")

        // Nothing listening: said as such, from the connection attempt, not by the 15 s timeout a
        // wrong password gets (whose message differs). No time bound: a loaded machine stretches
        // a process's start far more than the attempt takes.
        let unreachable = try await CLITests.run(["serve", "--port", "0", "--database", "postgres://nobody:x@127.0.0.1:1/none?sslmode=disable"])
        #expect(unreachable.status == 2)
        #expect(unreachable.stderr.hasSuffix("error: postgres://nobody@127.0.0.1:1/none: connection refused\n"), "\(unreachable.stderr)")
    }

    /// The red-team case: the disk fills up under a running service. Here the service may not
    /// grow any file past 128 KiB (`ulimit -f`, SIGXFSZ ignored, so a write fails with EFBIG as
    /// it would with ENOSPC); links go in until a write fails.
    @Test func aFullDiskTurnsHealthTo503DegradedWithRetryAfter() async throws {
        let directory = try Self.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let created = try await CLITests.run(["token", "create", "--name", "t", "--scope", "links:write", "--database", database])
        let token = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        // The example configuration without its rate limits, so the writes are not throttled first.
        let example = try String(contentsOf: CLITests.root.appendingPathComponent("Sources/LinkService/Resources/example-config.yaml"), encoding: .utf8)
        var keep = true
        let lines = example.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if let first = line.first, first != " " { keep = !line.hasPrefix("rateLimit:") }
            return keep
        }
        let config = directory.appendingPathComponent("config.yaml")
        try Data((lines.joined(separator: "\n") + """

            rateLimit:
              perToken: {perMinute: 1000000, burst: 100000}
              perAddress: {perMinute: 1000000, burst: 100000}
            resolve: {offline: true}

            """).utf8).write(to: config)
        let (log, outcome) = try await blocking { () throws -> (String, [String]) in
            let run = try CLITests.withService(URL(fileURLWithPath: "/bin/sh"), ["-c", #"trap "" XFSZ; ulimit -f 256; exec "$@""#, "sh", CLITests.binary.path,
                                                                                 "serve", "--config", config.path, "--port", "0", "--database", database]) { service in
                var outcome: [String] = []
                let before = HTTP.send("GET", service + "/healthz")
                outcome.append("before \(before.status) \(before.body)")
                let description = String(repeating: "d", count: 900)
                for i in 0..<500 {
                    let r = HTTP.send("POST", service + "/api/links", token: token,
                                      body: #"{"deepLink": "plur://group/\#(i)", "description": "\#(description)"}"#)
                    guard r.status == 201 else {
                        outcome.append("write \(i) \(r.status) retry-after=\(r.retryAfter ?? "none") \(r.body)")
                        break
                    }
                }
                let after = HTTP.send("GET", service + "/healthz")
                outcome.append("after \(after.status) retry-after=\(after.retryAfter ?? "none") \(after.body)")
                return outcome
            }
            return (run.log, run.result ?? [])
        }
        try #require(outcome.count == 3, "\(outcome)\n\(log)")
        #expect(outcome[0].hasPrefix(#"before 200 {"status":"ok""#), "\(outcome[0])")
        #expect(outcome[1].contains(#" 503 retry-after=5 {"error":{"code":"storage-unavailable""#), "\(outcome[1])")
        #expect(outcome[2].hasPrefix(#"after 503 retry-after=5 {"status":"degraded","database":"sqlite","storage":{"writable":false,"reason":"sqlite: "#),
                "\(outcome[2])")
        #expect(outcome[2].contains(#""by":"write""#), "\(outcome[2])")
    }
}

/// Blocking HTTP for tests that already run on a thread of their own.
enum HTTP {
    struct Answer: Sendable {
        var status: Int
        var retryAfter: String?
        var body: String
    }

    private final class Slot: @unchecked Sendable {
        var answer = Answer(status: 0, body: "")
    }

    /// A session that answers a redirect with the redirect itself.
    private final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) { completionHandler(nil) }
    }
    private static let unredirected = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)

    /// `following`: false answers a redirect with the redirect (its status), not where it leads.
    static func send(_ method: String, _ url: String, token: String? = nil, body: String? = nil, headers: [String: String] = [:], following: Bool = true) -> Answer {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        // A person's browser: URLSession's own User-Agent names curl, which is not a person.
        request.setValue("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", forHTTPHeaderField: "User-Agent")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let slot = Slot()
        let done = DispatchSemaphore(value: 0)
        (following ? URLSession.shared : unredirected).dataTask(with: request) { data, response, error in
            let http = response as? HTTPURLResponse
            slot.answer = Answer(status: http?.statusCode ?? -1, retryAfter: http?.value(forHTTPHeaderField: "Retry-After"),
                                 body: data.map { String(decoding: $0, as: UTF8.self) } ?? "\(error.map { "\($0)" } ?? "no answer")")
            done.signal()
        }.resume()
        done.wait()
        return slot.answer
    }
}
