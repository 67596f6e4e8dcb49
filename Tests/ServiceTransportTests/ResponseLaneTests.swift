import SwitchyardCore
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
@testable import ServiceTransport
import SwitchyardTestSupport
import Testing

/// The lane on its own: which requests it answers, which it leaves to the router, and the order
/// of pipelined requests when both answer.
@Suite struct ResponseLaneTests {
    /// Answers the lane gave, by route pattern and status.
    final class Seen: Sendable {
        let answers = Locked<[String]>([])
        var list: [String] { answers.withLock { $0 } }
    }

    /// `/doc` always answered; `/items/{id}` answered for ids starting with "hot".
    static func lane(_ seen: Seen) -> ResponseLane {
        ResponseLane(routes: routes, serverName: "test") { route in
            { request, status, client, _ in
                seen.answers.withLock { $0.append("\(route.pattern) \(request.path ?? "") \(status.code) \(client() ?? "-")") }
            }
        }
    }

    static let routes = [
        LaneRoute("/doc") { _ in .init(status: .ok, fields: [.contentType: "text/plain", .contentLength: "3"], body: ByteBuffer(string: "doc")) },
        LaneRoute("/items/{id}") { request in
            guard let id = request.parameter, id.hasPrefix("hot") else { return nil }
            let body = "item \(id)"
            return .init(status: .ok, fields: [.contentLength: String(body.utf8.count)], body: ByteBuffer(string: body))
        },
    ]

    static func get(_ path: String, _ fields: HTTPFields = [:], method: HTTPRequest.Method = .get) -> HTTPRequestPart {
        .head(HTTPRequest(method: method, scheme: nil, authority: "x", path: path, headerFields: fields))
    }

