import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SwitchyardCore

/// An API error: status, stable code, message and the field at fault. Rendered as
/// `{"error":{"code":…,"message":…,"field":…}}`; internals never leak into it. Handlers just
/// throw it: as Hummingbird's `HTTPResponseError` it builds its own response.
package struct APIError: SwitchyardError, HTTPResponseError {
    package var status: HTTPResponse.Status
    package var code: ErrorCode
    package var message: String
    package var field: String?
    package var retryAfter: Int?
    /// The methods a 405 names in its Allow header.
    package var allow: [String]?
    /// The storage's or engine's error behind a 5xx (logged, never sent).
    package var cause: (any Error)?
    /// For an error about `field`, what is wrong without the field's name before it: a form shows
    /// it after the field's label. Nil when the message is one sentence of its own.
    package var problem: String?

    package init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String, field: String? = nil, cause: (any Error)? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.cause = cause
    }

    package static func badRequest(_ code: ErrorCode, _ message: String, field: String? = nil) -> APIError { APIError(.badRequest, code, message, field: field) }

    /// A 400 about `field`: the message is `field: problem`.
    package static func fieldProblem(_ code: ErrorCode, _ field: String, _ problem: String) -> APIError {
        var error = APIError(.badRequest, code, "\(field): \(problem)", field: field)
        error.problem = problem
        return error
    }

    /// `Retry-After` (seconds) on every 503 the service sends.
    package static let retryAfterSeconds = 5

    package var location: SourceLocation? { field.map { SourceLocation(path: $0) } }

    package var response: Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        // Every 503 says when to come back (the storage may recover; a 429 carries its own wait).
        if let retryAfter = retryAfter ?? (status == .serviceUnavailable ? Self.retryAfterSeconds : nil) {
            headers[.retryAfter] = String(retryAfter)
        }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if let allow { headers[.allow] = allow.joined(separator: ", ") }
        let body = try! JSONValueEncoder(nilMembers: .omitted).encode(Body(error: .init(code: code.name, message: message, field: field)))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: JSONWriter.compact(body) + "\n")))
    }

    package func response(from request: Request, context: some RequestContext) -> Response { response }

    /// `{"error": {"code", "message", "field"?}}`: strings only, which always encode.
    package struct Body: Encodable {
        package struct Error: Encodable {
            package var code: String
            package var message: String
            package var field: String?
        }

        package var error: Error
    }
}

extension Response {
    /// A JSON response from a value.
    package static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: JSONWriter.compact(value) + "\n")))
    }
}
