import Foundation
import Hummingbird
import LinkStorage
import SwitchyardCore

extension LinkService {
    /// `POST /api/transactions` `{"purpose"?: String, "ttl"?: seconds}` → 201 `{"id","expiresAt"}`.
    /// A helper app that receives an x-callback-url request carrying this id asks the service to
    /// verify it; each id verifies once.
    func createTransaction(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        let token = try context.verifiedToken()
        var purpose: String?
        var ttl = 300.0
        if request.headers[.contentLength].map({ $0 != "0" }) ?? true {
            let body = try await readJSON(request, context)
            guard let members = body.objectMembers else { throw .badRequest(.notAnObject, "the body must be a JSON object") }
            for (key, value) in members {
                switch (key, value) {
                case ("purpose", .string(let s)) where s.count <= 200:
                    try LinkInput.checkText(s, field: "purpose")
                    purpose = s
                case ("ttl", .number(let n, _)) where n >= 1 && n <= 86_400: ttl = n
                case ("purpose", _): throw .badRequest(.invalidField, "purpose must be a string of at most 200 characters", field: "purpose")
                case ("ttl", _): throw .badRequest(.invalidField, "ttl must be 1–86400 seconds", field: "ttl")
                default: throw .badRequest(.unknownField, "unknown field \(JSONWriter.quote(key)) (known: purpose, ttl)", field: key)
                }
            }
        }
        let t = now()
        let id = Base64URL.random(bytes: 32)  // 256 bits, 43 characters
        let transaction = LinkStore.Transaction(id: id, purpose: purpose, createdBy: token.id, createdAt: t, expiresAt: t.addingTimeInterval(ttl))
        try await storeCall { () async throws(StoreError) in try await store.insert(transaction) }
        return Response.json(.object([("id", .string(id)), ("expiresAt", .string(transaction.expiresAt.formatted(.iso8601))),
                                      ("purpose", purpose.map(JSONValue.string) ?? .null)]), status: .created)
    }

    /// `POST /api/transactions/{id}/verify` → 200 `{"id","valid":true,"purpose"}` the first time;
    /// 409 once used, 410 once expired, 404 unknown.
    func verifyTransaction(_ request: Request, _ context: ServiceContext) async throws(APIError) -> Response {
        let id = context.parameters.get("id") ?? ""
        guard (16...64).contains(id.count), id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw .badRequest(.invalidID, "not a transaction id", field: "id")
        }
        let t = now()
        switch try await storeCall({ () async throws(StoreError) in try await store.verifyTransaction(id: id, at: t) }) {
        case .verified(let tx):
            return Response.json(.object([("id", .string(id)), ("valid", .bool(true)), ("purpose", tx.purpose.map(JSONValue.string) ?? .null)]))
        case .unknown: throw APIError(.notFound, .unknownTransaction, "no transaction \(id)")
        case .expired: throw APIError(.gone, .expired, "transaction \(id) expired")
        case .alreadyVerified: throw APIError(.conflict, .alreadyVerified, "transaction \(id) was already verified (single use)")
        }
    }
}
