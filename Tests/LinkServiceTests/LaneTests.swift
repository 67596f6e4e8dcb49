import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import Logging
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
@testable import LinkRequests
import SwitchyardCore
import SwitchyardTestSupport
import ServiceTransport
import Testing

/// The event-loop lane must answer exactly as the router does, over a real socket.
@Suite struct LaneTests {
    /// Status, body and headers other than Date.
    struct Answer: Equatable {
        var status: HTTPResponse.Status
        var body: String
        var headers: [String: String]
    }

    static func answer(_ client: some TestClientProtocol, _ uri: String, headers: HTTPFields = [:]) async throws -> Answer {
        var headers = headers
        if headers[.userAgent] == nil { headers[.userAgent] = LandingPageTests.desktop }
        return try await client.execute(uri: uri, method: .get, headers: headers) { r in
            var h: [String: String] = [:]
            for f in r.headers where f.name != .date && f.name != .server { h[f.name.canonicalName] = f.value }
            #expect(r.headers[.date] != nil, "every response carries a Date header")
            // A phone's page has a fresh claim token in it (deferred deep links): masked.
            let body = String(buffer: r.body).replacing(/\/d\/[A-Za-z0-9_-]{43}|sy_claim%3D[A-Za-z0-9_-]{43}/, with: "/d/TOKEN")
            return Answer(status: r.status, body: body, headers: h)
        }
    }

