import LinkRequests
import Foundation
import Hummingbird
import NIOCore
import SwitchyardCore

/// Reads request bodies within `service.maximumBodyBytes`: JSON (strictly parsed: duplicate keys
/// and lone surrogates refused), typed API bodies, and dashboard forms. Past the limit is 413,
/// refused before any of it is read when the Content-Length says so.
struct RequestBodies: Sendable {
    let maximumBytes: Int
    /// The configuration key of the limit, as a 413 names it.
    var setting = "service.maximumBodyBytes"

    /// The body read as `T`.
    func decode<T: APIRequestBody>(_ type: T.Type, _ request: Request) async throws -> T {
        try T.decode(await json(request))
    }

    /// The JSON body.
    func json(_ request: Request) async throws -> JSONValue {
        let buffer = try await bytes(request, "body")
        do { return try JSONParser.parse(bytes: Array(buffer.readableBytesView), loneSurrogates: .refuse, duplicateKeys: .refuse) } catch {
            throw APIError.badRequest(.malformedJSON, "the body is not valid JSON: \(error)")
        }
    }

    /// A form body (`application/x-www-form-urlencoded`, as browsers send forms).
    func form(_ request: Request) async throws -> AdminForm {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/x-www-form-urlencoded" else {
            throw APIError(.unsupportedMediaType, .unsupportedMediaType, "send the form as application/x-www-form-urlencoded")
        }
        let buffer = try await bytes(request, "form")
        guard let form = AdminForm(String(decoding: buffer.readableBytesView, as: UTF8.self)) else {
            throw APIError.badRequest(.malformedForm, "the form is not valid form encoding")
        }
        return form
    }

    /// Whether the request's Content-Length says its body is over `limit`: refused before any
    /// of it is read, instead of when the bytes (which may never come) have arrived.
    static func declaresMore(_ request: Request, than limit: Int) -> Bool {
        // (A length too long for an Int, or not a number, never gets here: NIO's parser answers 400.)
        request.headers[.contentLength].flatMap { Int($0) }.map { $0 > limit } ?? false
    }

    private func bytes(_ request: Request, _ what: String) async throws(APIError) -> ByteBuffer {
        let tooLarge = APIError(.contentTooLarge, .bodyTooLarge, "the \(what) is larger than \(maximumBytes) bytes, the \(setting) of the configuration")
        if Self.declaresMore(request, than: maximumBytes) { throw tooLarge }
        var request = request
        do { return try await request.collectBody(upTo: maximumBytes) } catch { throw tooLarge }
    }
}
