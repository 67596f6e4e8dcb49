import LinkWebhooks
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
@testable import LinkStorage
import LinkConfiguration
import NIOCore
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// A real HTTP receiver on loopback: records every POST to /hook and answers 503 to the first
/// `failFirst`, 200 after.
final class HookReceiver: @unchecked Sendable {
    struct Hit: Sendable {
        var headers: [String: String]
        var body: String
        var json: JSONValue? { try? JSONParser.parse(body) }
    }

    private let lock = NSLock()
    private var recorded: [Hit] = []
    let failFirst: Int

    init(failFirst: Int = 0) { self.failFirst = failFirst }

    var hits: [Hit] { lock.withLock { recorded } }

    func application() -> some ApplicationProtocol {
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }  // lower-case names
            let n = self.lock.withLock { () -> Int in
                self.recorded.append(Hit(headers: headers, body: String(buffer: body)))
                return self.recorded.count
            }
            return Response(status: n <= self.failFirst ? .serviceUnavailable : .ok)
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// Waits (polling) until `condition` holds for the hits, or `seconds` pass.
    func wait(seconds: Double = 20, until condition: ([Hit]) -> Bool) async throws -> [Hit] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let h = hits
            if condition(h) { return h }
            try await Task.sleep(for: .milliseconds(20))
        }
        return hits
    }
}

@Suite struct WebhookTests {
    static let secret = "whsec-test-0123456789abcdef"

    static func config(port: Int, events: String? = nil, extra: String = "") -> String {
        """
        webhooks:
          endpoints:
            - name: receiver
              url: http://127.0.0.1:\(port)/hook
              keyId: k7
              secret: \(secret)
        \(events.map { "      events: \($0)" } ?? "")
          allowedHosts: [127.0.0.1]
          allowPrivateAddresses: true
          timeout: 5
          firstRetryDelay: 0.05
          maxRetryDelay: 0.2
          pollInterval: 0.05
        \(extra)
        """
    }

    // MARK: Configuration

