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
        let location = try await Backend.postgres.freshLocation()
        let limits = "rateLimit:\n  perToken: {perMinute: 1, burst: 5}\n  perAddress: {perMinute: 100000, burst: 100000}\n"
        let a = try await Harness.make(extra: limits, store: try await LinkStore.open(location))
        let b = try await Harness.make(extra: limits, store: try await LinkStore.open(location))
        try await a.app().test(.live) { nodeA in
            try await b.app().test(.live) { nodeB in
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
    }

    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func anAddressLimitHoldsAcrossTwoNodes() async throws {
        let location = try await Backend.postgres.freshLocation()
        let limits = "rateLimit:\n  perToken: {perMinute: 100000, burst: 100000}\n  perAddress: {perMinute: 1, burst: 4}\n"
        let a = try await Harness.make(extra: limits, store: try await LinkStore.open(location))
        let b = try await Harness.make(extra: limits, store: try await LinkStore.open(location))
        try await a.app().test(.live) { nodeA in
            try await b.app().test(.live) { nodeB in
                // Creating without a token: the address limit comes first, then 401.
                let statuses = try await Self.alternate(10, [nodeA, nodeB]) { try await $0.call(.post, "/api/links", body: #"{"deepLink": "plur://group/x"}"#).status }
                #expect(statuses.prefix(4).allSatisfy { $0 == .unauthorized } && statuses.dropFirst(4).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
                // The table holds the key's hash, never the address.
                let keys = try await a.store.db.run("SELECT key FROM rate_buckets", []).compactMap { $0.first?.text }
                #expect(!keys.isEmpty && keys.allSatisfy { $0.count == 64 && !$0.contains("127.0.0.1") }, "\(keys)")
            }
        }
    }

    /// A node takes a tenth of the burst at once and uses it within a second, so most requests
    /// need no round trip; what a client gets over two nodes stays within the burst plus one
    /// lease less one token per node.
    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func leasedTokensKeepTheLimitWithinTheStatedBound() async throws {
        let location = try await Backend.postgres.freshLocation()
        let limits = "rateLimit:\n  perToken: {perMinute: 1, burst: 40}\n  perAddress: {perMinute: 100000, burst: 100000}\n"
        let a = try await Harness.make(extra: limits, store: try await LinkStore.open(location))
        let b = try await Harness.make(extra: limits, store: try await LinkStore.open(location))
        try await a.app().test(.live) { nodeA in
            try await b.app().test(.live) { nodeB in
                let statuses = try await Self.alternate(80, [nodeA, nodeB]) { try await $0.call(.get, "/api/links", token: a.reader).status }
                let admitted = statuses.filter { $0 == .ok }.count
                // Leases of 4: at most 40 + 2 × 3.
                #expect((40...46).contains(admitted), "\(admitted) admitted: \(statuses)")
                #expect(statuses.allSatisfy { $0 == .ok || $0 == .tooManyRequests })
            }
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

    /// Requests that find no leased token while a take is in flight wait for it rather than
    /// each asking the database: 50 at once cost 5 takes of 10, and a refusal answers them all.
    @Test func concurrentRequestsShareOneTakeFromTheDatabase() async throws {
        let leases = TokenLeases()
        let takes = Locked(0)
        let granted = await withTaskGroup(of: Double?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    await leases.token("k") { () -> TokenLeases.Take in
                        takes.withLock { $0 += 1 }
                        try? await Task.sleep(for: .milliseconds(50))
                        return (10, nil)
                    }
                }
            }
            return await group.reduce(into: 0) { count, wait in if wait == nil { count += 1 } }
        }
        #expect(granted == 50)
        #expect(takes.withLock { $0 } == 5, "\(takes.withLock { $0 }) takes")

        let refusals = Locked(0)
        let waits = await withTaskGroup(of: Double?.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    await leases.token("r") { () -> TokenLeases.Take in
                        refusals.withLock { $0 += 1 }
                        try? await Task.sleep(for: .milliseconds(200))
                        return (0, 7.5)
                    }
                }
            }
            return await group.reduce(into: [Double?]()) { $0.append($1) }
        }
        #expect(waits.allSatisfy { $0 == 7.5 }, "\(waits)")
        #expect(refusals.withLock { $0 } == 1)
    }
}
