import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// The order of pipelined requests on one connection, when two parties answer them: the lane,
/// at once, and the router, one request after another and later.
///
/// The lane may answer a request only when every request before it has been answered in full;
/// while one the router takes is unanswered, the requests behind it go to the router too, so no
/// lane answer overtakes a router answer or lands inside one.
struct PipelineOrder {
    /// Requests handed to the router whose response has not ended.
    private(set) var routed = 0

    /// Whether the lane may answer the request that starts now.
    var laneMayAnswer: Bool { routed == 0 }
    /// A request went to the router.
    mutating func handedToRouter() { routed += 1 }
    /// A response the router wrote has ended.
    mutating func routerAnswered() { if routed > 0 { routed -= 1 } }
}

/// Applies a `ResponseLane` to one connection. It sits after Hummingbird's HTTP/1 to HTTP types
/// conversion and before its request handling: a request the lane answers is written back from
/// here; any other passes on whole, and the router's response passes back through unchanged.
///
/// The lane answers only while the connection is writable. A client that sends requests and
/// reads no answers fills the socket's buffer; the requests behind that go to the router, whose
/// writes wait for the client and whose reading stops, so the answers held for a client are
/// bounded by the channel's write buffer, not by what the client sends.
package final class ResponseLaneHandler: ChannelDuplexHandler, RemovableChannelHandler {
    /// Request parts, as Hummingbird's HTTP/1 channel converts them.
    package typealias InboundIn = HTTPRequestPart
    /// The parts of requests the lane leaves to the router, passed on unchanged.
    package typealias InboundOut = HTTPRequestPart
    /// The router's response parts, passed on unchanged.
    package typealias OutboundIn = HTTPResponsePart
    /// Response parts: the router's, and the lane's own answers.
    package typealias OutboundOut = HTTPResponsePart

    private let lane: ResponseLane
    private var order = PipelineOrder()
    /// The lane's response, sent once the request it answers has ended.
    private var pending: (HTTPResponse, ByteBuffer)?
    /// The peer's address, read once per connection.
    private var peer: String??

    init(_ lane: ResponseLane) { self.lane = lane }

    /// Answers a request at its end when the lane can, else passes its parts on.
    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(var request):
            var declined = false
            if order.laneMayAnswer, context.channel.isWritable {
                switch lane.response(for: request, client: { self.peerAddress(context) }) {
                case .answered(let head, let body):
                    pending = (head, body)
                    return
                case .declined: declined = true
                case .notTaken: break
                }
            }
            order.handedToRouter()
            // The router's handler reads the mark to skip asking the route again; no client sets it.
            if declined {
                request.headerFields[LaneRoute.declinedField] = "1"
                context.fireChannelRead(wrapInboundOut(.head(request)))
            } else if request.headerFields[LaneRoute.declinedField] != nil {
                request.headerFields[LaneRoute.declinedField] = nil
                context.fireChannelRead(wrapInboundOut(.head(request)))
            } else {
                context.fireChannelRead(data)
            }
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

    /// Passes the router's response on, counting its end for the order of pipelined requests.
    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { order.routerAnswered() }
        context.write(data, promise: promise)
    }

    private func peerAddress(_ context: ChannelHandlerContext) -> String? {
        if let peer { return peer }
        let address = context.channel.remoteAddress?.ipAddress
        peer = .some(address)
        return address
    }
}
