import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore

/// A GET route whose whole response can often be produced at once, in memory, without waiting
/// for anything: an association file, a landing page already rendered.
///
/// The same value serves both ways in: the router's handler for `pattern` asks `answer` first
/// (see `ResponseLane`), and the lane answers a request on the event loop when `answer` gives a
/// response — so what is cacheable is decided in one place, by the route itself.
package struct LaneRoute: Sendable {
    /// The request as the route sees it: the head, the value of the pattern's one `{name}`
    /// segment (nil for a pattern without one), and the peer's address, asked only when needed.
    package struct Request {
        /// The request head (method, path, header fields).
        package let head: HTTPRequest
        /// The value of the pattern's `{name}` segment; nil when the pattern has none.
        package let parameter: Substring?
        /// The peer's address; read it only when it is needed.
        package let client: () -> String?

        /// A request as given.
        package init(head: HTTPRequest, parameter: Substring?, client: @escaping () -> String?) {
            self.head = head
            self.parameter = parameter
            self.client = client
        }
    }

    /// A complete response: status, header fields (with Content-Length) and body.
    package struct Answer: Sendable {
        /// The response status.
        package var status: HTTPResponse.Status
        /// The header fields, with Content-Length; Date and Server are added by whoever sends it.
        package var fields: HTTPFields
        /// The whole body.
        package var body: ByteBuffer

        /// An answer as given.
        package init(status: HTTPResponse.Status, fields: HTTPFields, body: ByteBuffer) {
            self.status = status
            self.fields = fields
            self.body = body
        }
    }

    /// The header field the lane adds to a request whose route it asked and that declined, so
    /// the router's handler does not ask again; the lane removes it from every other request, so
    /// a client cannot send it.
    package static let declinedField = HTTPField.Name("Switchyard-Lane-Declined")!

    /// The path as the router writes it: literal segments, and at most one `{name}` segment, last.
    package let pattern: String
    /// The complete answer for a GET of this route, or nil when only the router can answer it
    /// (it needs the store, a render, a write that must be awaited).
    package let answer: @Sendable (Request) -> Answer?

    /// A route at `pattern` whose answers come from `answer`.
    package init(_ pattern: String, answer: @escaping @Sendable (Request) -> Answer?) {
        self.pattern = pattern
        self.answer = answer
    }

    /// The literal part before the parameter, and whether there is one.
    var shape: (prefix: String, parameter: Bool) {
        guard pattern.hasSuffix("}"), let open = pattern.lastIndex(of: "{") else { return (pattern, false) }
        return (String(pattern[..<open]), true)
    }
}

/// Answers GETs of `LaneRoute`s on the event loop, before Hummingbird's request machinery, when a
/// route has its complete answer at hand; everything else goes on to the router untouched.
///
/// It is one channel handler per connection, added through Hummingbird's
/// `HTTP1Channel.Configuration.additionalChannelHandlers`:
///
/// ```swift
/// let lane = ResponseLane(routes: routes, serverName: "switchyard") { route in { request, status, client, start in … } }
/// let server = HTTPServerBuilder.http1(configuration: .init(additionalChannelHandlers: [lane.handler()]))
/// ```
///
/// A request goes to the router when it is not a GET, carries a percent sign in its path, a body or
/// a `Connection` header other than keep-alive (the router's connection handling closes
/// connections), or when its route declines. See `ResponseLaneHandler` for the order of
/// pipelined requests and for a client that does not read.
package struct ResponseLane: Sendable {
    /// What the lane reports about each request a route answers: the request, the status, the
    /// peer's address (asked only when needed) and when the request was taken up.
    package typealias Observer = @Sendable (HTTPRequest, HTTPResponse.Status, () -> String?, ContinuousClock.Instant) -> Void

    /// A route with its observer, made once.
    private struct Entry: Sendable {
        let route: LaneRoute
        let observe: Observer
    }
    private let exact: [String: Entry]
    private let prefixed: [(prefix: String, entry: Entry)]
    private let server: HTTPField?
    private let date = HTTPDate()

    /// `observer` makes each route's observer once, when the lane is made.
    package init(routes: [LaneRoute], serverName: String?, observer: (LaneRoute) -> Observer) {
        var exact: [String: Entry] = [:]
        var prefixed: [(String, Entry)] = []
        for route in routes {
            let entry = Entry(route: route, observe: observer(route))
            let shape = route.shape
            if shape.parameter { prefixed.append((shape.prefix, entry)) } else { exact[route.pattern] = entry }
        }
        self.exact = exact
        self.prefixed = prefixed
        server = serverName.map { HTTPField(name: .server, value: $0) }
    }

    /// A handler for one new connection.
    package func handler() -> ResponseLaneHandler { ResponseLaneHandler(self) }

    /// The route `path` names and its parameter, or nil.
    private func entry(for path: Substring) -> (Entry, Substring?)? {
        if let entry = exact[String(path)] { return (entry, nil) }
        for (prefix, entry) in prefixed where path.hasPrefix(prefix) {
            let value = path.utf8.dropFirst(prefix.utf8.count)
            guard !value.isEmpty, !value.contains(UInt8(ascii: "/")) else { continue }
            return (entry, Substring(value))
        }
        return nil
    }

    /// What the lane made of a request.
    package enum Outcome {
        /// The route's complete answer.
        case answered(HTTPResponse, ByteBuffer)
        /// The route was asked and declined: the router answers, without asking it again.
        case declined
        /// Not the lane's to answer (another route, another method, a body, an escape in the path,
        /// a connection to close): the router answers.
        case notTaken
    }

    /// The complete response for `request`, or why the router answers it. A query does not keep
    /// a request from the lane (a campaign's `?utm_source=…` on a landing page, which the page
    /// does not depend on); a percent sign in the path does (the router decodes it).
    package func response(for request: HTTPRequest, client: () -> String?) -> Outcome {
        let start = ContinuousClock.now
        guard request.method == .get, let target = request.path else { return .notTaken }
        let path = target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target[..<$0] } ?? target[...]
        guard !path.utf8.contains(UInt8(ascii: "%")) else { return .notTaken }
        // The router's connection handling closes connections.
        if let connection = request.headerFields[.connection], connection.lowercased() != "keep-alive" { return .notTaken }
        // A GET with a body: the router answers without waiting for it, as the lane cannot (it
        // answers at the request's end).
        if request.headerFields[.transferEncoding] != nil { return .notTaken }
        if let length = request.headerFields[.contentLength], length != "0" { return .notTaken }
        guard let (entry, parameter) = entry(for: path) else { return .notTaken }
        let answer = withoutActuallyEscaping(client) { client in
            entry.route.answer(LaneRoute.Request(head: request, parameter: parameter, client: client))
        }
        guard let answer else { return .declined }
        // The routes' fields carry neither (the router adds its own): appended, not searched for.
        var fields = answer.fields
        fields.append(HTTPField(name: .date, value: date.now()))
        if let server { fields.append(server) }
        entry.observe(request, answer.status, client, start)
        return .answered(HTTPResponse(status: answer.status, headerFields: fields), answer.body)
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
    private let state = NIOLockedValueBox(State())

    func now() -> String {
        let t = Date()
        let second = Int(t.timeIntervalSince1970)
        return state.withLockedValue { s in
            if s.second != second { s.second = second; s.text = s.formatter.string(from: t) }
            return s.text
        }
    }
}
