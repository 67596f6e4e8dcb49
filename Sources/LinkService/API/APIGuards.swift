import LinkRequests
import HTTPTypes
import Hummingbird
import LinkStorage

/// The API's guards, as middleware on the route groups that need them (`LinkService.router()`):
/// the per-address rate limit first, then the token and its scope. A handler behind
/// `RequiresToken` finds the verified token in `context.token`.
struct AddressLimit: RouterMiddleware {
    typealias Context = ServiceContext
    let limits: RequestLimits

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        try await limits.address(request, context)
        return try await next(request, context)
    }
}

/// Requires a token granting `scope` (from `Authorization: Bearer`, or from `header` when given
/// and present): 401 without a valid one, 403 without the scope, 429 past the token's limit.
struct RequiresToken: RouterMiddleware {
    typealias Context = ServiceContext
    let tokens: TokenVerifier
    let scope: TokenScope
    var header: HTTPField.Name?
    /// Whether a token with `scope` on some domains only passes (the routes check the domain).
    var someDomains = false

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        var context = context
        // Refused tokens count against the address's limit, also on the reading routes (which
        // have no address limit): guessing tokens is bounded, reading with one is not.
        context.token = try await tokens.authenticateCounted(request, context, scope, header: header, someDomains: someDomains)
        return try await next(request, context)
    }
}

/// Where a store error a handler throws becomes the API's answer, for every route: 503
/// `storage-unavailable` with `Retry-After`, the error kept as the cause (logged with its
/// statement by `ObservabilityMiddleware`, never sent). Handlers just `try await` the store.
struct StoreFailures: RouterMiddleware {
    typealias Context = ServiceContext

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        do { return try await next(request, context) } catch let error as StoreError {
            throw APIError.storageUnavailable(cause: error)
        }
    }
}

extension APIError {
    /// The answer while the database fails: nothing was stored, come back shortly.
    static func storageUnavailable(cause: StoreError) -> APIError {
        APIError(.serviceUnavailable, .storageUnavailable, "the database is not available; nothing was stored", cause: cause)
    }
}

extension ServiceContext {
    /// The token `RequiresToken` verified for this request (401 on a route without that guard).
    func verifiedToken() throws(APIError) -> StoredToken {
        guard let token else { throw APIError(.unauthorized, .missingToken, "this endpoint needs a token: Authorization: Bearer <token>") }
        return token
    }
}
