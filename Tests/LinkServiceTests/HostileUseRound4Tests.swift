import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
@testable import LinkStorage
import LinkConfiguration
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// The fourth hostile-use round (issue 41): each break reproduced through the service.
@Suite struct HostileUseRound4Tests {
    /// Wrong bearer tokens on `GET /api/invite/{code}`, which authenticates in its handler (a
    /// use-limited invite read with a token is an administrator's read), count against the
    /// address's failed-authentication bucket as on every other route: 429 past it.
    @Test func tokenGuessesOnAnInviteReadAreLimited() async throws {
        let h = try await Harness.make(extra: "rateLimit:\n  perToken: {perMinute: 100000, burst: 100000}\n  perAddress: {perMinute: 1, burst: 5}\n")
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/invite", token: h.writer, body: #"{"groupId": "g", "relay": "wss://relay.example"}"#)
            let code = try #require(created.json?["code"]?.stringValue)
            #expect(try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"maxUses": 3}"#).status == .ok)
            var statuses: [HTTPResponse.Status] = []
            for i in 0..<8 {
                statuses.append(try await client.call(.get, "/api/invite/\(code)", token: "sy_guess\(i)_" + String(repeating: "a", count: 43)).status)
            }
            #expect(statuses == Array(repeating: .unauthorized, count: 5) + Array(repeating: .tooManyRequests, count: 3), "\(statuses)")
            // The administrator's read with a real token still answers, and used nothing.
            #expect(try await client.call(.get, "/api/invite/\(code)", token: h.reader).status == .ok)
            #expect(try await h.store.link(code: code)?.clicks == 0)
        }
    }

    /// A redeemed signed claim token stays used whatever the lifetime is raised to later: its
    /// row is kept for the longest lifetime the configuration allows, not the one in force when
    /// it was redeemed (which let a token redeem again once its row was pruned).
    @Test func aRedeemedSignedTokenStaysUsedWhenTheLifetimeIsRaised() async throws {
        let key = "a-signing-key-of-at-least-32-characters-long"
        let h = try await Harness.make(extra: "deferred: {claimLifetime: 600, signingKeys: [\"\(key)\"]}\n")
        let signing = try #require(ClaimSigningKey(secret: key))
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Once2345", "deepLink": "plur://group/once"}"#)
            #expect(created.status == .created, "\(created.text)")
        }
        let link = try #require(try await h.store.link(code: "Once2345"))
        let token = try #require(SignedClaimToken(code: "Once2345", created: link.createdAt, platform: "ios", issuedAt: h.clock.today).token(signedWith: signing))
        try await h.app().test(.router) { client in
            let first = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
            #expect(first.status == .ok, "\(first.text)")
        }
        // Eight days on, the service prunes what has expired and been kept a week.
        h.clock.advance(8 * 86_400)
        try await h.store.pruneClaims(expiredBefore: h.clock.today.addingTimeInterval(-DeferredSettings.keptAfterExpiry), matchesBefore: h.clock.today)
        let raised = try await Harness.make(extra: "deferred: {claimLifetime: 2592000, signingKeys: [\"\(key)\"]}\n", store: h.store)
        raised.clock.advance(8 * 86_400)
        try await raised.app().test(.router) { client in
            let again = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
            #expect(again.status == .gone && again.json?["error"]?["code"]?.stringValue == "claim-used", "\(again.text)")
        }
    }

    /// Claim tokens from one address are counted in the buckets every node shares: two nodes
    /// on one PostgreSQL issue what one issues (each node gave the whole budget before).
    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func claimBudgetsHoldAcrossTwoNodes() async throws {
        let location = try await Backend.postgres.freshLocation()
        let limits = "rateLimit:\n  perToken: {perMinute: 100000, burst: 100000}\n  perAddress: {perMinute: 1, burst: 4}\n"
        let a = try await Harness.make(extra: limits, store: try await LinkStore.open(location))
        let b = try await Harness.make(extra: limits, store: try await LinkStore.open(location))
        try await a.app().test(.live) { nodeA in
            try await b.app().test(.live) { nodeB in
                let code = try #require(try await nodeA.call(.post, "/api/links", token: a.writer, body: #"{"deepLink": "plur://group/claims"}"#).json?["code"]?.stringValue)
                var claimed = 0
                for i in 0..<12 {
                    let page = try await (i % 2 == 0 ? nodeA : nodeB).call(.get, "/i/\(code)", headers: [.userAgent: HostileUseTests.iPhone])
                    #expect(page.status == .ok)
                    if page.text.contains("data-claim=\"http") { claimed += 1 }
                }
                #expect(claimed == 4, "\(claimed) claims from one address on two nodes; the budget is 4")
            }
        }
    }
}
