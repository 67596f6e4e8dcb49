import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing

/// Stdin batches of 100,000 lines through the built binary: every command streams them with
/// flat memory, writes one result per line in input order, and exits at end of input.
@Suite(.serialized) struct BatchCLITests {
    struct Outcome: Sendable {
        /// How many lines the command wrote.
        var count: Int
        /// Line `i` (0-based) for every sampled index; every line when there are at most 1,000.
        var lines: [Int: String]
        var status: Int32
        var exitedNormally: Bool
        /// Peak resident memory of the command, in KiB.
        var peakKiB: Int
        var stderr: String
        /// How long the command took (not counting the wait for a `blocking` slot).
        var seconds: Double = 0
    }

    /// Runs the binary under a small Python wrapper that streams `input` from a file, reports
    /// the child's peak RSS, counts the output lines and keeps every `stride`-th one (a resolve
    /// of 100,000 links writes hundreds of megabytes), with a time limit.
    static func run(_ arguments: [String], input: [String], stride: Int = 997, timeLimit: Double = 600, environment: [String: String] = [:]) async throws -> Outcome {
        try await blocking { try runBlocking(arguments, input: input, stride: stride, timeLimit: timeLimit, environment: environment) }
    }

    static func runBlocking(_ arguments: [String], input: [String], stride: Int, timeLimit: Double, environment: [String: String] = [:]) throws -> Outcome {
        let directory = TestTemporary.root.appendingPathComponent("switchyard-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inFile = directory.appendingPathComponent("in.txt"), outFile = directory.appendingPathComponent("out.txt")
        try Data((input.joined(separator: "\n") + "\n").utf8).write(to: inFile)
        let wrapper = """
            import resource, subprocess, sys, json
            args = json.loads(sys.argv[1]); stride = int(sys.argv[5])
            with open(sys.argv[2], 'rb') as i, open(sys.argv[3], 'wb') as o:
                try:
                    p = subprocess.run(args, stdin=i, stdout=o, stderr=subprocess.PIPE, timeout=float(sys.argv[4]))
                    code, err = p.returncode, p.stderr.decode(errors='replace')[-4000:]
                except subprocess.TimeoutExpired:
                    code, err = 'timeout', ''
            count, kept = 0, {}
            with open(sys.argv[3], 'rb') as o:
                for n, line in enumerate(o):
                    count += 1
                    text = line.rstrip(b'\\n').decode(errors='replace')
                    if n % stride == 0 or n < 1000: kept[n] = text
            if count > 1000: kept = {k: v for k, v in kept.items() if k % stride == 0}
            if count: kept[count - 1] = text
            print(json.dumps({"code": code, "rss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "stderr": err, "count": count, "lines": kept}))
            """
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let command = String(decoding: try JSONSerialization.data(withJSONObject: [CLITests.binary.path] + arguments), as: UTF8.self)
        process.arguments = ["python3", "-c", wrapper, command, inFile.path, outFile.path, String(timeLimit), String(stride)]
        process.currentDirectoryURL = CLITests.testsDirectory
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let pipe = Pipe()
        process.standardOutput = pipe
        let start = Date()
        try process.run()
        let report = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        let summary = try #require(try JSONSerialization.jsonObject(with: report) as? [String: Any])
        let code = summary["code"] as? Int
        var lines: [Int: String] = [:]
        for (k, v) in summary["lines"] as? [String: String] ?? [:] { lines[Int(k)!] = v }
        return Outcome(
            count: summary["count"] as? Int ?? -1, lines: lines, status: Int32(code ?? -999),
            exitedNormally: code.map { $0 >= 0 } ?? false, peakKiB: summary["rss"] as? Int ?? 0, stderr: summary["stderr"] as? String ?? "",
            seconds: seconds)
    }

    /// The fixture's test inputs of actions with a `script2` format (the reproduction of the
    /// old hang at end of input), mixed with ordinary links, drawn with a fixed seed.
    static func resolveInputs(count: Int) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: CLITests.fixture))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let actions = try #require(manifest["actions"] as? [[String: Any]])
        var pool: [String] = []
        for action in actions {
            let formats = action["formats"] as? [[String: Any]] ?? []
            if formats.contains(where: { $0["script2"] != nil }) { pool += action["testInputs"] as? [String] ?? [] }
        }
        pool += ["https://example.com/a", "https://news.example.org/story/1?ref=x", "https://github.com/apple/swift", "https://en.wikipedia.org/wiki/Switch"]
        var state: UInt64 = 0x5EED
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return pool[Int(state >> 33) % pool.count]
        }
    }

    @Test(.needsSharedFixtures) func resolveStreams100kLinesInOrderAndExits() async throws {
        let inputs = try Self.resolveInputs(count: 100_000)
        let r = try await Self.run(["resolve", "--manifest", CLITests.fixture, "--offline", "--json"], input: inputs)
        #expect(r.exitedNormally, "the command did not exit by itself: \(r.stderr)")
        #expect(r.status == 1)  // some links have no app link offline: documented status 1
        #expect(r.count == inputs.count)
        for i in stride(from: 0, to: inputs.count, by: 997) {
            #expect(r.lines[i]?.hasPrefix("{\"input\":\(JSONSerialization.string(inputs[i])),") == true, "line \(i + 1) is out of order")
        }
        #expect(r.peakKiB < 300 * 1024, "peak RSS \(r.peakKiB) KiB")
    }

    @Test func unwrapRouteAndDecideStream100kLines() async throws {
        let n = 100_000
        let unwrap = try await Self.run(["unwrap", "--json"], input: (0..<n).map { "https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.com%2F\($0)" })
        #expect(unwrap.exitedNormally && unwrap.status == 0, "\(unwrap.stderr)")
        #expect(unwrap.count == n)
        #expect(unwrap.lines[n - 1] == #"{"input":"https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.com%2F99999","output":"https://example.com/99999"}"#)
        #expect(unwrap.peakKiB < 150 * 1024, "peak RSS \(unwrap.peakKiB) KiB")

        let route = try await Self.run(["route", "--routes", "../../Examples/plur-routes.yaml", "--json"], input: (0..<n).map { "https://rabble.community/g/group\($0)" })
        #expect(route.exitedNormally && route.status == 0, "\(route.stderr)")
        #expect(route.count == n)
        #expect(route.lines[n - 1]?.contains("group99999") == true)
        #expect(route.peakKiB < 150 * 1024, "peak RSS \(route.peakKiB) KiB")

        let aasa = #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/buy/*"}]}]}}"#
        let decide = try await Self.run(["aasa", "decide", "--jsonl"], input: (0..<n).map {
            #"{"id": \#($0), "aasa": \#(aasa), "appId": "ABCDE12345.com.example.app", "url": "https://shop.example/\#($0 % 2 == 0 ? "buy" : "sell")/\#($0)"}"#
        })
        #expect(decide.exitedNormally && decide.status == 0, "\(decide.stderr)")
        #expect(decide.count == n)
        #expect(decide.lines[0] == #"{"id":0,"decision":"match"}"#)
        #expect(decide.lines[n - 1] == #"{"id":99999,"decision":"no_match"}"#)
        #expect(decide.peakKiB < 150 * 1024, "peak RSS \(decide.peakKiB) KiB")
    }

    /// A slow producer (`tail -f log | switchyard resolve`) sees each result as soon as its line
    /// arrives, not after a chunk of lines.
    @Test func resolveAnswersEachLineWhileStdinStaysOpen() async throws {
        let seconds = try await blocking { () throws -> Double in
            let process = ChildProcess()
            process.executableURL = CLITests.binary
            process.arguments = ["resolve", "--offline", "--json"]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { try? input.fileHandleForWriting.close(); process.waitUntilExit() }
            let start = Date()
            // If no answer comes, stop the command so that the read below ends.
            DispatchQueue.global().asyncAfter(deadline: .now() + 20) { if process.isRunning { process.terminate() } }
            input.fileHandleForWriting.write(Data("https://twitter.com/jack/status/20\n".utf8))
            var text = ""
            while !text.contains("\n") && Date().timeIntervalSince(start) < 20 {
                text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            }
            return text.hasPrefix(#"{"input":"https://twitter.com/jack/status/20""#) ? Date().timeIntervalSince(start) : -1
        }
        #expect(seconds >= 0 && seconds < 10, "no answer while stdin was open (\(seconds))")
    }

    /// An over-long line is never kept in memory, and it still gets its output line (an error in
    /// its place), so output lines keep matching input lines in every batch command.
    @Test func anOverlongLineGetsAnErrorLineInItsPlace() async throws {
        let long = "https://example.com/" + String(repeating: "a", count: 70_000)
        let message = "70020 bytes, over the 65536-byte limit; not read"
        let unwrap = try await Self.run(["unwrap"], input: ["https://example.com/1", long, "https://example.com/2"])
        #expect(unwrap.exitedNormally && unwrap.status == 1)
        #expect(unwrap.lines == [0: "https://example.com/1", 1: "error: stdin line 2: \(message)", 2: "https://example.com/2"], "\(unwrap.lines)")
        let json = try await Self.run(["unwrap", "--json"], input: ["https://example.com/1", long, "https://example.com/2"])
        #expect(json.lines[1] == #"{"input":null,"line":2,"error":{"code":"line-too-long","message":"\#(message)"}}"#, "\(json.lines)")
        let route = try await Self.run(["route", "--routes", "../../Examples/plur-routes.yaml"], input: ["https://rabble.community/g/a", long, "https://rabble.community/g/b"])
        #expect(route.count == 3 && route.lines[1] == "stdin line 2 → error: \(message)", "\(route.lines)")
        let resolve = try await Self.run(["resolve", "--offline", "--json"], input: ["https://example.com/1", long, "https://example.com/2"])
        #expect(resolve.count == 3 && resolve.lines[1]?.hasPrefix(#"{"input":null,"line":2,"error":{"code":"line-too-long""#) == true, "\(resolve.lines)")
        let decide = try await Self.run(["aasa", "decide", "--jsonl"], input: ["{}", String(repeating: "x", count: 300_000), "{}"])
        #expect(decide.count == 3 && decide.lines[1]?.hasPrefix(#"{"id":null,"line":2,"error":{"code":"line-too-long""#) == true, "\(decide.lines)")
    }
}
