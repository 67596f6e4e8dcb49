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

    static let signingKey = "a-signing-key-of-at-least-32-characters-long"

    /// A service signing claims with ``signingKey`` (and the `deferred` `settings` given), a
    /// link `code` made through the API, and an iPhone's signed claim token for it.
    static func signedClaim(settings: String, code: String) async throws -> (Harness, StoredLink, String) {
        let h = try await Harness.make(extra: "deferred: {\(settings)signingKeys: [\"\(signingKey)\"]}\n")
        let signing = try #require(ClaimSigningKey(secret: signingKey))
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "\#(code)", "deepLink": "plur://group/\#(code.lowercased())"}"#)
            #expect(created.status == .created, "\(created.text)")
        }
        let link = try #require(try await h.store.link(code: code))
        let token = try #require(SignedClaimToken(code: code, created: link.createdAt, platform: .ios, issuedAt: h.clock.today).token(signedWith: signing))
        return (h, link, token)
    }

    /// A redeemed signed claim token stays used whatever the lifetime is raised to later: its
    /// row is kept for the longest lifetime the configuration allows, not the one in force when
    /// it was redeemed (which let a token redeem again once its row was pruned).
    @Test func aRedeemedSignedTokenStaysUsedWhenTheLifetimeIsRaised() async throws {
        let key = Self.signingKey
        let (h, _, token) = try await Self.signedClaim(settings: "claimLifetime: 600, ", code: "Once2345")
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
        try await Harness.twoNodes(extra: "rateLimit:\n  perToken: {perMinute: 100000, burst: 100000}\n  perAddress: {perMinute: 1, burst: 4}\n") { a, nodeA, nodeB in
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

    /// Runs `.ci/postgres.sh` with `arguments`; its `export NAME=VALUE` lines as a dictionary.
    @discardableResult
    static func postgresScript(_ arguments: [String]) async throws -> [String: String] {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let output = Backend.temporaryPath("pg-script") + "/out"
        FileManager.default.createFile(atPath: output, contents: nil)
        // Outside the blocking slots: halt and resume run while a live client's connection waits,
        // which the service closes after 75 s idle (a full suite keeps the slots busy that long).
        let status = try await blocking(limited: false) {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            defer { try? handle.close() }
            let pid = try ChildProcess.spawn("/bin/bash", [repository.appendingPathComponent(".ci/postgres.sh").path] + arguments,
                                             environment: ProcessInfo.processInfo.environment, directory: nil,
                                             stdin: 0, stdout: handle.fileDescriptor, stderr: 2)
            return ChildProcess.wait(pid)
        }
        try #require(status == 0, "postgres.sh \(arguments) failed")
        var exports: [String: String] = [:]
        for line in try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n") where line.hasPrefix("export ") {
            let pair = line.dropFirst("export ".count).split(separator: "=", maxSplits: 1)
            if pair.count == 2 { exports[String(pair[0])] = String(pair[1]) }
        }
        return exports
    }

    /// While PostgreSQL is down, writes answer 503 within seconds (not after the pool's minute of
    /// retries, holding a connection slot) and /healthz says so at once; once it is back, writes
    /// commit again.
    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func aDatabaseThatIsDownIsSaidAtOnce() async throws {
        let server = try await Self.postgresScript(["start"])
        let state = try #require(server["PG_STATE_DIR"])
                let store = try await LinkStore.open(try DatabaseLocation(parsing: try #require(server["SWITCHYARD_TEST_POSTGRES"])))
        let h = try await Harness.make(store: store)
        try await h.app().test(.live) { client in
            #expect(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/up"}"#).status == .created)
            _ = try await Self.postgresScript(["halt", state])
            let start = ContinuousClock.now
            let write = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/down"}"#)
            let waited = ContinuousClock.now - start
            #expect(write.status == .serviceUnavailable, "\(write.text)")
            #expect(waited < .seconds(15), "a write waited \(waited) for a database that is down")
            let quick = ContinuousClock.now
            let again = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/down"}"#)
            #expect(again.status == .serviceUnavailable && ContinuousClock.now - quick < .seconds(2), "refused at once once known: \(again.text)")
            let health = try await client.call(.get, "/healthz")
            #expect(health.status == .serviceUnavailable && health.text.contains("cannot be reached"), "\(health.text)")
            _ = try await Self.postgresScript(["resume", state])
            var back = false
            for _ in 0..<120 where !back {
                try await Task.sleep(for: .milliseconds(500))
                back = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/back"}"#).status == .created
            }
            #expect(back, "writes commit again once the database is back")
            #expect(try await client.call(.get, "/healthz").status == .ok)
        }
        await store.close()
        _ = try await Self.postgresScript(["stop", state])
    }

    /// Switching from the key the database made to `deferred.signingKeys` leaves the tokens
    /// already out redeemable (they answered 404 `claim-unknown`): the database's key still
    /// verifies, and signs nothing.
    @Test func configuringSigningKeysKeepsTokensAlreadyOut() async throws {
        let h = try await Harness.make()
        var token: String?
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Keys2345", "deepLink": "plur://group/keys"}"#)
            #expect(created.status == .created)
        }
        let page = try await h.app().test(.router) { client in
            try await client.call(.get, "/i/Keys2345", headers: [.userAgent: DeferredTests.android]).text
        }
        token = DeferredTests.attribute("href", of: "fallback", in: page).flatMap(DeferredTests.token(inPlayLink:))
        let issued = try #require(token, "\(page)")
        #expect(try await h.store.db.read("SELECT COUNT(*) FROM service_keys WHERE name = 'claim-signing'", []).first?[0].int == 1)
        let configured = try await Harness.make(extra: "deferred: {signingKeys: [\"a-configured-signing-key-of-32-characters!\"]}\n", store: h.store)
        let claim = try await configured.app().test(.router) { client in
            try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(issued)"}"#)
        }
        #expect(claim.status == .ok && claim.json?["code"]?.stringValue == "Keys2345", "\(claim.text)")
    }

    /// A redeemed signed token stays used when its link is deleted and restored with its
    /// creation time (as `import csv` restores it): the used row went with the link.
    @Test func aRedeemedTokenStaysUsedThroughADeleteAndARestore() async throws {
        let (h, link, token) = try await Self.signedClaim(settings: "", code: "Back2345")
        try await h.app().test(.router) { client in
            let first = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
            #expect(first.status == .ok)
            let deleted = try await client.call(.delete, "/api/links/Back2345", token: h.writer)
            #expect(deleted.status == .noContent)
        }
        try await h.store.insert(link)
        let again = try await h.app().test(.router) { client in
            try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
        }
        #expect(again.status == .gone && again.json?["error"]?["code"]?.stringValue == "claim-used", "\(again.text)")
    }
}