    @Test(arguments: [
        ("url: http://hooks.example/x", "webhooks.endpoints[0].url: http://hooks.example/… is not https; plain http is allowed only to a host in webhooks.allowedHosts"),
        ("url: https://127.0.0.1/x", "webhooks.endpoints[0].url: 127.0.0.1 is a loopback or private address; set webhooks.allowPrivateAddresses: true to send events there"),
        ("url: https://10.1.2.3/x", "webhooks.endpoints[0].url: 10.1.2.3 is a loopback or private address"),
        ("url: https://localhost/x", "webhooks.endpoints[0].url: localhost is a loopback or private address"),
        ("url: javascript:alert(1)", "webhooks.endpoints[0].url: the URL"),
        // A URL that does not parse may be a secret pasted in the wrong place: not shown at all.
        ("url: \"TOPSECRETzz:x\"", "(not shown: a webhook URL may hold a secret)"),
        // A refused URL's user info and query (where receivers keep their tokens) are not repeated.
        ("url: \"http://hooks.example/x?token=T0P\"", "webhooks.endpoints[0].url: http://hooks.example/… is not https"),
        ("url: \"http://user:hunter2@hooks.example/x?token=T0P\"", "webhooks.endpoints[0].url: the URL has user info"),
        ("url: \"https://user:hunter2@hooks.example:99999/x?token=T0P\"", "webhooks.endpoints[0].url: the URL"),
        ("url: \"https:user:hunter2@hooks.example/x\"", "webhooks.endpoints[0].url: the URL"),
        ("url: \"HTTPS:\\\\user:hunter2@hooks.example/x#T0P\"", "webhooks.endpoints[0].url: the URL"),
        ("url: https://hooks.example/x\n      events: [link.visited]", "webhooks.endpoints[0].events[0]: unknown event \"link.visited\" (known: link.created, link.updated, link.deleted, link.clicked, link.exhausted, deferred.claimed)"),
        ("url: https://hooks.example/x\n      secret: short", "webhooks.endpoints[0].secret: the secret has 5 bytes; use at least 16"),
        ("url: https://hooks.example/x\n      secret: env:SWITCHYARD_NO_SUCH_VARIABLE", "webhooks.endpoints[0].secret: the environment variable SWITCHYARD_NO_SUCH_VARIABLE is not set"),
        ("url: https://hooks.example/x\n      secret: file:/nonexistent/secret", "webhooks.endpoints[0].secret: cannot read '/nonexistent/secret': no such file"),
        ("url: https://hooks.example/x\n      secret: file:/dev/zero", "webhooks.endpoints[0].secret: cannot read '/dev/zero': larger than 65536 bytes; reading stopped there"),
        ("url: https://hooks.example/x\n      keyId: a,b", "webhooks.endpoints[0].keyId: 1–64 printable ASCII"),
        ("url: https://hooks.example/x\n      colour: red", "webhooks.endpoints[0].colour: unknown key"),
    ] as [(String, String)])
    func aBadEndpointIsRefusedAtStartSayingWhereAndWhy(_ endpoint: String, _ message: String) async throws {
        var yaml = "webhooks:\n  endpoints:\n    - \(endpoint)\n"
        if !endpoint.contains("secret:") { yaml = yaml.replacingOccurrences(of: "    - url:", with: "    - secret: a-long-enough-secret-value\n      url:") }
        do {
            _ = try await Harness.make(extra: yaml)
            Issue.record("accepted: \(yaml)")
        } catch let error as ConfigurationError {
            #expect(error.message.contains(message), "\(error.message)")
            for secret in ["hunter2", "T0P", "TOPSECRET"] { #expect(!error.message.contains(secret), "\(error.message)") }
        }
    }


    @Test func retriesBackOffExponentiallyUpToTheCap() throws {
        var settings = WebhookSettings()
        settings.firstRetryDelay = 10
        settings.maxRetryDelay = 60
        #expect([1, 2, 3, 4, 9].map { settings.retryDelay(after: $0, jitter: 1) } == [10, 20, 40, 60, 60])
        #expect((0..<200).map { _ in settings.retryDelay(after: 1) }.allSatisfy { (8...12).contains($0) })
    }

    // MARK: Signatures

    @Test func aSignatureVerifiesOnlyForItsBodyItsSecretAndARecentTime() {
        let secret = Array(Self.secret.utf8)
        let body = Array(#"{"id":"evt_1","type":"link.created"}"#.utf8)
        let header = WebhookSignature.header(secret: secret, keyID: "k7", timestamp: 1_795_000_000, body: body)
        #expect(header.hasPrefix("t=1795000000,k=k7,v1="))
        #expect(header.count == "t=1795000000,k=k7,v1=".count + 64)
        #expect(WebhookSignature.verify(header: header, secret: secret, body: body, now: 1_795_000_100))
        #expect(!WebhookSignature.verify(header: header, secret: secret, body: body + [0x20], now: 1_795_000_100), "another body")
        #expect(!WebhookSignature.verify(header: header, secret: Array("another-secret-0123456".utf8), body: body, now: 1_795_000_100))
        #expect(!WebhookSignature.verify(header: header, secret: secret, body: body, now: 1_795_000_301), "older than five minutes")
        let forged = header.replacingOccurrences(of: "t=1795000000", with: "t=1795000200")
        #expect(!WebhookSignature.verify(header: forged, secret: secret, body: body, now: 1_795_000_200), "a new time needs a new MAC")
    }

    // MARK: Delivery

    /// The receiver fails the first two attempts; the event still arrives, signed, with the same
    /// id each time, and the outbox records the three attempts.
    @Test(arguments: Backend.available)
    func eventsAreDeliveredSignedAndRetriedUntilTheReceiverTakesThem(_ backend: Backend) async throws {
        let receiver = HookReceiver(failFirst: 2)
        try await receiver.application().test(.live) { hook in
            let port = try #require(hook.port)
            let h = try await Harness.make(extra: Self.config(port: port), backend: backend)
            try await h.app().test(.live) { client in
                let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/G1", "title": "Hooked"}"#)
                #expect(created.status == .created)
                let code = try #require(created.json?["code"]?.stringValue)
                let hits = try await receiver.wait { $0.count >= 3 }
                try #require(hits.count == 3, "\(hits.map(\.body))")
                #expect(Set(hits.map { $0.headers["switchyard-event-id"] ?? "" }).count == 1, "one event, three attempts")
                #expect(hits.map { $0.headers["switchyard-delivery-attempt"] } == ["1", "2", "3"])
                for hit in hits {
                    #expect(hit.headers["switchyard-event"] == "link.created")
                    #expect(hit.headers["content-type"] == "application/json")
                    let signature = try #require(hit.headers["switchyard-signature"])
                    #expect(signature.contains(",k=k7,"))
                    #expect(WebhookSignature.verify(header: signature, secret: Array(Self.secret.utf8), body: Array(hit.body.utf8),
                                                    now: Int(Date().timeIntervalSince1970)), "\(signature)")
                }
                let event = try #require(hits.last?.json)
                #expect(event["id"]?.stringValue == hits[0].headers["switchyard-event-id"])
                #expect(event["type"]?.stringValue == "link.created")
                #expect(event.at("data.code")?.stringValue == code)
                #expect(event.at("data.title")?.stringValue == "Hooked")
                #expect(event.at("data.deepLink")?.stringValue == "plur://group/G1")
                // The outbox row ends delivered after three attempts, the last status 200.
                var records: [LinkStore.DeliveryRecord] = []
                for _ in 0..<100 {
                    records = try await h.store.webhookDeliveryRecords()
                    if records.first?.delivered == true { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(records.count == 1)
                #expect(records.first?.attempts == 3)
                #expect(records.first?.delivered == true)
                #expect(records.first?.lastStatus == 200)
                let metrics = try await client.call(.get, "/metrics").text
                #expect(metrics.contains(#"switchyard_webhook_deliveries_total{outcome="retry"} 2"#), "\(metrics)")
                #expect(metrics.contains(#"switchyard_webhook_deliveries_total{outcome="delivered"} 1"#))
            }
            await h.store.close()
        }
    }

    /// Every kind of event, each written with its change: create, edit, two clicks (the second
    /// uses the link up), delete; and clicks on an unlimited link, batched in memory.
    @Test(arguments: Backend.available)
    func everyChangeAndEveryClickHasItsEvent(_ backend: Backend) async throws {
        let receiver = HookReceiver()
        try await receiver.application().test(.live) { hook in
            let port = try #require(hook.port)
            let h = try await Harness.make(extra: Self.config(port: port), backend: backend)
            try await h.app().test(.live) { client in
                let limited = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/L", "maxUses": 2}"#)
                let code = try #require(limited.json?["code"]?.stringValue)
                #expect(try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"title": "Edited"}"#).status == .ok)
                let iPhone: HTTPFields = [.userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)"]
                #expect(try await client.call(.get, "/i/\(code)", headers: iPhone).status == .ok)
                #expect(try await client.call(.get, "/i/\(code)").status == .ok)
                #expect(try await client.call(.get, "/i/\(code)").status == .gone, "used up: no click, no event")
                #expect(try await client.call(.delete, "/api/links/\(code)", token: h.writer).status == .noContent)
                let open = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/O"}"#)
                let openCode = try #require(open.json?["code"]?.stringValue)
                for _ in 0..<3 { #expect(try await client.call(.get, "/i/\(openCode)").status == .ok) }
                try await h.service.flushClicks()
                let hits = try await receiver.wait { $0.count >= 10 }
                let events = hits.compactMap(\.json)
                func of(_ code: String) -> [String] { events.filter { $0.at("data.code")?.stringValue == code }.compactMap { $0["type"]?.stringValue } }
                #expect(of(code).sorted() == ["link.clicked", "link.clicked", "link.created", "link.deleted", "link.exhausted", "link.updated"], "\(of(code))")
                #expect(of(openCode).sorted() == ["link.clicked", "link.clicked", "link.clicked", "link.created"], "\(of(openCode))")
                let clicks = events.filter { $0["type"]?.stringValue == "link.clicked" && $0.at("data.code")?.stringValue == code }
                #expect(Set(clicks.compactMap { $0.at("data.platform")?.stringValue }) == ["ios", "desktop"])
                #expect(clicks.first?.at("data.url")?.stringValue == "https://rabble.community/i/\(code)")
                #expect(clicks.first?.at("data.domain")?.stringValue == "rabble.community")
                let updated = try #require(events.first { $0["type"]?.stringValue == "link.updated" })
                #expect(updated.at("data.title")?.stringValue == "Edited")
                let exhausted = try #require(events.first { $0["type"]?.stringValue == "link.exhausted" })
                #expect(exhausted.at("data.clicks") == .int(2))
                #expect(Set(events.compactMap { $0["id"]?.stringValue }).count == events.count, "every event has its own id")
                // Nothing more arrives: each event once.
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.hits.count == 10)
            }
            await h.store.close()
        }
    }

    /// An imported Firebase link lives at its old path, and every place that names its page says
    /// so: the API, the page itself, and the `link.clicked` event.
    @Test func anImportedLinksPageURLIsTheSameEverywhere() async throws {
        let receiver = HookReceiver()
        try await receiver.application().test(.live) { hook in
            let port = try #require(hook.port)
            let h = try await Harness.make(extra: Self.config(port: port))
            var imported = StoredLink(code: "summer", createdAt: Date())
            imported.kind = .fdl
            imported.deepLink = "plur://group/S"
            try await h.store.insert(imported)
            try await h.app().test(.live) { client in
                let expected = "https://rabble.community/summer"
                #expect(try await client.call(.get, "/api/links/summer", token: h.reader).json?["url"]?.stringValue == expected)
                let page = try await client.call(.get, "/summer")
                #expect(page.status == .ok && page.text.contains(expected) && !page.text.contains("/i/summer\""), "\(page.text)")
                try await h.service.flushClicks()
                let hits = try await receiver.wait { $0.contains { $0.json?["type"]?.stringValue == "link.clicked" } }
                let click = try #require(hits.compactMap(\.json).first { $0["type"]?.stringValue == "link.clicked" })
                #expect(click.at("data.url")?.stringValue == expected, "\(click)")
            }
            await h.store.close()
        }
    }

    /// An endpoint subscribed to some events gets only those; a change whose transaction fails
    /// leaves no event behind.
    @Test func anEndpointGetsOnlyItsEventsAndAFailedChangeHasNone() async throws {
        let receiver = HookReceiver()
        try await receiver.application().test(.live) { hook in
            let port = try #require(hook.port)
            let h = try await Harness.make(extra: Self.config(port: port, events: "[link.deleted]"))
            try await h.app().test(.live) { client in
                let a = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/A", "code": "keepthat"}"#)
                #expect(a.status == .created)
                #expect(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/B", "code": "keepthat"}"#).status == .conflict)
                #expect(try await client.call(.delete, "/api/links/keepthat", token: h.writer).status == .noContent)
                #expect(try await client.call(.delete, "/api/links/keepthat", token: h.writer).status == .notFound)
                let hits = try await receiver.wait { $0.count >= 1 }
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.hits.count == 1)
                #expect(hits.first?.json?["type"]?.stringValue == "link.deleted")
                #expect(hits.first?.json?.at("data.deepLink")?.stringValue == "plur://group/A", "the link as it was")
                #expect(try await h.store.webhookDeliveryRecords().count == 1)
            }
            await h.store.close()
        }
    }

    /// An endpoint that never answers 2xx is given up after `maxAttempts`, recorded as failed.
    @Test func aDeliveryIsGivenUpAfterMaxAttempts() async throws {
        let receiver = HookReceiver(failFirst: 1000)
        try await receiver.application().test(.live) { hook in
            let port = try #require(hook.port)
            let h = try await Harness.make(extra: Self.config(port: port, extra: "  maxAttempts: 3"))
            try await h.app().test(.live) { _ in
                try await h.store.insert(StoredLink(code: "gaveup12", createdAt: Date()))
                _ = try await receiver.wait { $0.count >= 3 }
                var records: [LinkStore.DeliveryRecord] = []
                for _ in 0..<100 {
                    records = try await h.store.webhookDeliveryRecords()
                    if records.first?.failed == true { break }
                    try await Task.sleep(for: .milliseconds(20))
                }
                #expect(records.first?.failed == true)
                #expect(records.first?.attempts == 3)
                #expect(records.first?.lastStatus == 503)
                #expect(records.first?.lastError == "HTTP 503")
                try await Task.sleep(for: .milliseconds(300))
                #expect(receiver.hits.count == 3)
            }
            await h.store.close()
        }
    }

    /// The same guard as scripts: without allowPrivateAddresses, a name that resolves to
    /// loopback is refused at the attempt (DNS checked then, the connection pinned to the
    /// checked address) and nothing is sent. (`localhost` itself is refused at start; here the
    /// settings are changed after the check, as a DNS answer could change after start.)
    @Test func aTargetThatResolvesToLoopbackIsRefusedWhenSending() async throws {
        let receiver = HookReceiver()
        try await receiver.application().test(.live) { hook in
            let port = try #require(hook.port)
            let h = try await Harness.make(extra: Self.config(port: port, extra: "  maxAttempts: 1"))
            var settings = h.service.configuration.webhooks
            settings.endpoints[0].url = "http://localhost:\(port)/hook"
            settings.allowPrivateAddresses = false
            let deliverer = WebhookDeliverer(store: h.store, settings: settings, metrics: h.service.metrics, logger: h.service.logger)
            try await h.store.insert(StoredLink(code: "refused2", createdAt: Date()))
            #expect(await deliverer.deliverDue() == 1)
            let records = try await h.store.webhookDeliveryRecords()
            #expect(records.first?.failed == true)
            #expect(records.first?.lastError?.hasPrefix("network-refused: refusing to connect to localhost (127.0.0.1)") == true, "\(records)")
            #expect(receiver.hits.isEmpty)
            // The same delivery with private addresses allowed goes through.
            settings.allowPrivateAddresses = true
            try await h.store.insert(StoredLink(code: "allowed2", createdAt: Date()))
            let allowed = WebhookDeliverer(store: h.store, settings: settings, metrics: h.service.metrics, logger: h.service.logger)
            #expect(await allowed.deliverDue() == 1)
            #expect(receiver.hits.count == 1)
            await h.store.close()
        }
    }

    /// A failed attempt's error goes to the log and the database without the URL's query or
    /// user info (a receiver's token): it read `network-error: http://…/hook?apikey=SECRET: …`.
    @Test func aFailedDeliveryRecordsItsErrorWithoutTheURLsSecrets() async throws {
        let h = try await Harness.make(extra: Self.config(port: 9, extra: "  maxAttempts: 1"))
        var settings = h.service.configuration.webhooks
        settings.endpoints[0].url = "http://hunter:pw2@127.0.0.1:9/hook?apikey=QUERYSECRET#frag"
        let deliverer = WebhookDeliverer(store: h.store, settings: settings, metrics: h.service.metrics, logger: h.service.logger)
        try await h.store.insert(StoredLink(code: "leaky123", createdAt: Date()))
        #expect(await deliverer.deliverDue() == 1)
        let error = try #require(try await h.store.webhookDeliveryRecords().first?.lastError)
        #expect(!error.contains("QUERYSECRET") && !error.contains("pw2") && !error.contains("frag"), "\(error)")
        #expect(error.hasPrefix("network-"), "\(error)")
        await h.store.close()
        #expect(Redaction.scrub("failed: http://127.0.0.1/h?apikey=A%20B (apikey=A B)", of: "http://127.0.0.1/h?apikey=A%20B")
                == "failed: http://127.0.0.1/h?… (…)")
    }

