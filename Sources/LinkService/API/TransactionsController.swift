import LinkRequests
import Foundation
import Hummingbird
import LinkStorage
import SwitchyardCore

/// `/api/transactions`: ids a helper app verifies once, for x-callback-url round trips
/// (`transactions` scope, behind the address limit).
struct TransactionsController: Sendable {
    let store: LinkStore
    let bodies: RequestBodies
    let now: @Sendable () -> Date

    func addRoutes(to group: RouterGroup<ServiceContext>) {
        group.post("transactions") { request, context in try await create(request, context) }
        group.post("transactions/{id}/verify") { _, context in try await verify(context) }
    }

    /// `POST /api/transactions` `{"purpose"?: String, "ttl"?: seconds}` → 201 `{"id","expiresAt"}`.
    /// A helper app that receives an x-callback-url request carrying this id asks the service to
    /// verify it; each id verifies once.
    func create(_ request: Request, _ context: ServiceContext) async throws -> Response {
        let token = try context.verifiedToken()
        var body = TransactionRequest()
        if request.headers[.contentLength].map({ $0 != "0" }) ?? true {
            body = try await bodies.decode(TransactionRequest.self, request)
        }
        if let purpose = body.purpose {
            guard purpose.count <= 200 else { throw APIError.badRequest(.invalidField, "purpose must be a string of at most 200 characters", field: "purpose") }
            try LinkInput.checkText(purpose, field: "purpose")
        }
        let ttl = body.ttl ?? 300
        guard (1...86_400).contains(ttl) else { throw APIError.badRequest(.invalidField, "ttl must be 1–86400 seconds", field: "ttl") }
        let t = now()
        let id = Base64URL.random(bytes: 32)  // 256 bits, 43 characters
        let transaction = LinkStore.Transaction(id: id, purpose: body.purpose, createdBy: token.id, createdAt: t, expiresAt: t.addingTimeInterval(ttl))
        try await store.insert(transaction)
        return try Response.json(TransactionCreated(id: id, expiresAt: transaction.expiresAt.formatted(.iso8601), purpose: body.purpose), status: .created)
    }

    /// `POST /api/transactions/{id}/verify` → 200 `{"id","valid":true,"purpose"}` the first time;
    /// 409 once used, 410 once expired, 404 unknown.
    func verify(_ context: ServiceContext) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        guard (16...64).contains(id.count), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw APIError.badRequest(.invalidID, "not a transaction id", field: "id")
        }
        switch try await store.verifyTransaction(id: id, at: now()) {
        case .verified(let tx):
            return try Response.json(TransactionVerified(id: id, valid: true, purpose: tx.purpose))
        case .unknown: throw APIError(.notFound, .unknownTransaction, "no transaction \(id)")
        case .expired: throw APIError(.gone, .expired, "transaction \(id) expired")
        case .alreadyVerified: throw APIError(.conflict, .alreadyVerified, "transaction \(id) was already verified (single use)")
        }
    }
}
