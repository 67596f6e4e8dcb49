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

    /// What `head` says about its connection: `close` among its tokens wins over `keep-alive`
    /// (in any order, header or case, with spaces or tabs around); HTTP/1.0 keeps the connection
    /// only when asked to, later versions unless asked not to.
    static func persistence(_ head: HTTPRequestHead) -> Persistence {
        // NIO's tokens: split at commas, spaces and tabs trimmed; compared without allocating.
        let tokens = head.headers[canonicalForm: "connection"]
        if tokens.contains(where: { isToken($0, "close") }) { return .close }
        if head.version.major == 1 && head.version.minor == 0 { return tokens.contains(where: { isToken($0, "keep-alive") }) ? .keepHTTP10 : .close }
        return head.version.major >= 1 ? .keep : .close
    }

    /// True when `text` is `token` (lower-case ASCII) in any case.
    static func isToken(_ text: Substring, _ token: StaticString) -> Bool {
        text.utf8.count == token.utf8CodeUnitCount && token.withUTF8Buffer { expected in
            zip(text.utf8, expected).allSatisfy { (0x41...0x5A).contains($0) ? $0 | 0x20 == $1 : $0 == $1 }
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        let persistence = Self.persistence(head)
        waiting.append(persistence)
        guard persistence == .close, head.headers["connection"] != ["close"] else { return context.fireChannelRead(data) }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.code >= 200 && waiting.first != .keep:
            // No request read (an answer to bytes that were no request): the connection ends.
            head.headers.replaceOrAdd(name: "connection", value: waiting.first == .keepHTTP10 ? "keep-alive" : "close")
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
