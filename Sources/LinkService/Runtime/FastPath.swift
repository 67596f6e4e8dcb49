import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Prometheus
import Synchronization

/// Answers the two hottest requests on the event loop, before Hummingbird's async machinery:
/// GET of the association files (pre-encoded bytes) and GET `/i/{code}` when the link is in the
/// hot cache with a page already rendered for the visitor's platform, has no use limit and has not
/// expired. Everything else — and any request this handler is unsure about — passes through
/// untouched to the router, which gives the same answer more slowly.
///
/// Pipelining stays ordered: NIO's pipeline handler (below this one) delivers the next request
/// only after the previous response has ended.
struct FastPath: Sendable {
    let documents: [String: StaticDocument]
    let service: LinkService
    private let documentCounters: [String: (ok: Counter, notModified: Counter)]
    private let pageCounter: Counter
    private let date = HTTPDate()

    init(service: LinkService, documents: [String: StaticDocument]) {
        self.service = service
        self.documents = documents
        var counters: [String: (Counter, Counter)] = [:]
        for path in documents.keys {
            counters[path] = (service.metrics.requestCounter(route: path, status: 200), service.metrics.requestCounter(route: path, status: 304))
        }
        documentCounters = counters
        pageCounter = service.metrics.requestCounter(route: "/i/{code}", status: 200)
    }

    /// The complete response for `request`, or nil to let the router handle it.
    func response(for request: HTTPRequest) -> (HTTPResponse, ByteBuffer)? {
        guard request.method == .get, let path = request.path else { return nil }
        // "Connection: close" or an upgrade needs the router's connection handling.
        if let connection = request.headerFields[.connection], connection.lowercased() != "keep-alive" { return nil }
        if let document = documents[path] {
            var head = HTTPResponse(status: .ok, headerFields: document.headers)
            if let tag = request.headerFields[.ifNoneMatch], tag == document.etag {
                head = HTTPResponse(status: .notModified, headerFields: document.notModifiedHeaders)
                documentCounters[path]?.notModified.increment()
                head.headerFields[.date] = date.now()
                return (head, ByteBuffer())
            }
            documentCounters[path]?.ok.increment()
            head.headerFields[.date] = date.now()
            return (head, document.body)
        }
        guard path.utf8.count > 3, path.hasPrefix("/i/") else { return nil }
        let code = String(path.dropFirst(3))
        guard service.input.isValidCode(code) else { return nil }
        let audience = LandingPage.Audience(userAgent: request.headerFields[.userAgent])
        guard let page = service.hot.servablePage(code, audience, now: service.now()) else { return nil }
        service.hot.countLater(code)
        service.metrics.clicks.increment()
        pageCounter.increment()
        var fields = LinkService.htmlHeaders(cache: "private, no-store", length: page.readableBytes)
        fields[.date] = date.now()
        return (HTTPResponse(status: .ok, headerFields: fields), page)
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
            if let response = fastPath.response(for: request) { pending = response; return }
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
