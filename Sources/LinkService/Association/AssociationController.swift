import LinkRequests
import AssociatedDomains
import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import NIOCore
import ServiceTransport
import SwitchyardCore

/// The association files (`apple-app-site-association` at both paths, `assetlinks.json`) of
/// each domain, and the OpenAPI document: generated and encoded once, at start, and answered
/// whole, with an ETag. A request gets the files of the domain its `Host` names.
struct AssociationController: Sendable {
    /// Each association file's path, with the file of each domain by index (nil: that domain
    /// has no such file, 404).
    let documents: [String: [StaticDocument?]]
    /// The OpenAPI document, the same on every host.
    let openAPI: StaticDocument?
    /// Which domain a request is for.
    let hosts: DomainHosts

    func addRoutes(to router: Router<ServiceContext>) {
        for route in laneRoutes {
            router.get(route) { request, _ in
                guard let document = document(route.pattern, authority: request.head.authority) else { throw HTTPError(.notFound) }
                return document.response(for: request)
            }
        }
    }

    /// The document at `path` for the domain `authority` names; nil when that domain has none
    /// (or no domain is named: ``DomainGuard`` answers that request first).
    func document(_ path: String, authority: String?) -> StaticDocument? {
        if path == Self.openAPIPath { return openAPI }
        guard let byDomain = documents[path], let domain = hosts.domain(authority: authority), domain < byDomain.count else { return nil }
        return byDomain[domain]
    }

    /// Each domain's association files, by path. A domain whose platform has no app gets no file (404), not one that names no app.
    static func documents(_ configuration: ServiceConfiguration) -> [String: [StaticDocument?]] {
        let domains = configuration.servedDomains
        let aasa = domains.map { $0.apple.isEmpty ? nil : StaticDocument(JSONWriter.compact($0.appSiteAssociation)) }
        let assetLinks = domains.map { $0.android.isEmpty ? nil : StaticDocument(JSONWriter.compact($0.assetLinks.json)) }
        var documents: [String: [StaticDocument?]] = [:]
        if aasa.contains(where: { $0 != nil }) {
            documents["/.well-known/apple-app-site-association"] = aasa
            documents["/apple-app-site-association"] = aasa
        }
        if assetLinks.contains(where: { $0 != nil }) { documents["/.well-known/assetlinks.json"] = assetLinks }
        return documents
    }

    /// The documents as lane routes: answered whole on the lane when the request's domain has
    /// the file; anything else (a host no domain names, a domain without the file) goes to the
    /// router, which says so.
    var laneRoutes: [LaneRoute] {
        (documents.keys.sorted() + (openAPI == nil ? [] : [Self.openAPIPath])).map { path in
            LaneRoute(path) { request in
                document(path, authority: request.head.authority)?.answer(ifNoneMatch: request.head.headerFields[.ifNoneMatch])
            }
        }
    }

    /// Where the OpenAPI document is served.
    static let openAPIPath = "/openapi.json"

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

