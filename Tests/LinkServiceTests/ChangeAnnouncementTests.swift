import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
@testable import LinkService
@testable import LinkStorage
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// Several nodes on PostgreSQL (issue 27): a change made on one node reaches every other node's
/// cache when it commits (LISTEN/NOTIFY), not when the cached copy expires. The harnesses'
/// clocks stand still, so a cached copy here never expires: whatever a node serves anew, an
/// announcement told it.
@Suite struct ChangeAnnouncementTests {
    static let slack = "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
    /// The clocks stand still, so rate-limit buckets never refill: room for every request here.
    static let roomy = "rateLimit:\n  perToken: {perMinute: 100000, burst: 100000}\n  perAddress: {perMinute: 100000, burst: 100000}\n"

    /// Polls `node` until `done` holds for its answer to GET `path` (at most 10 s); the seconds it took.
    static func seen(_ node: some TestClientProtocol, _ path: String, userAgent: String? = nil,
                     _ done: @escaping (TestResponse) -> Bool) async throws -> Double? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(10) {
            var headers: HTTPFields = [:]
            if let userAgent { headers[.userAgent] = userAgent }
            let answer = try await node.execute(uri: path, method: .get, headers: headers, body: nil)
            if done(answer) {
                let elapsed = ContinuousClock.now - start
                return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func editsDeletesAndUsesOnOneNodeReachTheOthersCacheAtOnce() async throws {
        let location = try await Backend.postgres.freshLocation()
        let a = try await Harness.make(extra: Self.roomy, store: try await LinkStore.open(location))
        let b = try await Harness.make(extra: Self.roomy, store: try await LinkStore.open(location))
        try await a.app().test(.live) { nodeA in
            try await b.app().test(.live) { nodeB in
                // Both listen before anything changes.
                for node in [nodeA, nodeB] {
                    let arriving = try await Self.seen(node, "/healthz") { $0.body.getString(at: 0, length: $0.body.readableBytes)?.contains(#""linkChanges":"arriving""#) == true }
                    #expect(arriving != nil, "a node's change listener never started")
                }
                var latencies: [Double] = []
                for round in 0..<50 {  // 100 changes: an edit and a delete each
                    let code = "chg\(round)x2345"
                    let created = try await nodeA.call(.post, "/api/links", token: a.writer, body: #"{"code": "\#(code)", "deepLink": "plur://group/v0", "title": "Version 0"}"#)
                    #expect(created.status == .created, "\(created.text)")
                    // Node B caches the page.
                    let first = try await Self.seen(nodeB, "/i/\(code)") { String(buffer: $0.body).contains("Version 0") }
                    #expect(first != nil)
                    _ = try await nodeA.call(.patch, "/api/links/\(code)", token: a.writer, body: #"{"title": "Version 1"}"#)
                    let edited = try await Self.seen(nodeB, "/i/\(code)") { String(buffer: $0.body).contains("Version 1") }
                    #expect(edited != nil, "node B still serves the old title")
                    if let edited { latencies.append(edited) }
                    #expect(try await nodeA.call(.delete, "/api/links/\(code)", token: a.writer).status == .noContent)
                    let deleted = try await Self.seen(nodeB, "/i/\(code)") { $0.status == .notFound }
                    #expect(deleted != nil, "node B still serves a deleted link")
                    if let deleted { latencies.append(deleted) }
                }
                // A use-limited link used up on node A: node B's previews say gone too.
                _ = try await nodeA.call(.post, "/api/links", token: a.writer, body: #"{"code": "once2345", "deepLink": "plur://group/once", "maxUses": 1}"#)
                #expect(try await Self.seen(nodeB, "/i/once2345", userAgent: Self.slack) { $0.status == .ok } != nil)
                #expect(try await nodeA.call(.get, "/i/once2345", headers: [.userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"]).status == .ok)
                #expect(try await Self.seen(nodeB, "/i/once2345", userAgent: Self.slack) { $0.status == .gone } != nil, "node B's preview of a used-up link")

                // The listening connections cut (as a database restart does): each node says so,
                // listens again, and serves what changed meanwhile.
                _ = try await nodeA.call(.post, "/api/links", token: a.writer, body: #"{"code": "cut22345", "deepLink": "plur://group/c", "title": "Before"}"#)
                #expect(try await Self.seen(nodeB, "/i/cut22345") { String(buffer: $0.body).contains("Before") } != nil)
                _ = try await a.store.db.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query ILIKE 'LISTEN%' AND pid <> pg_backend_pid()", [])
                let down = try await Self.seen(nodeB, "/healthz") { String(buffer: $0.body).contains(#""linkChanges":"not arriving""#) }
                #expect(down != nil, "/healthz never said the announcements stopped")
                _ = try await nodeA.call(.patch, "/api/links/cut22345", token: a.writer, body: #"{"title": "After"}"#)
                #expect(try await Self.seen(nodeB, "/healthz") { String(buffer: $0.body).contains(#""linkChanges":"arriving""#) } != nil, "never listened again")
                #expect(try await Self.seen(nodeB, "/i/cut22345") { String(buffer: $0.body).contains("After") } != nil, "a change made while it was not listening")

                let sorted = latencies.sorted()
                let p50 = sorted[sorted.count / 2], p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
                print("change announcements: \(sorted.count) changes seen on the other node, p50 \(Int(p50 * 1000)) ms, p99 \(Int(p99 * 1000)) ms, max \(Int(sorted.last! * 1000)) ms")
            }
        }
        await a.store.close()
        await b.store.close()
    }

    /// SQLite has one node: nothing listens, and `/healthz` says nothing about it.
    @Test func sqliteNeitherListensNorSaysSo() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(!String(buffer: health.body).contains("linkChanges"))
        }
    }
}
