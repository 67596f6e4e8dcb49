import SwitchyardCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Prometheus
import Synchronization

/// Answers the two hottest requests on the event loop, before Hummingbird's async machinery:
/// GET of the association files and GET `/i/{code}` when the link's page can be answered from
/// memory. It decides nothing itself: the answers come from the same functions the router calls
/// (`StaticDocument.answer`, `LinkService.hotLinkPage`) and each request is observed through the
/// router's `ObservabilityMiddleware.observe` (count, duration, log line). Everything else passes
/// through untouched to the router.
///
/// Pipelining stays ordered: NIO's pipeline handler (below this one) delivers the next request
/// only after the previous response has ended.
struct FastPath: Sendable {
    let documents: [String: StaticDocument]
    let service: LinkService
    private let date = HTTPDate()
    /// The metrics of the routes this lane answers, looked up once.
    private let routes: [String: ServiceMetrics.Route]
    private let pageRoute: ServiceMetrics.Route

    init(service: LinkService, documents: [String: StaticDocument]) {
        self.service = service
        self.documents = documents
        routes = Dictionary(uniqueKeysWithValues: documents.keys.map { ($0, service.metrics.route($0)) })
        pageRoute = service.metrics.route("/i/{code}")
    }

    /// The complete response for `request`, or nil to let the router handle it. `client` gives
    /// the peer's address for the log line (asked only when it is written).
    func response(for request: HTTPRequest, client: () -> String?) -> (HTTPResponse, ByteBuffer)? {
        let start = ContinuousClock.now
        guard request.method == .get, let path = request.path else { return nil }
        // "Connection: close" or an upgrade needs the router's connection handling.
        if let connection = request.headerFields[.connection], connection.lowercased() != "keep-alive" { return nil }
        let route: ServiceMetrics.Route
        var answer: (HTTPResponse.Status, HTTPFields, ByteBuffer)
        if let document = documents[path], let metrics = routes[path] {
            route = metrics
            answer = document.answer(ifNoneMatch: request.headerFields[.ifNoneMatch])
        } else if path.utf8.count > 3, path.hasPrefix("/i/"),
                  let (fields, page) = service.hotLinkPage(
                      String(path.dropFirst(3)), userAgent: request.headerFields[.userAgent],
                      preview: LinkService.isPreview(userAgent: request.headerFields[.userAgent]) { request.headerFields[$0] },
                      referer: request.headerFields[.referer],
                      address: { service.clientAddress(forwardedFor: request.headerFields[LinkService.forwardedFor], peer: client) }) {
            route = pageRoute
            answer = (.ok, fields, page)
        } else {
            return nil
        }
        answer.1[.date] = date.now()
        ObservabilityMiddleware.observe(record: route.record, logger: service.logger, method: request.method, path: path,
                                        status: answer.0.code, client: client, since: start)
        return (HTTPResponse(status: answer.0, headerFields: answer.1), answer.2)
    }
}

/// The channel handler that applies `FastPath` (one per connection).
final class FastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let fastPath: FastPath
    /// The response to send once the request it answers has ended.
    private var pending: (HTTPResponse, ByteBuffer)?

    init(_ fastPath: FastPath) { self.fastPath = fastPath }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let channel = context.channel
            if let response = fastPath.response(for: request, client: { channel.remoteAddress?.ipAddress }) { pending = response; return }
            context.fireChannelRead(data)
        case .body:
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let (head, body) = pending else { context.fireChannelRead(data); return }
            pending = nil
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(body)), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}

/// The Date header value (RFC 9110 IMF-fixdate), formatted at most once per second.
final class HTTPDate: Sendable {
    private struct State {
        var second = -1
        var text = ""
        let formatter: DateFormatter = {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "GMT")
            f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return f
        }()
    }
    private let state = Mutex(State())

    func now() -> String {
        let t = Date()
        let second = Int(t.timeIntervalSince1970)
        return state.withLock { s in
            if s.second != second { s.second = second; s.text = s.formatter.string(from: t) }
            return s.text
        }
    }
}