    @Test func answersMatchTheRouterAndClicksStillCount() async throws {
        let h = try await Harness.make()
        let plain = try #require(try await Self.create(h, #"{"deepLink": "plur://group/fast", "title": "Fast"}"#))
        let limited = try #require(try await Self.create(h, #"{"deepLink": "plur://group/lim", "maxUses": 3}"#))
        let aasa = "/.well-known/apple-app-site-association"
        var answers: [Bool: [Answer]] = [:]
        for fast in [false, true] {
            answers[fast] = try await h.app(lane: fast).test(.live) { client in
                var list: [Answer] = []
                let etag = try await client.execute(uri: aasa, method: .get) { $0.headers[.eTag] }
                for uri in [aasa, "/apple-app-site-association", "/.well-known/assetlinks.json"] {
                    list.append(try await Self.answer(client, uri))
                }
                list.append(try await Self.answer(client, aasa, headers: [.ifNoneMatch: try #require(etag)]))
                for ua in [LandingPageTests.iPhone, LandingPageTests.desktop] {
                    // The first visit renders through the router, the second may come from the cache.
                    list.append(try await Self.answer(client, "/i/\(plain)", headers: [.userAgent: ua]))
                    list.append(try await Self.answer(client, "/i/\(plain)", headers: [.userAgent: ua]))
                }
                list.append(try await Self.answer(client, "/i/\(limited)"))
                return list
            }
        }
        #expect(answers[true] == answers[false])
        try await h.service.flushClicks()
        #expect(try await h.store.link(code: plain)?.clicks == 8)
        #expect(try await h.store.link(code: limited)?.clicks == 2)
        // Metrics count fast answers too.
        let metrics = String(decoding: h.service.metrics.text(), as: UTF8.self)
        #expect(metrics.contains(#"switchyard_http_requests_total{route="/.well-known/apple-app-site-association",status="304"} 2"#))
        #expect(metrics.contains("switchyard_link_clicks_total 10"))
        // Both lanes record durations: three AASA requests in each mode.
        #expect(metrics.contains(#"switchyard_http_request_duration_seconds_count{route="/.well-known/apple-app-site-association"} 6"#))
        #expect(metrics.contains(#"switchyard_http_requests_total{route="/i/{code}",status="200"} 10"#), "\(metrics)")
    }

    /// A campaign's query (`?utm_source=`, `?fbclid=`) keeps a cached page on the lane; a page
    /// not in memory is declined there, and the router then answers it from the store without
    /// asking the cache again; the click is counted once either way.
    @Test func aCampaignQueryKeepsACachedPageOnTheLane() async throws {
        let h = try await Harness.make()
        let code = try #require(try await Self.create(h, #"{"deepLink": "plur://group/utm"}"#))
        let lane = h.service.responseLane()
        func ask(_ path: String) -> ResponseLane.Outcome {
            lane.response(for: HTTPRequest(method: .get, scheme: nil, authority: "x", path: path, headerFields: [.userAgent: LandingPageTests.desktop]),
                          client: { "127.0.0.1" })
        }
        guard case .declined = ask("/i/\(code)?utm_source=news") else { Issue.record("a page not in memory is the router's"); return }
        try await h.app(lane: false).test(.router) { client in
            var marked: HTTPFields = [.userAgent: LandingPageTests.desktop]
            marked[LaneRoute.declinedField] = "1"
            let status = try await client.execute(uri: "/i/\(code)?utm_source=news", method: .get, headers: marked) { $0.status }
            #expect(status == .ok)
        }
        for path in ["/i/\(code)?utm_source=news&utm_medium=email", "/i/\(code)?fbclid=IwAR0x%2Fy", "/i/\(code)"] {
            guard case .answered(let head, let body) = ask(path) else { Issue.record("\(path) was not answered on the lane"); continue }
            #expect(head.status == .ok && String(buffer: body).contains("plur://group/utm"), "\(path)")
        }
        guard case .notTaken = ask("/i/\(code)%20") else { Issue.record("an escape in the path is the router's"); return }
        try await h.service.flushClicks()
        #expect(try await h.store.link(code: code)?.clicks == 4, "one click per page, whichever path answered")
    }

    /// A phone past its claim budget gets the page without a token, the same from the lane as
    /// from the router; the lane keeps that page once the router made it, and metrics count the
    /// refusals either way.
    @Test func aPhonePastItsClaimBudgetGetsThePlainPageFromEitherPath() async throws {
        var pages: [Bool: [String]] = [:]
        for lane in [false, true] {
            let h = try await Harness.make(extra: "rateLimit:\n  perToken: {perMinute: 100000, burst: 100000}\n  perAddress: {perMinute: 1, burst: 2}\n")
            var link = try LinkInput(configuration: h.service.configuration).read(try JSONParser.parse(#"{"deepLink": "plur://group/budget", "title": "Budget"}"#), now: h.clock.today)
            link.code = "budget23"
            try await h.store.insert(link)
            let code = link.code
            pages[lane] = try await h.app(lane: lane).test(.live) { client in
                var bodies: [String] = []
                for _ in 0..<5 { bodies.append(try await Self.answer(client, "/i/\(code)", headers: [.userAgent: LandingPageTests.iPhone]).body) }
                return bodies
            }
            let bodies = try #require(pages[lane])
            #expect(bodies.prefix(2).allSatisfy { $0.contains(#"data-claim="https://rabble.community/d/"#) }, "lane \(lane): the first two within the budget")
            #expect(bodies.dropFirst(2).allSatisfy { !$0.contains("data-claim") && $0.contains("Budget") }, "lane \(lane): past it, no token")
            #expect(Set(bodies.dropFirst(2)).count == 1, "lane \(lane): one plain page")
            let metrics = String(decoding: h.service.metrics.text(), as: UTF8.self)
            #expect(metrics.contains("switchyard_deferred_claims_rate_limited_total 3"), "lane \(lane): \(metrics)")
        }
        #expect(pages[true]?.dropFirst(2) == pages[false]?.dropFirst(2))
    }

    /// Every request line has a request id: the router's logger carries Hummingbird's, and a line
    /// of the event-loop lane (whose logger has none) gets one of its own.
    @Test func everyRequestLineHasARequestID() throws {
        final class Lines: @unchecked Sendable {
            let lock = NSLock()
            var seen: [Logger.Metadata] = []
        }
        // A value type, as log handlers are: a logger's metadata is its own.
        struct Capture: LogHandler {
            let lines: Lines
            var logLevel: Logger.Level = .debug
            var metadata: Logger.Metadata = [:]
            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }
            func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
                lines.lock.withLock { lines.seen.append(self.metadata.merging(metadata ?? [:]) { $1 }) }
            }
        }
        let lines = Lines()
        let lane = Logger(label: "lane") { _ in Capture(lines: lines) }
        var router = lane
        router[metadataKey: "hb.request.id"] = "router-id"
        for logger in [lane, lane, router] {
            ObservabilityMiddleware.observe(record: { _, _ in }, logger: logger, method: .get, path: "/i/x", status: 200, client: { "127.0.0.1" }, since: .now)
        }
        let ids = lines.lock.withLock { lines.seen.map { $0["hb.request.id"]?.description } }
        #expect(ids.count == 3)
        #expect(ids[0] != nil && ids[1] != nil && ids[0] != ids[1], "\(ids)")
        #expect(ids[2] == "router-id")
    }

    @Test func cachedPagesStopAtExpiryAndUseLimits() async throws {
        let h = try await Harness.make()
        let expiring = try #require(try await Self.create(h, #"{"deepLink": "plur://group/e", "expiresIn": 2}"#))
        let limited = try #require(try await Self.create(h, #"{"deepLink": "plur://group/l", "maxUses": 2}"#))
        try await h.app().test(.live) { client in
            #expect(try await Self.answer(client, "/i/\(expiring)").status == .ok)
            #expect(try await Self.answer(client, "/i/\(expiring)").status == .ok)
            h.clock.advance(3)  // past the expiry, still inside the cache's lifetime in wall-clock terms
            #expect(try await Self.answer(client, "/i/\(expiring)").status == .gone)
            #expect(try await Self.answer(client, "/i/\(limited)").status == .ok)
            #expect(try await Self.answer(client, "/i/\(limited)").status == .ok)
            #expect(try await Self.answer(client, "/i/\(limited)").status == .gone)
            // A deleted link disappears from this node's cache at once.
            let plain = try #require(try await Self.create(h, #"{"deepLink": "plur://group/d"}"#))
            #expect(try await Self.answer(client, "/i/\(plain)").status == .ok)
            #expect(try await Self.answer(client, "/i/\(plain)").status == .ok)
            #expect(try await client.call(.delete, "/api/links/\(plain)", token: h.writer).status == .noContent)
            #expect(try await Self.answer(client, "/i/\(plain)").status == .notFound)
        }
    }

    /// Pipelined requests (sent in one write, before any answer) are answered in the order they
    /// came, whichever lane answers each, and no answer lands inside another: the event-loop lane
    /// once wrote the association file ahead of, and in the middle of, the router's answers.
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let h = try await Harness.make()
        let plain = try #require(try await Self.create(h, #"{"deepLink": "plur://group/pipe", "title": "Piped"}"#))
        let requests: [(path: String, expect: String)] = [
            ("/healthz", #""status":"ok""#), ("/i/zzzzzzzz", "Link not found"),
            ("/.well-known/apple-app-site-association", #""applinks""#), ("/i/\(plain)", "Piped"),
            ("/i/\(plain)", "Piped"), ("/api/links", "missing-token"), ("/.well-known/assetlinks.json", "delegate_permission"),
            ("/healthz", #""status":"ok""#),
        ]
        let raw = requests.map { "GET \($0.path) HTTP/1.1\r\nHost: x\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\n\r\n" }.joined()
        for fast in [true, false] {
            try await h.app(lane: fast).test(.live) { client in
                let port = try #require(client.port)
                let count = requests.count
                let answers = try await blocking(limited: false) { try RawConnection.exchange(port: port, raw, expecting: count) }
                #expect(answers.count == requests.count, "fast path \(fast): \(answers.map(\.status))")
                for (i, (answer, request)) in zip(answers, requests).enumerated() {
                    #expect(answer.body.contains(request.expect), "fast path \(fast), answer \(i) (\(request.path)): \(answer.status) \(answer.body.prefix(120))")
                }
            }
        }
    }

    static func create(_ h: Harness, _ body: String) async throws -> String? {
        var link = try LinkInput(configuration: h.service.configuration).read(try JSONParser.parse(body), now: h.clock.today)
        link.code = String((0..<8).map { _ in h.service.configuration.codeAlphabet.randomElement()! })
        try await h.store.insert(link)
        return link.code
    }
}
