import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// The HTTP/1.1 connection of `switchyard serve`: Hummingbird's own HTTP/1 channel, with the
/// connection guard and the event-loop lane put between the HTTP/1 decoder and the conversion
/// to HTTP types.
///
/// ```
/// socket ⇄ HTTP/1 decoder, encoder ⇄ ConnectionGuardHandler ⇄ FastPathHandler
///        ⇄ HTTP types codec ⇄ idle timeout ⇄ Hummingbird's router (one request after another)
/// ```
///
/// A request the lane answers never goes through the conversion to HTTP types and back (a tenth
/// of the CPU time of a cached landing page under wrk). The decoder's limits, the idle timeout
/// and the router's request loop are Hummingbird's, as `HTTP1Channel` sets them up.
struct ServiceHTTPChannel: HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    let responder: HTTPChannelHandler.Responder
    let connections: ConnectionCount
    /// nil: every request goes to the router.
    let fastPath: FastPath?
    let idleTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let decoder = HTTP1Channel.Configuration.DecoderConfiguration()
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = decoder.maxHeaderFieldSize
            limits.maxHeaderListSize = decoder.maxHeaderListSize
            limits.maxHeaderFieldCount = decoder.maxHeaderFieldCount
            let pipeline = channel.pipeline.syncOperations
            // As Hummingbird does: no pipelining assistance (the router reads requests one after
            // another), no NIO error handler, no outbound header validation (HTTP types validate).
            try pipeline.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            // Every connection counts against the connection limit and must send each request
            // whole within the request timeout, before the fast path sees it.
            try pipeline.addHandler(ConnectionGuardHandler(connections))
            if let fastPath { try pipeline.addHandler(FastPathHandler(fastPath)) }
            try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try pipeline.addHandler(HTTPConnectionStateHandler(idleTimeout: .init(idleTimeout), logger: logger))
            return try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}