    /// What the handler wrote back, as "status body" per response.
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var out: [String] = []
        var current = ""
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            switch part {
            case .head(let response): current = "\(response.status.code)"
            case .body(let body): current += " " + String(buffer: body)
            case .end: out.append(current)
            }
        }
        return out
    }

    /// The paths that went on to the router.
    static func routed(_ channel: EmbeddedChannel) throws -> [String] {
        var out: [String] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) {
            if case .head(let request) = part { out.append(request.path ?? "") }
        }
        return out
    }

    @Test func answersItsRoutesAndPassesEverythingElseOn() throws {
        let seen = Seen()
        let channel = EmbeddedChannel(handler: Self.lane(seen).handler())
        let cases: [(HTTPRequestPart, lane: Bool)] = [
            (Self.get("/doc"), true),
            (Self.get("/items/hot1"), true),
            (Self.get("/items/cold"), false),        // the route declines
            (Self.get("/items/hot1/more"), false),   // more segments than the pattern
            (Self.get("/items/"), false),            // an empty parameter
            (Self.get("/doc?x=1"), true),            // a query: the answer does not depend on it
            (Self.get("/items/hot1?utm_source=news%20letter&fbclid=a"), true),
            (Self.get("/items/hot%31"), false),      // an escape: the router decodes it
            (Self.get("/doc", method: .head), false),
            (Self.get("/doc", method: .post), false),
            (Self.get("/doc", [.connection: "close"]), false),
            (Self.get("/doc", [.connection: "Keep-Alive"]), true),
            (Self.get("/elsewhere"), false),
            (Self.get("/doc", [.contentLength: "5"]), false),   // a body: the router answers without waiting for it
            (Self.get("/doc", [.transferEncoding: "chunked"]), false),
            (Self.get("/doc", [.contentLength: "0"]), true),
        ]
        for (head, lane) in cases {
            try channel.writeInbound(head)
            try channel.writeInbound(HTTPRequestPart.end(nil))
            guard case .head(let request) = head else { continue }
            let routed = try Self.routed(channel)
            #expect(routed == (lane ? [] : [request.path!]), "\(request.method) \(request.path!) \(request.headerFields)")
            if !lane {
                // The router answers before the next request is sent.
                try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .notFound)))
                try channel.writeOutbound(HTTPResponsePart.end(nil))
            }
            let written = try Self.written(channel)
            #expect(written == [lane ? "200 " + (request.path!.hasPrefix("/doc") ? "doc" : "item hot1") : "404"], "\(request.path!)")
        }
        #expect(seen.list.count == 6)
        #expect(seen.list.first?.hasPrefix("/doc /doc 200") == true, "\(seen.list)")
        #expect(seen.list.contains { $0.hasPrefix("/items/{id} /items/hot1 200") })
    }

    /// A request whose route declined on the lane reaches the router marked, so the router's
    /// handler does not ask the route again; a mark a client sends never reaches the router.
    @Test func aDeclinedRequestIsMarkedAndNoClientCanMarkOne() throws {
        let channel = EmbeddedChannel(handler: Self.lane(Seen()).handler())
        let forged: HTTPFields = [LaneRoute.declinedField: "1"]
        for (head, marked) in [(Self.get("/items/cold"), true), (Self.get("/elsewhere", forged), false), (Self.get("/items/hot%31", forged), false),
                               (Self.get("/doc", forged, method: .head), false), (Self.get("/items/cold", forged), true)] {
            try channel.writeInbound(head)
            try channel.writeInbound(HTTPRequestPart.end(nil))
            guard case .head(let request)? = try channel.readInbound(as: HTTPRequestPart.self) else { Issue.record("not routed"); continue }
            #expect((request.headerFields[LaneRoute.declinedField] != nil) == marked, "\(request.method) \(request.path ?? "")")
            #expect(request.headerFields[values: LaneRoute.declinedField].count <= 1)
            _ = try channel.readInbound(as: HTTPRequestPart.self)
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .notFound)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
            _ = try Self.written(channel)
        }
    }

    @Test func theLaneAddsDateAndServerToItsAnswers() throws {
        let channel = EmbeddedChannel(handler: Self.lane(Seen()).handler())
        try channel.writeInbound(Self.get("/doc"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        guard case .head(let response) = try channel.readOutbound(as: HTTPResponsePart.self) else { Issue.record("no head"); return }
        #expect(response.headerFields[.server] == "test")
        #expect(response.headerFields[.date]?.hasSuffix(" GMT") == true)
        #expect(response.headerFields[.contentLength] == "3")
    }

    /// Pipelined requests: behind a request the router has not answered, the lane answers
    /// nothing, so answers leave in the order the requests came.
    @Test func behindARouterRequestEverythingGoesToTheRouter() throws {
        let channel = EmbeddedChannel(handler: Self.lane(Seen()).handler())
        for path in ["/slow", "/doc", "/items/hot2"] {
            try channel.writeInbound(Self.get(path))
            try channel.writeInbound(HTTPRequestPart.end(nil))
        }
        #expect(try Self.routed(channel) == ["/slow", "/doc", "/items/hot2"])
        #expect(try Self.written(channel).isEmpty)
        // The router answers the three, one after another; then the lane may answer again.
        for status in [HTTPResponse.Status.ok, .ok, .ok] {
            try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: status)))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }
        #expect(try Self.written(channel) == ["200", "200", "200"])
        try channel.writeInbound(Self.get("/doc"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.routed(channel).isEmpty)
        #expect(try Self.written(channel) == ["200 doc"])
    }

    /// A client that reads no answers: once the connection cannot take more, requests go to the
    /// router (whose writes wait for the client), so the lane holds no growing pile of answers.
    @Test func anUnwritableConnectionSendsRequestsToTheRouter() throws {
        let channel = EmbeddedChannel(handler: Self.lane(Seen()).handler())
        channel.isWritable = false
        try channel.writeInbound(Self.get("/doc"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.routed(channel) == ["/doc"])
        #expect(try Self.written(channel).isEmpty)
        // The router's answer ends; the connection can take more again: the lane answers.
        try channel.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try channel.writeOutbound(HTTPResponsePart.end(nil))
        _ = try Self.written(channel)
        channel.isWritable = true
        try channel.writeInbound(Self.get("/doc"))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        #expect(try Self.routed(channel).isEmpty)
        #expect(try Self.written(channel) == ["200 doc"])
    }

    @Test func theOrderRuleCountsRouterRequests() {
        var order = PipelineOrder()
        #expect(order.laneMayAnswer)
        order.handedToRouter()
        order.handedToRouter()
        order.routerAnswered()
        #expect(!order.laneMayAnswer)
        order.routerAnswered()
        #expect(order.laneMayAnswer)
        order.routerAnswered()  // a response the lane did not see the request of: never below zero
        #expect(order.routed == 0)
    }

    /// Over a real socket, Hummingbird's own HTTP/1 channel with the lane added: pipelined
    /// requests that mix lane and router answers come back in order, the router's handler gives
    /// the route's own answer for a request the lane left to it, and a slow router answer is
    /// not overtaken.
    @Test func pipelinedOverHummingbirdsChannel() async throws {
        let seen = Seen()
        let lane = Self.lane(seen)
        let router = Router(context: BasicRequestContextWithAddress.self)
        for route in Self.routes {
            router.get(route) { _, _ in Response(status: .notFound, body: .init(byteBuffer: ByteBuffer(string: "router declined"))) }
        }
        router.get("/slow") { _, _ in
            try await Task.sleep(for: .milliseconds(200))
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "slow")))
        }
        let app = Application(router: router, server: .http1(configuration: .init(additionalChannelHandlers: [lane.handler()])))
        let requests: [(path: String, body: String)] = [
            ("/doc", "doc"), ("/slow", "slow"), ("/doc", "doc"), ("/items/hot3", "item hot3"), ("/items/cold", "router declined"),
            ("/doc?q=1", "doc"), ("/slow", "slow"), ("/doc", "doc"),
        ]
        let raw = requests.map { "GET \($0.path) HTTP/1.1\r\nHost: x\r\n\r\n" }.joined()
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let count = requests.count
            let answers = try await blocking(limited: false) { try RawConnection.exchange(port: port, raw, expecting: count) }
            #expect(answers.map(\.body) == requests.map(\.body))
        }
        // The first /doc came before anything the router had to answer: the lane's. The rest of
        // the lane routes came behind a /slow and went to the router, which asked the routes.
        #expect(seen.list.first?.hasPrefix("/doc /doc 200") == true, "\(seen.list)")
    }
}

/// Hummingbird's basic context with the peer's address, which `RouterMethods.get(_:otherwise:)` needs.
struct BasicRequestContextWithAddress: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
