import LinkRequests
import Foundation
import HTTPTypes
import Hummingbird
import LinkStorage

/// Checks API tokens: the bearer token (or another header's), its scope and its rate limit.
/// Only the SHA-256 of a token's secret is stored; it is compared in constant time.
struct TokenVerifier: Sendable {
    let store: LinkStore
    let limits: RequestLimits

    /// The token of `request` (`Authorization: Bearer`, or `header` when given and present):
    /// 401 when missing or wrong, 403 without `scope`, 429 past the token's limit. With
    /// `someDomains`, `scope` on some domains only is enough (the handler checks which); else the
    /// token must have it on every domain.
    func authenticate(_ request: Request, _ scope: TokenScope, header: HTTPField.Name? = nil, someDomains: Bool = false) async throws -> StoredToken {
        var text: String?
        if let header, let v = request.headers[header] { text = v }
        if text == nil, let auth = request.headers[.authorization] {
            guard auth.lowercased().hasPrefix("bearer ") else { throw APIError(.unauthorized, .invalidToken, "Authorization must be 'Bearer <token>'") }
            text = String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        guard let text else {
            throw APIError(.unauthorized, .missingToken, "this endpoint needs a token: Authorization: Bearer <token>\(header.map { " or \($0.rawName)" } ?? "")")
        }
        return try await verify(text, scope, someDomains: someDomains)
    }

    /// ``authenticate(_:_:header:)``, with a refused token (401) counted against the address's
    /// failed-authentication bucket (429 once past it): guessing tokens is bounded on every
    /// route that takes one, whether a group guard or the handler asks.
    func authenticateCounted(_ request: Request, _ context: ServiceContext, _ scope: TokenScope, header: HTTPField.Name? = nil,
                             someDomains: Bool = false) async throws -> StoredToken {
        do { return try await authenticate(request, scope, header: header, someDomains: someDomains) } catch let error as APIError {
            if error.status == .unauthorized { try await limits.failedAuthentication(request, context) }
            throw error
        }
    }

    /// The stored token `text` names: 401 when unknown, revoked or mistyped, 403 without
    /// `scope` (on every domain, unless `someDomains`), 429 past the token's rate limit.
    func verify(_ text: String, _ scope: TokenScope, someDomains: Bool = false) async throws -> StoredToken {
        let invalid = APIError(.unauthorized, .invalidToken, "the token is not valid (unknown, revoked or mistyped)")
        guard let (id, secret) = APIToken.parse(text) else { throw invalid }
        let record = try await store.token(id: id)
        // Compare even when the id is unknown, so timing says nothing about which ids exist.
        let expected = record?.secretHash ?? String(repeating: "0", count: 64)
        guard APIToken.constantTimeEquals(APIToken.hash(secret), expected), let record, record.revokedAt == nil else { throw invalid }
        if let domains = APIToken.domains(record, scope) {
            guard !domains.isEmpty else {
                // A token limited to domains is told so, not only that it lacks this scope.
                let limited = record.scopes.filter { $0.contains("@") }
                throw APIError(.forbidden, .insufficientScope, limited.isEmpty ? "token \(record.name) lacks the \(scope.rawValue) scope"
                               : "token \(record.name) lacks the \(scope.rawValue) scope: it has \(limited.joined(separator: " ")) only, and this covers every domain; use a token without --domain")
            }
            // Only what names a domain (a link's) can check it: everything else covers every domain.
            guard someDomains else {
                throw APIError(.forbidden, .insufficientScope, "token \(record.name) has \(scope.rawValue) on \(domains.sorted().joined(separator: ", ")) only, and this covers every domain; use a token without --domain")
            }
        }
        try await limits.token(record)
        return record
    }
}
