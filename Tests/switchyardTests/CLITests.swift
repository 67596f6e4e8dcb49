import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `switchyard` binary and compares stdout (and the exit status) with golden files
/// in Tests/switchyardTests/Golden. Set UPDATE_GOLDEN=1 to rewrite them after a deliberate change.
@Suite struct CLITests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let root = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    static let fixture = SharedFixtures.path("opener/openerManifest-v4-sample.json")

    static var binary: URL {
        // SWITCHYARD_CLI_BINARY runs the CLI tests against another build (CI runs the network
        // and batch suites against the release binary too: a crash once showed only there).
        if let path = ProcessInfo.processInfo.environment["SWITCHYARD_CLI_BINARY"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        // The test bundle sits in the build products directory next to the executable.
        let products = Bundle.main.bundleURL.pathExtension == "xctest" ? Bundle.main.bundleURL.deletingLastPathComponent() : Bundle.main.bundleURL
        return products.appendingPathComponent("switchyard")
    }

    struct Run: Sendable {
        var stdout: String
        var stderr: String
        var status: Int32
        /// How long the command took, from its start to its end (not counting the wait for a
        /// `blocking` slot before it started).
        var seconds: Double = 0
    }

    /// Runs the binary with `arguments` on a thread of its own (see `blocking`).
    /// - Parameter environment: variables added to this process's environment for the command.
    /// With `shell`, `arguments[0]` is the program to run instead of the binary (`/bin/sh` for
    /// a redirection the test cannot make with a pipe).
    static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], shell: Bool = false, in directory: URL? = nil) async throws -> Run {
        try await blocking { try runBlocking(arguments, stdin: stdin, environment: environment, shell: shell, in: directory) }
    }

    /// `run` for code that already runs on a thread of its own (inside `blocking`).
    static func runBlocking(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], shell: Bool = false, in directory: URL? = nil) throws -> Run {
        let out = Pipe(), err = Pipe(), input = Pipe()
        let start = Date()
        let pid = try ChildProcess.spawn(shell ? arguments[0] : binary.path, shell ? Array(arguments.dropFirst()) : arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                            directory: (directory ?? testsDirectory).path,
                            stdin: input.fileHandleForReading.fileDescriptor, stdout: out.fileHandleForWriting.fileDescriptor,
                            stderr: err.fileHandleForWriting.fileDescriptor)
        // The child has its copies; the parent keeps only its own ends, so EOF arrives.
        try input.fileHandleForReading.close()
        try out.fileHandleForWriting.close()
        try err.fileHandleForWriting.close()
        // Fed from a thread of its own while stdout is read here: a child that answers each line
        // as it reads would otherwise fill its stdout pipe while this side is still writing.
        let fed = DispatchSemaphore(value: 0)
        let feeder = input.fileHandleForWriting
        Thread {
            if let stdin { try? feeder.write(contentsOf: Data(stdin.utf8)) }  // a child may exit unread
            try? feeder.close()
            fed.signal()
        }.start()
        defer { fed.wait() }
        let errors = LogCollector(err.fileHandleForReading)  // read beside stdout, so neither pipe fills
        // A command that hangs fails its test (killed after 5 minutes) instead of stalling the suite.
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: watchdog)
        defer { watchdog.cancel() }
        let stdoutData = out.fileHandleForReading.readDataToEndOfFile()
        let stderrData = Data(errors.finished().utf8)
        let status = ChildProcess.wait(pid)
        return Run(stdout: String(decoding: stdoutData, as: UTF8.self), stderr: String(decoding: stderrData, as: UTF8.self), status: status,
                   seconds: Date().timeIntervalSince(start))
    }

    /// The stdout of a helper program (`/usr/bin/env` resolves `arguments[0]` on the PATH), started
    /// like the binary under test (see `ChildProcess`); its stderr goes to the test's.
    static func output(of arguments: [String]) async throws -> String {
        try await blocking { try outputBlocking(of: arguments) }
    }

    /// `output(of:)` for code that already runs on a thread of its own (inside `blocking`).
    static func outputBlocking(of arguments: [String]) throws -> String {
        let out = Pipe(), input = Pipe()
        let pid = try ChildProcess.spawn("/usr/bin/env", arguments, environment: ProcessInfo.processInfo.environment, directory: testsDirectory.path,
                            stdin: input.fileHandleForReading.fileDescriptor, stdout: out.fileHandleForWriting.fileDescriptor, stderr: 2)
        try input.fileHandleForReading.close()
        try input.fileHandleForWriting.close()
        try out.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        _ = ChildProcess.wait(pid)
        return String(decoding: data, as: UTF8.self)
    }

    /// Starts the service (`executable` with `arguments`: the binary, or a shell that sets limits
    /// first), waits up to 20 s for the log line that says where it listens, runs `body` with its
    /// origin, and stops it. Blocking: call it inside `blocking`. `result` is nil when the service
    /// never said where it listens; `stillRunning` is read after `body`.
    static func withService<T>(_ executable: URL, _ arguments: [String], in directory: URL? = nil, stoppedBy stop: Int32 = SIGTERM,
                               _ body: (String) throws -> T) throws -> (log: String, result: T?, stillRunning: Bool) {
        let serve = ChildProcess()
        serve.executableURL = executable
        serve.currentDirectoryURL = directory
        serve.arguments = arguments
        let pipe = Pipe()  // the service logs (JSON lines) to stderr
        serve.standardOutput = FileHandle.nullDevice
        serve.standardError = pipe
        try serve.run()
        // The log is read all the time the service runs, on a thread of its own: a service that
        // logs every request would otherwise fill the pipe and stop in the middle of a write.
        let log = LogCollector(pipe.fileHandleForReading)
        var stillRunning = false
        var result: T?
        defer {
            if serve.isRunning { serve.terminate() }
            serve.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && serve.isRunning {
            let text = log.text
            guard let range = text.range(of: #""url":"http://127.0.0.1:\d+""#, options: .regularExpression) else {
                Thread.sleep(forTimeInterval: 0.02)
                continue
            }
            result = try body(String(text[range].dropFirst(7).dropLast()))
            stillRunning = serve.isRunning
            break
        }
        if serve.isRunning { serve.signal(stop) }
        serve.waitUntilExit()
        return (log.finished(), result, stillRunning)
    }

    /// Reads a pipe to its end on a thread of its own.
    final class LogCollector: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    lock.withLock { data.append(chunk) }
                }
                done.signal()
            }
        }

        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }

        /// Everything, once every writer has closed the pipe (or what came within `timeout`
        /// seconds: a child process that inherited the pipe may hold it open).
        func finished(timeout: Double = 10) -> String {
            if done.wait(timeout: .now() + timeout) == .success { done.signal() }
            return text
        }
    }

    struct Case: Sendable, CustomStringConvertible {
        let golden: String
        let arguments: [String]
        var stdin: String? = nil
        var status: Int32 = 0
        var description: String { golden }
    }

    static let cases: [Case] = [
        Case(golden: "resolve-json", arguments: ["resolve", "--offline", "--json", "https://twitter.com/jack/status/20", "https://www.instagram.com/p/BA/", "https://example.com/nothing"], status: 1),
        Case(golden: "resolve-human", arguments: ["resolve", "--offline", "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC"]),
        Case(golden: "resolve-human-browsers", arguments: ["resolve", "--offline", "--browsers", "https://x.com/SwiftLang/status/1790000000000000000"]),
        Case(golden: "resolve-stdin-unwrap", arguments: ["resolve", "--offline", "--json"],
             stdin: "https://www.google.com/url?sa=t&url=https%3A%2F%2Fgithub.com%2Fapple%2Fswift\n\nhttps://discord.gg/swift\n"),
        Case(golden: "resolve-header", arguments: ["resolve", "--offline", "--header", "Server: Mastodon", "https://mastodon.social/@Gargron"]),
        Case(golden: "resolve-small-manifest", arguments: ["resolve", "--offline", "--json", "--manifest", "Inputs/small-manifest.json", "https://notes.example/n/abc"]),
        Case(golden: "unwrap-json", arguments: ["unwrap", "--json"],
             stdin: "https://l.facebook.com/l.php?u=https%3A%2F%2Ftwitter.com%2Fjack%2Fstatus%2F20&h=AT0\nhttps://example.com/plain\n"),
        Case(golden: "manifest-test-small", arguments: ["manifest", "test", "Inputs/small-manifest.json", "--offline"], status: 1),
        Case(golden: "manifest-test-small-json", arguments: ["manifest", "test", "Inputs/small-manifest.json", "--offline", "--json"], status: 1),
        Case(golden: "manifest-lint-broken", arguments: ["manifest", "lint", "../../Examples/broken-manifest.json"], status: 1),
        Case(golden: "manifest-lint-broken-json", arguments: ["manifest", "lint", "--json", "../../Examples/broken-manifest.json"], status: 1),
        Case(golden: "manifest-lint-syntax", arguments: ["manifest", "lint", "Inputs/syntax-error.json"], status: 2),
        Case(golden: "manifest-minify-small", arguments: ["manifest", "minify", "Inputs/small-manifest.json"]),
        Case(golden: "aasa-decide", arguments: ["aasa", "decide", "--jsonl"], stdin: try! String(contentsOfFile: testsDirectory.appendingPathComponent("Inputs/decide-cases.jsonl").path, encoding: .utf8), status: 1),
        Case(golden: "aasa-explain", arguments: ["aasa", "explain", "../../Examples/shop-aasa.json", "https://shop.example/buy/7#bottom", "--app-id", "ABCDE12345.com.example.shop"]),
        Case(golden: "aasa-explain-match", arguments: ["aasa", "explain", "../../Examples/shop-aasa.json", "https://shop.example/buy/7?ref=mail", "--app-id", "ABCDE12345.com.example.shop"]),
        Case(golden: "aasa-validate-broken", arguments: ["aasa", "validate", "../../Examples/broken-aasa.json"], status: 1),
        Case(golden: "aasa-validate-broken-json", arguments: ["aasa", "validate", "--json", "../../Examples/broken-aasa.json"], status: 1),
        Case(golden: "aasa-validate-good", arguments: ["aasa", "validate", "../../Examples/shop-aasa.json"]),
        Case(golden: "aasa-validate-legacy", arguments: ["aasa", "validate", "Inputs/legacy-aasa.json"]),
        Case(golden: "aasa-explain-legacy", arguments: ["aasa", "explain", "Inputs/legacy-aasa.json", "https://shop.example/buy/7", "--app-id", "ABCDE12345.com.example.shop"]),
        Case(golden: "aasa-explain-other-domain", arguments: ["aasa", "explain", "../../Examples/shop-aasa.json", "https://shop.example/buy/7", "--app-id", "ABCDE12345.com.example.shop", "--domain", "other.example"]),
        Case(golden: "aasa-generate-plur", arguments: ["aasa", "generate", "--routes", "../../Examples/plur-routes.yaml", "--team-id", "ABCDE12345", "--bundle-id", "community.rabble.plur"]),
        Case(golden: "route-plur", arguments: ["route", "--routes", "../../Examples/plur-routes.yaml"],
             stdin: "https://rabble.community/i/ABC\nhttps://rabble.community/i/plur://join-community?group-id=G&code=C&relay=wss%3A%2F%2Fr.example\nhttps://www.rabble.community/g/G/\nplur://group/G?relay=wss%3A%2F%2Fr.example\nhttps://rabble.community/join/G\n", status: 1),
        Case(golden: "routes-check-gaps", arguments: ["routes", "check", "--routes", "../../Examples/plur-routes.yaml", "--aasa", "../../Examples/shop-aasa.json", "--app-id", "ABCDE12345.com.example.shop"], status: 1),
    ]

    @Test(arguments: cases)
    func matchesGolden(_ c: Case) async throws {
        let result = try await Self.run(c.arguments, stdin: c.stdin)
        let goldenURL = Self.testsDirectory.appendingPathComponent("Golden/\(c.golden).txt")
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try Data(result.stdout.utf8).write(to: goldenURL)
        }
        let expected = try String(contentsOf: goldenURL, encoding: .utf8)
        #expect(result.stdout == expected, "stderr: \(result.stderr)")
        #expect(result.status == c.status, "stderr: \(result.stderr)")
    }

    /// An AASA pattern cannot say what a typed parameter accepts: `/p/*` for `/p/{id:int}` hands
    /// the app `/p/x` too. `routes check` says so as a warning (exit 0), with the URL and why.
    @Test func routesCheckWarnsWhereAPatternIsWiderThanItsTypedRoute() async throws {
        let directory = TestTemporary.root.appendingPathComponent("wider-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let routes = directory.appendingPathComponent("routes.yaml").path
        try "hosts: [shop.example]\nroutes:\n  - {name: product, pattern: \"/p/{id:int}\"}\n  - {name: shelf, pattern: \"/s/{name}\"}\n"
            .write(toFile: routes, atomically: true, encoding: .utf8)
        let aasa = directory.appendingPathComponent("aasa.json").path
        let generated = try await Self.run(["aasa", "generate", "--routes", routes, "--team-id", "ABCDE12345", "--bundle-id", "com.example.shop", "-o", aasa])
        #expect(generated.status == 0, "\(generated.stderr)")
        let check = try await Self.run(["routes", "check", "--routes", routes, "--aasa", aasa])
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        #expect(check.stdout == """
            warning: applinks.details[0].components[1]: route product: the AASA also hands https://shop.example/p/x to ABCDE12345.com.example.shop, which no route takes ("x" is not an integer for {id}); association files cannot say what {id:int} accepts, so the app opens and must show something for it [pattern-wider-than-route]
            \(routes) ↔ \(aasa): valid, 0 errors, 1 warning

            """, "\(check.stdout)")
    }

    @Test func badManifestFailsWithLocationOnStderr() async throws {
        let result = try await Self.run(["resolve", "--manifest", "Inputs/syntax-error.json", "https://a.example/"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: Inputs/syntax-error.json: line 3, column 24: invalid JSON: unexpected '\"', expected ',' or '}'\n")
    }

    @Test func unusableEntriesAreSkippedWithLocatedWarningsOrRefusedWithStrict() async throws {
        // As Opener does: the two broken entries are skipped and named, the rest still works.
        let lenient = try await Self.run(["resolve", "--manifest", "../../Examples/broken-manifest.json", "https://b.example/"])
        #expect(lenient.status == 1)  // the only action left for b.example named no app
        #expect(lenient.stdout == "no app handles this link\n")
        #expect(lenient.stderr == """
            warning: ../../Examples/broken-manifest.json: actions[0].regex: regex does not compile: the group opened at offset 20 is never closed; entry skipped [regex-invalid]
            warning: ../../Examples/broken-manifest.json: actions[1].formats[0].appId: "ghost" names no app; entry skipped [unknown-app]
            warning: ../../Examples/broken-manifest.json: 2 entries skipped; 1 actions, 0 browsers, 0 redirect rules loaded

            """)
        let strict = try await Self.run(["resolve", "--strict", "--manifest", "../../Examples/broken-manifest.json", "https://b.example/"])
        #expect(strict.status == 1)
        #expect(strict.stdout.isEmpty)
        #expect(strict.stderr.hasPrefix("error: ../../Examples/broken-manifest.json: actions[0].regex: regex does not compile"))
        #expect(strict.stderr.contains("(--strict refuses the manifest)"))
        let test = try await Self.run(["manifest", "test", "--strict", "--offline", "../../Examples/broken-manifest.json"])
        #expect(test.status == 1)
        #expect(test.stdout.isEmpty)
    }

    @Test func exitStatusesFollowTheConvention() async throws {
        // 1: invalid input, no result; 2: usage error, unreadable input.
        let notURL = try await Self.run(["resolve", "--offline", "not a url"])
        #expect(notURL.status == 1)
        #expect(notURL.stderr == "error: not a url: not an absolute URL (expected a scheme such as https: followed by the rest of the link)\n")
        #expect(try await Self.run(["resolve", "--offline", "https://example.com/nothing"]).status == 1)
        #expect(try await Self.run(["resolve", "--offline", "https://twitter.com/jack/status/20"]).status == 0)
        #expect(try await Self.run(["route", "--routes", "../../Examples/plur-routes.yaml"], stdin: "https://rabble.community/g/x\nhttps://elsewhere.example/\n").status == 1)
        #expect(try await Self.run(["aasa", "explain", "../../Examples/shop-aasa.json", "not a url", "--app-id", "ABCDE12345.com.example.shop"]).status == 1)
        let usage = try await Self.run(["resolve", "--no-such-flag"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("Unknown option '--no-such-flag'"))
        let missing = try await Self.run(["manifest", "lint", "Inputs/does-not-exist.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "error: cannot read 'Inputs/does-not-exist.json': no such file\n")
        let directory = try await Self.run(["aasa", "validate", "Inputs"])
        #expect(directory.status == 2)
        #expect(directory.stderr == "error: cannot read 'Inputs': it is a directory\n")
        #expect(try await Self.run(["--help"]).stdout.contains("Exit status, for every command: 0 success; 1 no result"))
        // Values that would overflow or never end are usage errors, not crashes.
        for bad in [["resolve", "--offline", "--network-timeout", "inf", "https://a.example/"], ["resolve", "--time-limit", "nan", "https://a.example/"],
                    ["callback", "build", "--scheme", "h", "--action", "a", "--expires-in", "1e300"], ["serve", "--port", "99999"]] {
            let r = try await Self.run(bad)
            #expect(r.status == 2, "\(bad): \(r.stderr)")
        }
        let unwrapBad = try await Self.run(["unwrap", "not a url"])
        #expect(unwrapBad.status == 1)
        #expect(unwrapBad.stdout.isEmpty)
    }

    /// Links are read as a browser reads them before rules and routes see them: case, default
    /// port, dot segments and backslashes (`BrowserURL`); the input is still printed as given.
    @Test func linksAreReadAsABrowserReadsThem() async throws {
        let resolved = try await Self.run(["resolve", "--offline", "HTTPS://TWITTER.COM:443/a/../jack/status/20", "https:\\\\twitter.com\\jack\\status\\20"])
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.stdout == "HTTPS://TWITTER.COM:443/a/../jack/status/20\n  X (Twitter) → twitter://status?id=20\nhttps:\\\\twitter.com\\jack\\status\\20\n  X (Twitter) → twitter://status?id=20\n", "\(resolved.stdout)")
        let routed = try await Self.run(["route", "--routes", "../../Examples/plur-routes.yaml", "https://rabble.community\\g\\G"])
        #expect(routed.status == 0 && routed.stdout.hasPrefix("https://rabble.community\\g\\G → group(groupId: G)"), "\(routed.stdout)")
    }

    @Test func readsFilesFromPipes() async throws {
        let aasa = try String(contentsOfFile: Self.testsDirectory.appendingPathComponent("../../Examples/shop-aasa.json").path, encoding: .utf8)
        let result = try await Self.run(["aasa", "validate", "/dev/stdin"], stdin: aasa)
        #expect(result.stdout == "/dev/stdin: valid, 0 errors, 0 warnings\n")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lint = try await Self.run(["manifest", "lint", "/dev/stdin"], stdin: "{\"apps\": [], \"actions\": []}")
        #expect(lint.stdout == "/dev/stdin: 0 errors, 0 warnings\n")
    }

    @Test(.needsSharedFixtures) func fixtureManifestTestLastLine() async throws {
        try #require(FileManager.default.fileExists(atPath: Self.fixture), "fixture missing: \(Self.fixture)")
        let result = try await Self.run(["manifest", "test", Self.fixture, "--offline"])
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.last == "927 passed, 1 failed, 137 skipped")
        #expect(result.stdout.contains("FAIL redirects[8] #1"))
        #expect(result.status == 1)
        // The sample's only findings are seven regexes that can backtrack catastrophically
        // (e.g. actions[173]'s `(?:.+\.)+webex\.com`; RegexBudgetTests shows they really do).
        let lint = try await Self.run(["manifest", "lint", Self.fixture])
        let findings = lint.stdout.split(separator: "\n")
        #expect(findings.last == "\(Self.fixture): 0 errors, 7 warnings")
        #expect(findings.dropLast().allSatisfy { $0.hasPrefix("warning: ") && $0.hasSuffix("[regex-catastrophic]") }, "\(lint.stdout)")
        #expect(findings.contains { $0.hasPrefix("warning: actions[173].regex: the repeated group (?:.+\\.)+ contains .+") })
        #expect(lint.status == 0)
    }

    @Test func stdinStreamsOneLinePerInputInOrder() async throws {
        let urls = (0..<50).map { "https://twitter.com/u\($0)/status/\($0)" }
        let result = try await Self.run(["resolve", "--offline", "--json"], stdin: urls.joined(separator: "\n"))
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 50)
        for (line, url) in zip(lines, urls) { #expect(line.hasPrefix("{\"input\":\"\(url)\"")) }
    }
}
