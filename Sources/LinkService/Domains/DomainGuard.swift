import Hummingbird
import HTTPTypes
import LinkConfiguration
import NIOCore
import SwitchyardCore

/// Refuses, with 421 Misdirected Request, a request for a domain's paths (association files,
/// landing pages, QR codes, claim pages) whose `Host` no configured domain names, so one domain's
/// files and pages are never answered for another host. The service's own paths (the API, the
/// dashboard, health, metrics, the OpenAPI document, Firebase's REST API) answer on any host.
/// With a configuration of one domain nothing is refused (``DomainHosts/strict``).
struct DomainGuard: RouterMiddleware {
    typealias Context = ServiceContext
    let hosts: DomainHosts

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        guard hosts.strict, !Self.isServiceWide(request.uri.path), hosts.domain(authority: request.head.authority) == nil else {
            return try await next(request, context)
        }
        return Self.misdirected(authority: request.head.authority)
    }

    /// Whether `path` is one of the service's own, answered on every host: its first segment is
    /// one of the service's paths other than the association files'.
    static func isServiceWide(_ path: String) -> Bool {
        let first = path.split(separator: "/", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        return first != ".well-known" && first != "apple-app-site-association" && ServiceConfiguration.servicePaths.contains(first)
    }

    /// The 421: a short plain-text body naming the host as sent, quoted (the first 100
    /// characters, escaped as JSON escapes them), never read as anything but text.
    static func misdirected(authority: String?) -> Response {
        let text = authority.map { "421 Misdirected Request: this service serves no domain at the host \(JSONWriter.quote(String($0.prefix(100))))\n" }
            ?? "421 Misdirected Request: the request names no host; this service answers only for its configured domains\n"
        return Response(status: .misdirectedRequest,
                        headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store", .xContentTypeOptions: "nosniff"],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
