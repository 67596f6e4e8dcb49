import Foundation
import LinkRules

/// What the script bounds cost per call: the same scripts with the memory watch on (the default,
/// 256 MB: a watchdog tick every 10 ms of a script's CPU time, reading the process's resident
/// memory) and off (`memoryLimit: .infinity`: one tick, at the time limit), in one run.
enum ScriptBenchmarks {
    static func run() async {
        let ordinary = "function process(url, done) { done('app://x/' + url.split('/').pop()); }"
        // About 50 ms of CPU per call: five watchdog ticks each.
        let busy = "function process(url, done) { var x = 0; for (var i = 0; i < 2e7; i++) { x = (x + i) % 1000003; } done('app://sum/' + x); }"
        let executor = ScriptExecutor(threads: 1)
        let watched = ScriptRuntime(fetcher: OfflineFetcher(), timeLimit: 15, executor: executor)
        let unwatched = ScriptRuntime(fetcher: OfflineFetcher(), timeLimit: 15, memoryLimit: .infinity, executor: executor)
        print("script2 calls on one thread, release build; memory watch on (256 MB) against off, same run")
        for (name, script, calls) in [("ordinary script (microseconds per call)", ordinary, 200_000), ("busy script (about 50 ms of CPU per call)", busy, 40)] {
            // Warm up both (context creation, JIT), then alternate rounds so that drift hits both.
            _ = await watched.run(script, input: "https://e.example/1")
            _ = await unwatched.run(script, input: "https://e.example/1")
            var on = Duration.zero, off = Duration.zero
            for _ in 0..<5 {
                on += await time(watched, script, calls / 5)
                off += await time(unwatched, script, calls / 5)
            }
            func perCall(_ d: Duration) -> Double { (Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18) / Double(calls) * 1e6 }
            print(String(format: "  %@: watch on %.2f µs/call, off %.2f µs/call, on/off %.3f", name, perCall(on), perCall(off), perCall(on) / perCall(off)))
        }
    }

    /// `calls` calls as a library user makes them (each a hop to the executor and back).
    static func time(_ runtime: ScriptRuntime, _ script: String, _ calls: Int) async -> Duration {
        let start = ContinuousClock.now
        for i in 0..<calls { _ = await runtime.run(script, input: "https://e.example/\(i)") }
        return ContinuousClock.now - start
    }
}