    /// Two nodes on one PostgreSQL database, both delivering: every event arrives exactly once.
    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func twoNodesOnOnePostgresDeliverEachEventOnce() async throws {
        let receiver = HookReceiver()
        try await receiver.application().test(.live) { hook in
            let port = try #require(hook.port)
            let location = try await Backend.postgres.freshLocation()
            let a = try await Harness.make(extra: Self.config(port: port), store: try await LinkStore.open(location))
            let b = try await Harness.make(extra: Self.config(port: port), store: try await LinkStore.open(location))
            let count = 120
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (i, h) in [a, b].enumerated() {
                    group.addTask {
                        for j in 0..<(count / 2) { try await h.store.insert(StoredLink(code: "n\(i)x\(String(format: "%05d", j))", createdAt: Date())) }
                    }
                }
                try await group.waitForAll()
            }
            let deliverers = [a.service.webhookDeliverer(), b.service.webhookDeliverer()]
            let sent = try await withThrowingTaskGroup(of: Int.self) { group in
                for d in deliverers {
                    group.addTask {
                        var total = 0
                        let deadline = Date().addingTimeInterval(30)
                        while receiver.hits.count < count && Date() < deadline { total += await d.deliverDue() }
                        return total
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            try await Task.sleep(for: .milliseconds(200))
            let ids = receiver.hits.compactMap { $0.headers["switchyard-event-id"] }
            #expect(ids.count == count, "\(ids.count) deliveries for \(count) events; taken per node: \(sent)")
            #expect(Set(ids).count == count)
            #expect(sent.reduce(0, +) == count, "\(sent)")
            #expect(try await a.store.webhookDeliveryRecords().allSatisfy { $0.delivered && $0.attempts == 1 })
            await a.store.close()
            await b.store.close()
        }
    }
}
