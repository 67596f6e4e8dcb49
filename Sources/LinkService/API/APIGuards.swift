import HTTPTypes
import Hummingbird
import LinkStorage

/// The API's guards, as middleware on the route groups that need them (`LinkService.router()`):
/// the per-address rate limit first, then the token and its scope. A handler behind
/// `RequiresToken` finds the verified token in `context.token`.
struct AddressLimit: RouterMiddleware {
    typealias Context = ServiceContext
    let service: LinkService

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        try await service.limitAddress(request, context)
        return try await next(request, context)
    }
}

/// Requires a token granting `scope` (from `Authorization: Bearer`, or from `header` when given
/// and present): 401 without a valid one, 403 without the scope, 429 past the token's limit.
struct RequiresToken: RouterMiddleware {
    typealias Context = ServiceContext
    let service: LinkService
    let scope: TokenScope
    var header: HTTPField.Name?

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        var context = context
        // Refused tokens count against the address's limit, also on the reading routes (which
        // have no address limit): guessing tokens is bounded, reading with one is not.
        context.token = try await service.authenticateCounted(request, context, scope, header: header)
        return try await next(request, context)
    }
}

extension ServiceContext {
    /// The token `RequiresToken` verified for this request (401 on a route without that guard).
    func verifiedToken() throws(APIError) -> StoredToken {
        guard let token else { throw APIError(.unauthorized, .missingToken, "this endpoint needs a token: Authorization: Bearer <token>") }
        return token
    }
}
