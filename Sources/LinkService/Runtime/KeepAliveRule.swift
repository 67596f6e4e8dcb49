import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Marks a request that does not keep its connection open — HTTP/1.0 without
/// `Connection: keep-alive`, or any `Connection` header naming `close` among other tokens — with
/// the plain `Connection: close` Hummingbird looks for, so the connection is closed once it is
/// answered. The conversion to HTTP types drops the request's version, and without the mark an
/// HTTP/1.0 client reading to the end of the connection waited for the request timeout while
/// its connection held a slot. Sits before that conversion (`install(before:)`); a marked request
/// goes to the router, which the lane leaves every request with a `Connection` header to.
final class KeepAliveRule: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data), !head.isKeepAlive, head.headers["connection"] != ["close"] else {
            return context.fireChannelRead(data)
        }
        head.headers.replaceOrAdd(name: "connection", value: "close")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    /// Adds the rule to `pipeline` just before its conversion of HTTP/1 parts to HTTP types;
    /// false when there is no such conversion.
    static func install(in pipeline: ChannelPipeline.SynchronousOperations) -> Bool {
        guard let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) else { return false }
        return (try? pipeline.addHandler(KeepAliveRule(), position: .before(codec))) != nil
    }
}
