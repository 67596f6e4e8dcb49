import SwitchyardCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import Prometheus
import Synchronization

/// Answers the two hottest requests on the event loop, before Hummingbird's async machinery and
/// before the conversion to HTTP types: GET of the association files and GET `/i/{code}` when the
/// link's page can be answered from memory. It decides nothing itself: the answers come from the
/// same functions the router calls (`StaticDocument.answer`, `LinkService.hotLinkPage`) and each
/// request is observed through the router's `ObservabilityMiddleware.observe` (count, duration,
/// log line). Everything else passes through untouched to the router.
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
    /// the peer's address (asked only when it is logged or kept).
    func response(for request: HTTPRequestHead, client: () -> String?) -> (HTTPResponseHead, ByteBuffer)? {
        let start = ContinuousClock.now
        // HTTP/1.0 (whose keep-alive rules differ), "Connection: close" and upgrades need the
        // router's connection handling.
        guard request.method == .GET, request.version == .http1_1 else { return nil }
        let headers = request.headers
        if let connection = headers.first(name: "connection"), connection.lowercased() != "keep-alive" { return nil }
        let path = request.uri
        let route: ServiceMetrics.Route
        let answer: (HTTPResponse.Status, HTTPFields, ByteBuffer)
        if let document = documents[path], let metrics = routes[path] {
            route = metrics
            answer = document.answer(ifNoneMatch: headers.first(name: "if-none-match"))
        } else if path.utf8.count > 3, path.hasPrefix("/i/") {
            let userAgent = headers.first(name: "user-agent")
            guard let (fields, page) = service.hotLinkPage(
                String(path.dropFirst(3)), userAgent: userAgent,
                preview: PreviewAgents.standard.isPreview(userAgent: userAgent) { headers.first(name: $0) },
                referer: headers.first(name: "referer"),
                address: { service.clientAddress(forwardedFor: { headers[LinkService.forwardedFor.rawName] }, peer: client) }) else { return nil }
            route = pageRoute
            answer = (.ok, fields, page)
        } else {
            return nil
        }
        var head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: answer.0.code))
        head.headers.reserveCapacity(answer.1.count + 1)
        for field in answer.1 { head.headers.add(name: field.name.rawName, value: field.value) }
        head.headers.add(name: "Date", value: date.now())
        ObservabilityMiddleware.observe(record: route.record, logger: service.logger, method: .get, path: path,
                                        status: answer.0.code, client: client, since: start)
        return (head, answer.2)
    }
}

/// The channel handler that applies `FastPath` (one per connection), placed right after the
/// HTTP/1 decoder and encoder.
///
/// Pipelined requests are answered in order: while a request the router handles is unanswered,
/// the requests behind it go to the router too (which answers one after another), so no fast
/// answer overtakes a slow one, nor lands in the middle of it.
final class FastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let fastPath: FastPath
    /// The response to send once the request it answers has ended.
    private var pending: (HTTPResponseHead, ByteBuffer)?
    /// Requests handed to the router and not yet answered in full.
    private var routed = 0
    /// The peer's address, read once per connection.
    private var peer: String??

    init(_ fastPath: FastPath) { self.fastPath = fastPath }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if routed == 0, let response = fastPath.response(for: request, client: { self.peerAddress(context) }) {
                pending = response
                return
            }
            routed += 1
            context.fireChannelRead(data)
        case .body:
            if pending == nil { context.fireChannelRead(data) }
        case .end:
            guard let (head, body) = pending else { context.fireChannelRead(data); return }
            pending = nil
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if body.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The router's response is complete: the next request may be answered here again.
        if routed > 0, case .end = unwrapOutboundIn(data) { routed -= 1 }
        context.write(data, promise: promise)
    }

    private func peerAddress(_ context: ChannelHandlerContext) -> String? {
        if let peer { return peer }
        let address = context.channel.remoteAddress?.ipAddress
        peer = .some(address)
        return address
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
