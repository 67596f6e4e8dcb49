import CallbackURL
import Foundation
import HTTPTypes
import Hummingbird
import LinkPages
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SwitchyardCore
import UnixSignals
import URLRelay
import URLRelayService

/// The launcher page served by `relay watch --http`: a URL field, an Open button, quick-test
/// buttons and a status pill. Its script exposes `window.switchyard.openURL(url)` (also as
/// `window.squirrel.openURL(url)` and the `squirrel.openURL` WebKit message handler the seed
/// apps post `{url}` to), which posts to the watcher; the request goes into the inbox like any
/// other and reaches the handler. URLs the inbox's policy refuses get a 400 with the reason.
///
/// Loopback only. Every POST must carry the per-run token that is embedded in the page, and the
/// Host header must name the loopback address, so other web pages (CSRF) and DNS-rebinding sites
/// cannot drive it. A page that sends the browser to `…/#open=URL` only fills the field (a person
/// presses Open); the fragment acts by itself only with the run's token (`#open=URL&token=T`).
public struct Launcher: Sendable {
    /// The inbox launched URLs are sent to; its policy decides which are refused.
    public let inbox: Inbox
    /// A random token made for each launcher (32 hex digits)
    /// that every POST must send as `X-Switchyard-Token`.
    public let token: String
    /// URLs offered as one-click test buttons on the page.
    public let quickTests: [String]

    /// A launcher for `inbox` with a fresh token; `quickTests` become the page's test buttons.
    public init(inbox: Inbox, quickTests: [String] = ["plur://group/launcher-test", "https://twitter.com/jack/status/20"]) {
        self.inbox = inbox
        token = Hex.random(bytes: 16)
        self.quickTests = quickTests
    }

    /// Whether `host` is exactly `127.0.0.1`, `::1` or `localhost`.
    public static func isLoopback(_ host: String) -> Bool { ["127.0.0.1", "::1", "localhost"].contains(host) }

    /// The host and port of a loopback `HOST:PORT` (`[::1]:8765` too; port 0 picks one), or nil.
    public static func address(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return isLoopback(host) ? (host, port) : nil
    }

    /// `relay watch`: runs `watcher`, and the launcher page for its inbox on `http` when given,
    /// until SIGTERM, SIGINT or SIGHUP (the terminal closed) stops them, ending a running
    /// handler's group. `log` is told where the launcher listens.
    public static func watch(_ watcher: RelayWatcher, http: (host: String, port: Int)?, log: @escaping @Sendable (String) -> Void) async throws {
        var services: [any Service] = [watcher]
        if let (host, port) = http {
            services.append(Launcher(inbox: watcher.watcher.inbox).application(host: host, port: port) { log("launcher on \($0)") })
        }
        try await ServiceGroup(services: services, gracefulShutdownSignals: [.sigterm, .sigint, .sighup], logger: Logger(label: "relay")).run()
    }

    /// The launcher as a service listening on `host`:`port`, which tells `listening` its URL once it listens.
    public func application(host: String, port: Int, listening: @escaping @Sendable (String) -> Void) -> some ApplicationProtocol {
        Application(router: router(), configuration: .init(address: .hostname(host, port: port), serverName: "switchyard-launcher"),
                    onServerRunning: { channel in listening("http://\(host.contains(":") ? "[\(host)]" : host):\(channel.localAddress?.port ?? port)/") },
                    logger: Logger(label: "launcher", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// The routes: `GET /` serves the page; `POST /open` with `{"url": …}` and the token
    /// queues the URL and answers its request id. Both answer 403 unless the Host is loopback.
    public func router() -> Router<BasicRequestContext> {
        let router = Router()
        let page = ByteBuffer(string: html)
        router.get("/") { request, _ -> Response in
            guard Self.hostIsLoopback(request) else { return Self.json(.forbidden, #"{"error":"not a loopback Host"}"#) }
            // Never inside another site's frame (a page could frame it with a URL filled in and
            // have a person press Open without seeing where they are).
            return Response(status: .ok, headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                HTTPField.Name("X-Frame-Options")!: "DENY", .contentSecurityPolicy: "frame-ancestors 'none'",
            ], body: .init(byteBuffer: page))
        }
        router.post("/open") { request, context -> Response in
            guard Self.hostIsLoopback(request) else { return Self.json(.forbidden, #"{"error":"not a loopback Host"}"#) }
            guard let given = request.headers[HTTPField.Name("X-Switchyard-Token")!], ConstantTime.equals(given, token) else {
                return Self.json(.forbidden, #"{"error":"missing or wrong launcher token"}"#)
            }
            var request = request
            guard let body = try? await request.collectBody(upTo: 16 * 1024),
                  let value = try? JSONParser.parse(bytes: Array(body.readableBytesView)), let url = value["url"]?.stringValue, !url.isEmpty else {
                return Self.json(.badRequest, #"{"error":"the body must be {\"url\": \"…\"}"}"#)
            }
            let relay = RelayRequest(source: "launcher", url: url)
            // The inbox's policy refuses what may never be opened; the durable write (fsync)
            // runs on the thread pool, never on the event loop.
            if let reason = inbox.policy.check(url) {
                return Self.json(.badRequest, JSONWriter.compact(.object([("error", .string("refused: \(reason)"))])))
            }
            let inbox = self.inbox
            do { _ = try await NIOThreadPool.singleton.runIfActive { try inbox.send(relay) } } catch {
                return Self.json(.internalServerError, JSONWriter.compact(.object([("error", .string("\(error)"))])))
            }
            return Self.json(.ok, JSONWriter.compact(.object([("id", .string(relay.id.uuidString.lowercased()))])))
        }
        return router
    }

    /// Whether the request's Host is a loopback name, with at most a port after it: the whole
    /// value is read (`127.0.0.1:8080.evil.example` or `127.0.0.1:1@evil` is not loopback).
    static func hostIsLoopback(_ request: Request) -> Bool {
        // Exactly one Host: a second one (left among the fields by the HTTP/1 conversion, which
        // reads the first) is a request no browser sends, refused rather than guessed at.
        guard let host = request.head.authority, request.headers[values: HTTPField.Name("Host")!].isEmpty else { return false }
        return authorityIsLoopback(host)
    }

    /// Whether `authority` (a Host value: `name`, `name:port`, `[v6]`, `[v6]:port`) names a
    /// loopback host.
    static func authorityIsLoopback(_ authority: String) -> Bool {
        let name: Substring, rest: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return false }
            name = authority[authority.index(after: authority.startIndex)..<close]
            rest = authority[authority.index(after: close)...]
        } else if let colon = authority.firstIndex(of: ":") {
            name = authority[..<colon]
            rest = authority[colon...]
        } else {
            name = authority[...]
            rest = ""
        }
        if !rest.isEmpty {
            let port = rest.dropFirst()
            guard rest.first == ":", !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        }
        return isLoopback(String(name))
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
    }

    /// The page, from LinkPages' `launcher.mustache`.
    var html: String { LauncherPage(inbox: inbox.directory, token: token, quickTests: quickTests).html }
}
