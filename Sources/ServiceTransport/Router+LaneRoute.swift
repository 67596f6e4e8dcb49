import Hummingbird
import NIOCore

extension RouterMethods where Context: RemoteAddressRequestContext {
    /// Adds `route` as a GET (and the HEAD Hummingbird derives from it) whose handler asks the
    /// route for its answer first and calls `otherwise` when it has none — the same answer the
    /// lane gives on the event loop, for requests the lane left to the router without asking the
    /// route (a request the route declined on the lane goes to `otherwise` at once).
    @discardableResult
    package func get(_ route: LaneRoute, otherwise: @escaping @Sendable (Request, Context) async throws -> Response) -> Self {
        let shape = route.shape
        let name = shape.parameter ? String(route.pattern.dropFirst(shape.prefix.count + 1).dropLast()) : nil
        return on(RouterPath(route.pattern), method: .get) { request, context in
            if request.method == .get, request.headers[LaneRoute.declinedField] == nil {
                let parameter = name.flatMap { context.parameters.get($0) }.map { Substring($0) }
                let asked = LaneRoute.Request(head: request.head, parameter: parameter, client: { context.remoteAddress?.ipAddress })
                if let answer = route.answer(asked) {
                    return Response(status: answer.status, headers: answer.fields, body: .init(byteBuffer: answer.body))
                }
            }
            return try await otherwise(request, context)
        }
    }
}
