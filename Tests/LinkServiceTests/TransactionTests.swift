import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
@testable import LinkStorage
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// The verification server of the ThereAndBack design: ids issued to the requesting app, checked
/// once by the helper app.
@Suite struct TransactionTests {
    @Test(arguments: Backend.available)
    func transactionsVerifyOnceAndExpire(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        let issued = APIToken.issue(name: "helper", scopes: [.transactions])
        try await h.store.insert(issued.record)
        let token = issued.token
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/transactions", token: token, body: #"{"purpose": "export a.txt", "ttl": 60}"#)
            #expect(created.status == .created)
            let id = try #require(created.json?["id"]?.stringValue)
            #expect(id.count == 43)
            let first = try await client.call(.post, "/api/transactions/\(id)/verify", token: token)
            #expect(first.status == .ok)
            #expect(first.json?["valid"] == .bool(true))
            #expect(first.json?["purpose"]?.stringValue == "export a.txt")
            let again = try await client.call(.post, "/api/transactions/\(id)/verify", token: token)
            #expect(again.status == .conflict)
            #expect(again.json?.at("error.code")?.stringValue == "already-verified")

            let short = try #require(try await client.call(.post, "/api/transactions", token: token, body: #"{"ttl": 5}"#).json?["id"]?.stringValue)
            h.clock.advance(6)
            let late = try await client.call(.post, "/api/transactions/\(short)/verify", token: token)
            #expect(late.status == .gone)
            #expect(try await client.call(.post, "/api/transactions/\(String(repeating: "x", count: 43))/verify", token: token).status == .notFound)
            #expect(try await client.call(.post, "/api/transactions/a%2Fb/verify", token: token).status == .badRequest)
            // Token-protected, and a links token is not enough.
            #expect(try await client.call(.post, "/api/transactions").status == .unauthorized)
            #expect(try await client.call(.post, "/api/transactions", token: h.writer).status == .forbidden)
            #expect(try await client.call(.post, "/api/transactions", token: token, body: #"{"colour": 1}"#).json?.at("error.code")?.stringValue == "unknown-field")
        }
    }

    @Test(arguments: Backend.available)
    func concurrentVerificationsAdmitExactlyOne(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        let t = LinkStore.Transaction(id: "abcdefghijklmnopqrstuvwxyz", purpose: nil, createdBy: nil, createdAt: h.clock.today, expiresAt: h.clock.today.addingTimeInterval(60))
        try await h.store.insert(t)
        let outcomes = try await withThrowingTaskGroup(of: LinkStore.VerifyOutcome.self) { group in
            for _ in 0..<10 { group.addTask { try await h.store.verifyTransaction(id: t.id, at: h.clock.today) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { if case .verified = $0 { true } else { false } }.count == 1)
        #expect(outcomes.filter { $0 == .alreadyVerified }.count == 9)
    }
}
