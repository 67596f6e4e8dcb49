// The floor of anything built on SwiftNIO: NIO's own HTTP/1 server pipeline
// (`configureHTTPServerPipeline`) and one handler that answers every request with a file's bytes,
// on NIO's singleton event loops (as `switchyard serve` runs). `service-wrk.sh --nio-floor`
// measures it beside the lane's AASA, so what the lane costs beyond NIO itself is a figure of
// the same run. Date and Server are sent as the lane sends them (Date formatted once a second).
//   nio-floor --port P --file F
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let name = arguments.next() {
    guard let value = arguments.next() else { fatalError("usage: nio-floor --port P --file F") }
    options[name] = value
}
guard let port = options["--port"].flatMap(Int.init), let file = options["--file"], let bytes = FileManager.default.contents(atPath: file) else {
    fatalError("usage: nio-floor --port P --file F")
}

/// The Date header's value, formatted at most once a second per event loop.
final class DateText {
    private var second = -1
    private var text = ""
    private let formatter: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f
    }()

    func now() -> String {
        let t = Date()
        let s = Int(t.timeIntervalSince1970)
        if s != second { second = s; text = formatter.string(from: t) }
        return text
    }
}

/// Answers each request at its end with the file, keeping the connection open as HTTP/1.1 does.
final class FileHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let body: ByteBuffer
    let date: DateText
    private var keepAlive = true

    init(body: ByteBuffer, date: DateText) {
        self.body = body
        self.date = date
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request): keepAlive = request.isKeepAlive
        case .body: break
        case .end:
            var headers = HTTPHeaders()
            headers.reserveCapacity(4)
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            headers.add(name: "Date", value: date.now())
            headers.add(name: "Server", value: "nio-floor")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            if keepAlive {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
            }
        }
    }
}

let body = ByteBuffer(bytes: bytes)
let group = MultiThreadedEventLoopGroup.singleton
let bootstrap = ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            try channel.pipeline.syncOperations.addHandler(FileHandler(body: body, date: DateText()))
        }
    }
let server = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
try await server.closeFuture.get()
