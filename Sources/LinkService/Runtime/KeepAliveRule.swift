import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Says, in each request and its answer, whether the connection stays open. A request that does
/// not keep it open — HTTP/1.0 without `Connection: keep-alive`, or a `Connection` header naming
/// `close` among other tokens or in capitals — is marked with the plain `Connection: close`
/// Hummingbird looks for, so the connection ends once it is answered (the conversion to HTTP
/// types drops the request's version: an HTTP/1.0 client reading to the end of the connection
/// waited for the request timeout while its connection held a slot). Its answer carries
/// `Connection: close`; an HTTP/1.0 keep-alive request's answer carries `Connection: keep-alive`,
/// as HTTP/1.0 clients expect. Sits before that conversion (`install(in:)`); a marked request goes
/// to the router, which the lane leaves every request with a `Connection` header to.
final class KeepAliveRule: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What a request said about its connection.
    enum Persistence { case keep, keepHTTP10, close }

    /// The requests read and not yet answered, oldest first (answers come in request order).
    private var waiting = CircularBuffer<Persistence>(initialCapacity: 4)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        let persistence: Persistence = head.isKeepAlive ? (head.version == .http1_0 ? .keepHTTP10 : .keep) : .close
        waiting.append(persistence)
        guard persistence == .close, head.headers["connection"] != ["close"] else { return context.fireChannelRead(data) }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200 && waiting.first != .keep:
            head.headers.replaceOrAdd(name: "connection", value: waiting.first == .close ? "close" : "keep-alive")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            if !waiting.isEmpty { waiting.removeFirst() }
            context.write(data, promise: promise)
        default:
            context.write(data, promise: promise)
        }
    }

    /// Adds the rule to `pipeline` just before its conversion of HTTP/1 parts to HTTP types;
    /// false when there is no such conversion.
    static func install(in pipeline: ChannelPipeline.SynchronousOperations) -> Bool {
        guard let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) else { return false }
        return (try? pipeline.addHandler(KeepAliveRule(), position: .before(codec))) != nil
    }
}
