import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
@testable import LinkStorage
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// Rate limits on several nodes (issue 27): on PostgreSQL a client gets the documented limit
/// whatever node answers, not the limit once per node. The limits here refill one request a
/// minute, so a run of a few seconds sees the burst and nothing more.
@Suite struct SharedRateLimitTests {
    /// Sends `count` requests, alternating between the nodes; the statuses in order.
    static func alternate(_ count: Int, _ nodes: [any TestClientProtocol], _ request: (any TestClientProtocol) async throws -> HTTPResponse.Status) async throws -> [HTTPResponse.Status] {
        var statuses: [HTTPResponse.Status] = []
        for i in 0..<count { statuses.append(try await request(nodes[i % nodes.count])) }
        return statuses
    }

    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func aTokensLimitHoldsAcrossTwoNodes() async throws {
        try await Harness.twoNodes(extra: "rateLimit:\n  perToken: {perMinute: 1, burst: 5}\n  perAddress: {perMinute: 100000, burst: 100000}\n") { a, nodeA, nodeB in
            let statuses = try await Self.alternate(12, [nodeA, nodeB]) { try await $0.call(.get, "/api/links", token: a.reader).status }
            #expect(statuses.filter { $0 == .ok }.count == 5, "\(statuses)")
            #expect(statuses.prefix(5).allSatisfy { $0 == .ok } && statuses.dropFirst(5).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
            // The refusal says how long to wait: about a minute for one request a minute.
            let refused = try await nodeB.call(.get, "/api/links", token: a.reader)
            #expect(refused.status == .tooManyRequests)
            let wait = refused.headers[.retryAfter].flatMap { Int($0) } ?? 0
            #expect((1...60).contains(wait), "Retry-After \(refused.headers[.retryAfter] ?? "none")")
            // Another token has a bucket of its own.
            #expect(try await nodeB.call(.get, "/api/links", token: a.writer).status == .ok)
        }
    }

    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func anAddressLimitHoldsAcrossTwoNodes() async throws {
        try await Harness.twoNodes(extra: "rateLimit:\n  perToken: {perMinute: 100000, burst: 100000}\n  perAddress: {perMinute: 1, burst: 4}\n") { a, nodeA, nodeB in
            // Creating without a token: the address limit comes first, then 401.
            let statuses = try await Self.alternate(10, [nodeA, nodeB]) { try await $0.call(.post, "/api/links", body: #"{"deepLink": "plur://group/x"}"#).status }
            #expect(statuses.prefix(4).allSatisfy { $0 == .unauthorized } && statuses.dropFirst(4).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
            // The table holds keyed hashes: never the address, nor a plain hash anyone could
            // compute from a guessed address.
            let keys = try await a.store.db.run("SELECT key FROM rate_buckets", []).compactMap { $0.first?.text }
            #expect(!keys.isEmpty && keys.allSatisfy { $0.count == 64 && !$0.contains("127.0.0.1") }, "\(keys)")
            for guess in ["address:127.0.0.1", "address:127.0.0.0", "127.0.0.1"] { #expect(!keys.contains(APIToken.hash(guess)), "\(guess)") }
            // Both nodes read one secret: the buckets they took from are the same rows.
            #expect(try await a.store.db.run("SELECT COUNT(*) FROM service_keys WHERE name = 'rate-limits'", []).first?.first?.int == 1)
        }
    }

    /// Requests that arrive at once on two nodes share takes, and together get exactly the burst.
    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func concurrentRequestsOnTwoNodesGetExactlyTheBurst() async throws {
        try await Harness.twoNodes(extra: "rateLimit:\n  perToken: {perMinute: 1, burst: 40}\n  perAddress: {perMinute: 100000, burst: 100000}\n") { a, nodeA, nodeB in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for i in 0..<80 {
                    let node = i % 2 == 0 ? nodeA : nodeB
                    group.addTask { try await node.call(.get, "/api/links", token: a.reader).status }
                }
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .ok }.count == 40, "\(statuses)")
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 40, "\(statuses)")
        }
    }

    /// Each node alone still limits (SQLite, one node): the shared bucket is PostgreSQL's.
    @Test func onSQLiteANodesOwnBucketDecides() async throws {
        let h = try await Harness.make(extra: "rateLimit:\n  perToken: {perMinute: 1, burst: 3}\n")
        #expect(!h.store.sharesRateLimits)
        try await h.app().test(.router) { client in
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<5 { statuses.append(try await client.call(.get, "/api/links", token: h.reader).status) }
            #expect(statuses == [.ok, .ok, .ok, .tooManyRequests, .tooManyRequests], "\(statuses)")
        }
    }

    /// Guessing tokens is bounded on every route that takes one, the reading routes too (which
    /// have no address limit): refused tokens count against the address; a valid token's reads
    /// do not, and go on after the guesser is stopped.
    @Test func refusedTokensCountAgainstTheAddressOnReadingRoutesToo() async throws {
        let h = try await Harness.make(extra: "rateLimit:\n  perToken: {perMinute: 100000, burst: 100000}\n  perAddress: {perMinute: 1, burst: 5}\n")
        try await h.app().test(.router) { client in
            var statuses: [HTTPResponse.Status] = []
            for i in 0..<8 { statuses.append(try await client.call(.get, "/api/links", token: "sy_guess\(i)_" + String(repeating: "a", count: 43)).status) }
            #expect(statuses == Array(repeating: .unauthorized, count: 5) + Array(repeating: .tooManyRequests, count: 3), "\(statuses)")
            for _ in 0..<10 { #expect(try await client.call(.get, "/api/links", token: h.reader).status == .ok) }
        }
    }

    /// Requests that arrive while a take is in flight queue for the next, which asks for all of
    /// them: 50 at once cost a few takes, not 50; a short answer refuses the ones it could not
    /// serve, in arrival order, with the wait the bucket gave; a refusal answers everyone queued.
    @Test func concurrentRequestsShareTakesFromTheDatabase() async throws {
        let takes = SharedTakes()
        let asked = Locked<[Int]>([])
        let answers = await withTaskGroup(of: Double?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    await takes.token("k") { count -> SharedTakes.Take in
                        asked.withLock { $0.append(count) }
                        try? await Task.sleep(for: .milliseconds(50))
                        return (count, nil)
                    }
                }
            }
            return await group.reduce(into: [Double?]()) { $0.append($1) }
        }
        #expect(answers.count == 50 && answers.allSatisfy { $0 == nil })
        #expect(asked.withLock { $0.reduce(0, +) } == 50 && asked.withLock { $0.count } < 10, "\(asked.withLock { $0 })")

        let short = await withTaskGroup(of: Double?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await takes.token("s") { count -> SharedTakes.Take in
                        try? await Task.sleep(for: .milliseconds(50))
                        return (min(count, 5), count > 5 ? 7.5 : nil)
                    }
                }
            }
            return await group.reduce(into: [Double?]()) { $0.append($1) }
        }
        #expect(short.filter { $0 == nil }.count >= 5 && short.filter { $0 == 7.5 }.count >= 10, "\(short)")
        #expect(short.allSatisfy { $0 == nil || $0 == 7.5 })
    }
}
