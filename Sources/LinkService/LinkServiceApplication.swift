import AssociatedDomains
import Foundation
import Hummingbird
import NIOCore
import SwitchyardJSON

/// A response computed once at start-up: bytes, ETag and headers, served without re-encoding.
struct StaticDocument: Sendable {
    let body: ByteBuffer
    let etag: String
    let contentType: String

    init(_ text: String, contentType: String = "application/json") {
        body = ByteBuffer(string: text)
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a 64
        for b in text.utf8 { hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3 }
        etag = "\"" + String(hash, radix: 16) + "\""
        self.contentType = contentType
    }

    func response(for request: Request) -> Response {
        var headers: HTTPFields = [.contentType: contentType, .eTag: etag, .cacheControl: "public, max-age=3600"]
        if request.headers[.ifNoneMatch] == etag {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }
}

/// The link service's HTTP application (so far: association files and health).
///
/// ```swift
/// let app = LinkService.application(configuration: try ServiceConfiguration(contentsOf: path), host: "127.0.0.1", port: 8080)
/// try await app.runService()   // stops gracefully on SIGTERM/SIGINT
/// ```
public enum LinkService {
    public static func router(configuration: ServiceConfiguration) -> Router<BasicRequestContext> {
        let aasa = StaticDocument(JSONWriter.compact(configuration.appSiteAssociation))
        let assetLinks = StaticDocument(JSONWriter.compact(configuration.assetLinks.json))
        let router = Router()
        router.get("/.well-known/apple-app-site-association") { request, _ in aasa.response(for: request) }
        router.get("/apple-app-site-association") { request, _ in aasa.response(for: request) }
        router.get("/.well-known/assetlinks.json") { request, _ in assetLinks.response(for: request) }
        router.get("/healthz") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
        return router
    }

    public static func application(
        configuration: ServiceConfiguration, host: String = "127.0.0.1", port: Int = 8080,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(configuration: configuration),
            configuration: .init(address: .hostname(host, port: port), serverName: "switchyard"),
            onServerRunning: onServerRunning)
    }
}
