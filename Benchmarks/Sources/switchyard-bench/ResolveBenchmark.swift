import Foundation
import LinkRules

/// End-to-end `resolve` as a user runs it — the release binary reading URLs on stdin and writing
/// JSON lines (matching, formats, scripts, browsers, output, on every core) — against the
/// baseline of a plain linear scan that only matches each URL against every action's regex, on
/// the same URLs in the same run. Also runs the binary's own `--linear` mode and checks that
/// both outputs are byte for byte the same, and shows where the time goes per stage. Scripts run
/// in worker processes (the default) and, for comparison, in process (`--script-isolation none`).
enum ResolveBenchmark {
    static func run(manifestPath: String, binary: String) async throws {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            print("no binary at \(binary): run `swift build -c release` in the repository first, or pass --binary PATH")
            exit(2)
        }
        let manifest = try Manifest(contentsOf: manifestPath)
        let fixture = fixtureURLs(manifest)
        let ordinary = ordinaryURLs(count: fixture.count)
        let mixed = zip(fixture, ordinary).flatMap { [$0, $1] }
        let urls = Array(repeating: mixed, count: max(1, 40_000 / mixed.count)).flatMap { $0 }
        print("manifest: \(manifestPath) (\(manifest.actions.count) actions, \(manifest.browsers.count) browsers)")
        print("input: \(urls.count) lines (the fixture's \(fixture.count) test inputs and as many ordinary links, repeated)")

        // Baseline: match only, every regex in turn, one thread.
        let linear = LinkEngine(manifest: manifest, options: .init(offline: true, useIndex: false))
        let baselineStart = ContinuousClock.now
        var matched = 0
        for u in urls { matched &+= linear.matchingActions(u).count }
        let baseline = ContinuousClock.now - baselineStart

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.txt")
        try Data((urls.joined(separator: "\n") + "\n").utf8).write(to: input)

        func endToEnd(_ extra: [String]) throws -> (Duration, Data) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["resolve", "--manifest", manifestPath, "--offline", "--json"] + extra
            process.standardInput = try FileHandle(forReadingFrom: input)
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            let start = ContinuousClock.now
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (ContinuousClock.now - start, data)
        }
        let (indexed, indexedOutput) = try endToEnd([])
        let (scanned, scannedOutput) = try endToEnd(["--linear"])
        let (inProcess, inProcessOutput) = try endToEnd(["--script-isolation", "none"])
        let lines = indexedOutput.split(separator: UInt8(ascii: "\n")).count
        guard lines == urls.count, indexedOutput == scannedOutput, indexedOutput == inProcessOutput else {
            print("MISMATCH: resolve, resolve --linear and resolve --script-isolation none disagree (\(lines) lines for \(urls.count) inputs)")
            exit(1)
        }

        func rate(_ d: Duration) -> Double { Double(urls.count) / (Double(d.components.attoseconds) / 1e18 + Double(d.components.seconds)) }
        print(String(format: "match-only linear scan (baseline, 1 thread, in process): %8.0f URLs/s", rate(baseline)))
        print(String(format: "switchyard resolve --linear (end to end, binary):       %8.0f URLs/s  %.2fx the baseline", rate(scanned), rate(scanned) / rate(baseline)))
        print(String(format: "switchyard resolve (end to end, binary):                %8.0f URLs/s  %.2fx the baseline", rate(indexed), rate(indexed) / rate(baseline)))
        print(String(format: "switchyard resolve --script-isolation none (in process):  %8.0f URLs/s  %.2fx the baseline; worker processes cost %.2fx of it",
                     rate(inProcess), rate(inProcess) / rate(baseline), rate(indexed) / rate(inProcess)))
        print("outputs identical: \(lines) lines, \(indexedOutput.count) bytes")

        // Where the time goes, in process on one executor thread (indexed engine), in batches of 32 as the command line sends them.
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
        _ = await engine.profile(Array(urls.prefix(500)))  // warm-up: script contexts, JIT
        let (_, profile) = await engine.profile(urls)
        let total = profile.matching + profile.unwrapping + profile.formats + profile.browsers + profile.scripts
        func share(_ d: Duration) -> String { String(format: "%5.1f%%", 100 * (d / total)) }
        func perURL(_ d: Duration) -> String { String(format: "%6.1f µs", (d / profile.inputs) / .microseconds(1)) }
        print("stages (one thread): matching \(perURL(profile.matching)) \(share(profile.matching)), unwrapping \(perURL(profile.unwrapping)) \(share(profile.unwrapping)), "
              + "formats (templates) \(perURL(profile.formats)) \(share(profile.formats)), browsers (regexes, templates) \(perURL(profile.browsers)) \(share(profile.browsers)), "
              + "scripts (in process, per batch of 32) \(perURL(profile.scripts)) \(share(profile.scripts))")
        if matched == -1 { print("") }
    }
}
