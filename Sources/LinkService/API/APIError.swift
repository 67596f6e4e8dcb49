import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import SwitchyardJSON

/// An API error: status, stable code, message and the field at fault. Rendered as
/// `{"error":{"code":…,"message":…,"field":…}}`; internals never leak into it.
struct APIError: Error, Sendable {
    var status: HTTPResponse.Status
    var code: String
    var message: String
    var field: String?
    var retryAfter: Int?

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String, field: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
    }

    static func badRequest(_ code: String, _ message: String, field: String? = nil) -> APIError { APIError(.badRequest, code, message, field: field) }

    var response: Response {
        var members: [(key: String, value: JSONValue)] = [("code", .string(code)), ("message", .string(message))]
        if let field { members.append(("field", .string(field))) }
        var headers: HTTPFields = [.contentType: "application/json"]
        // Every 503 says when to come back (the storage may recover; a 429 carries its own wait).
        if let retryAfter = retryAfter ?? (status == .serviceUnavailable ? LinkService.retryAfterSeconds : nil) {
            headers[.retryAfter] = String(retryAfter)
        }
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: JSONWriter.compact(.object([("error", .object(members))])) + "\n")))
    }
}

extension Response {
    /// A JSON response from a value.
    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"],
                 body: .init(byteBuffer: ByteBuffer(string: JSONWriter.compact(value) + "\n")))
    }
}
