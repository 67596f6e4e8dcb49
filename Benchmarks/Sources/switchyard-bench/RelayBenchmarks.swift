import Foundation
import URLRelay

/// Relay inbox: durable enqueue rate against a plain append without fsync, and send → handler
/// latency with the inotify wake-up against a drainer that polls every second. One run, same disk.
enum RelayBenchmarks {
    final class Latencies: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Double] = []
        func add(_ v: Double) { lock.withLock { values.append(v) } }
        var count: Int { lock.withLock { values.count } }
        func percentile(_ p: Double) -> Double {
            let s = lock.withLock { values.sorted() }
            return s.isEmpty ? .nan : s[min(s.count - 1, Int(Double(s.count) * p))]
        }
    }

    static func directory(_ tag: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("relay-bench-\(tag)-\(UUID().uuidString)").path
    }

    static func run() {
        // 1. Enqueue rate.
        let inbox = try! Inbox(directory: directory("enqueue"))
        let seconds = 3.0
        var durable = 0
        var start = Date()
        while Date().timeIntervalSince(start) < seconds {
            try! inbox.send(RelayRequest(source: "bench", url: "plur://group/\(durable)"))
            durable += 1
        }
        let durableRate = Double(durable) / Date().timeIntervalSince(start)
        var batched = 0
        start = Date()
        while Date().timeIntervalSince(start) < seconds {
            try! inbox.send(batch: (0..<64).map { RelayRequest(source: "bench", url: "plur://group/\(batched + $0)") })
            batched += 64
        }
        let batchedRate = Double(batched) / Date().timeIntervalSince(start)
        let plainPath = directory("append") + ".jsonl"
        FileManager.default.createFile(atPath: plainPath, contents: nil)
        let handle = FileHandle(forWritingAtPath: plainPath)!
        var plain = 0
        start = Date()
        while Date().timeIntervalSince(start) < seconds {
            handle.write(Data(RelayRequest(source: "bench", url: "plur://group/\(plain)").record.utf8))
            plain += 1
        }
        let plainRate = Double(plain) / Date().timeIntervalSince(start)
        try? handle.close()
        print(String(format: "enqueue: plain append without fsync %.0f requests/s (baseline)", plainRate))
        print(String(format: "  durable, one request per commit (temp file, fsync, rename, fsync dir): %.0f/s, %.3fx the baseline", durableRate, durableRate / plainRate))
        print(String(format: "  durable, 64 requests per commit (group commit): %.0f/s, %.3fx the baseline (goal: >= 5,000 durable/s)", batchedRate, batchedRate / plainRate))

        // 2. Latency: wake-up vs 1 s polling.
        let wake = latency(requests: 200, spacing: 0.02) { inbox, handler in
            let watcher = InboxWatcher(inbox: inbox, ttl: nil, pollInterval: 30, handler: handler)
            return Task { try? await watcher.run() }
        }
        let poll = latency(requests: 40, spacing: 0.25) { inbox, handler in
            Task {
                while !Task.isCancelled {
                    _ = try? await inbox.drain(handler: handler)
                    try? await Task.sleep(for: .seconds(1))
                }
            }
        }
        print(String(format: "send → handler latency: wake-up p50 %.2f ms, p99 %.2f ms (%d requests); 1 s polling p50 %.0f ms, p99 %.0f ms (%d requests); p99 ratio %.0fx (goal: wake-up p99 < 50 ms)",
                     wake.percentile(0.5) * 1000, wake.percentile(0.99) * 1000, wake.count, poll.percentile(0.5) * 1000, poll.percentile(0.99) * 1000, poll.count,
                     poll.percentile(0.99) / wake.percentile(0.99)))
    }

    /// Sends `requests` at random intervals (mean `spacing` s) and records how long each took to reach the handler.
    static func latency(requests: Int, spacing: Double,
                        drainer: (Inbox, @escaping @Sendable (RelayRequest) async -> Bool) -> Task<Void, Never>) -> Latencies {
        let inbox = try! Inbox(directory: directory("latency"))
        let latencies = Latencies()
        let task = drainer(inbox) { request in
            latencies.add(Date().timeIntervalSince(request.time))
            return true
        }
        usleep(300_000)
        var rng = SystemRandomNumberGenerator()
        for i in 0..<requests {
            usleep(UInt32(Double.random(in: 0...(2 * spacing), using: &rng) * 1_000_000))
            try! inbox.send(RelayRequest(source: "bench", url: "plur://latency/\(i)"))
        }
        let deadline = Date().addingTimeInterval(5)
        while latencies.count < requests && Date() < deadline { usleep(10_000) }
        task.cancel()
        return latencies
    }
}
