import LinkRequests
import AssociatedDomains
import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import NIOCore
import ServiceTransport
import SwitchyardCore

/// The association files (`apple-app-site-association` at both paths, `assetlinks.json`) and
/// the OpenAPI document: generated and encoded once, at start, and answered whole, with an ETag.
struct AssociationController: Sendable {
    /// The documents by path.
    let documents: [String: StaticDocument]

    func addRoutes(to router: Router<ServiceContext>) {
        for (path, document) in documents { router.get(document.route(path)) { request, _ in document.response(for: request) } }
    }

    /// The association files and the OpenAPI document, generated and encoded once, by path. A
    /// platform without an app gets no file (404), not one that names no app.
    static func documents(_ configuration: ServiceConfiguration) -> [String: StaticDocument] {
        var documents: [String: StaticDocument] = [:]
        if !configuration.apple.isEmpty {
            let aasa = StaticDocument(JSONWriter.compact(configuration.appSiteAssociation))
            documents["/.well-known/apple-app-site-association"] = aasa
            documents["/apple-app-site-association"] = aasa
        }
        if !configuration.android.isEmpty {
            documents["/.well-known/assetlinks.json"] = StaticDocument(JSONWriter.compact(configuration.assetLinks.json))
        }
        documents["/openapi.json"] = openAPIDocument
        return documents
    }

    /// The documents as lane routes: always answered whole, on the lane or by the router.
    var laneRoutes: [LaneRoute] {
        documents.sorted { $0.key < $1.key }.map { $0.value.route($0.key) }
    }

    /// The OpenAPI 3.1 document of every route (`Resources/openapi.json`), served at /openapi.json.
    static let openAPIDocument: StaticDocument? = ServiceResources.path("openapi.json")
        .flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }
        .map { StaticDocument($0) }
}

/// A response computed once at start-up: bytes, ETag and headers, served without re-encoding
/// or rebuilding anything per request.
struct StaticDocument: Sendable {
    let body: ByteBuffer
    let etag: String
    let headers: HTTPFields
    let notModifiedHeaders: HTTPFields

    init(_ text: String, contentType: String = "application/json") {
        body = ByteBuffer(string: text)
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a 64
        for b in text.utf8 { hash = (hash ^ UInt64(b)) &* 0x100_0000_01B3 }
        etag = "\"" + String(hash, radix: 16) + "\""
        notModifiedHeaders = [.eTag: etag, .cacheControl: "public, max-age=3600"]
        headers = [.contentType: contentType, .eTag: etag, .cacheControl: "public, max-age=3600", .contentLength: String(body.readableBytes)]
    }

    /// Whether an If-None-Match value names `etag` (RFC 9110: `*`, or a list of tags compared
    /// weakly, `W/"x"` matching `"x"`).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || (tag.hasPrefix("W/") && tag.dropFirst(2) == etag)
        }
    }

    /// The answer to a GET with `ifNoneMatch`: 304 when it names this version, else the file.
    func answer(ifNoneMatch tag: String?) -> LaneRoute.Answer {
        if let tag, Self.matches(tag, etag) { return .init(status: .notModified, fields: notModifiedHeaders, body: ByteBuffer()) }
        return .init(status: .ok, fields: headers, body: body)
    }

    /// The document at `path`: always answered whole, on the lane or by the router.
    func route(_ path: String) -> LaneRoute {
        LaneRoute(path) { request in answer(ifNoneMatch: request.head.headerFields[.ifNoneMatch]) }
    }

    /// The answer to a HEAD (a GET without the body).
    func response(for request: Request) -> Response {
        let answer = answer(ifNoneMatch: request.headers[.ifNoneMatch])
        return Response(status: answer.status, headers: answer.fields, body: .init(byteBuffer: answer.body))
    }
}

