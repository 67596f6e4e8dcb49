import LinkConfiguration
import LinkStorage
import SwitchyardCore
import Crypto
import Foundation
import LinkRules
import Logging
import ServiceLifecycle
import SwitchyardNetwork

/// How a delivery is signed. A receiver recomputes the HMAC and compares in constant time:
///
///     Switchyard-Signature: t=1795000000,k=k1,v1=5d41…(64 hex digits)
///
/// `v1` is hex HMAC-SHA256 with the endpoint's secret over `"<t>.<body>"` — the decimal Unix
/// time of the attempt, a dot, and the request body exactly as received. `k` names the key (so
/// a secret can be rotated: accept both ids for a while). Receivers should refuse a `t` more
/// than five minutes from their clock (replays) and de-duplicate on `Switchyard-Event-Id`
/// (delivery is at least once).
package enum WebhookSignature {
    /// The `Switchyard-Signature` value for `body` sent at `timestamp` (Unix seconds): `t=…,k=…,v1=…`.
    package static func header(secret: [UInt8], keyID: String, timestamp: Int, body: [UInt8]) -> String {
        "t=\(timestamp),k=\(keyID),v1=" + mac(secret: secret, timestamp: timestamp, body: body)
    }

    package static func mac(secret: [UInt8], timestamp: Int, body: [UInt8]) -> String {
        var message = Array("\(timestamp).".utf8)
        message += body
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret))
        return Hex.encode(code)
    }

    /// Checks a header as a receiver does (used by the tests; the README shows the same in Python).
    package static func verify(header: String, secret: [UInt8], body: [UInt8], now: Int, tolerance: Int = 300) -> Bool {
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            guard let eq = part.firstIndex(of: "=") else { return false }
            fields[String(part[..<eq])] = String(part[part.index(after: eq)...])
        }
        guard let t = fields["t"].flatMap({ Int($0) }), let given = fields["v1"], abs(now - t) <= tolerance else { return false }
        let expected = Array(mac(secret: secret, timestamp: t, body: body).utf8)
        let actual = Array(given.utf8)
        guard expected.count == actual.count else { return false }
        return zip(expected, actual).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// Sends the outbox: takes due deliveries (leased, so nodes sharing a PostgreSQL database never
/// send one at the same time), POSTs each signed through the guarded fetcher, and records the
/// outcome — delivered on 2xx, else retried with backoff until `maxAttempts`. A node killed
/// mid-delivery leaves the lease to run out; then any node sends it again (at least once).
package struct WebhookDeliverer: Service, CustomStringConvertible {
    package let store: LinkStore
    package let settings: WebhookSettings
    package let fetcher: any Fetcher
    /// What the deliverer reports: a delivery sent, one to retry, one given up.
    package let counts: Counts
    package let logger: Logger
    package let now: @Sendable () -> Date
    /// This process, in `leased_by`.
    package let node: String
    package let batchSize = 16

    /// The deliverer's counters, as the service's metrics keep them.
    package struct Counts: Sendable {
        package let delivered: @Sendable () -> Void
        package let retried: @Sendable () -> Void
        package let failed: @Sendable () -> Void

        package init(delivered: @escaping @Sendable () -> Void, retried: @escaping @Sendable () -> Void, failed: @escaping @Sendable () -> Void) {
            self.delivered = delivered
            self.retried = retried
            self.failed = failed
        }
    }

    package init(store: LinkStore, settings: WebhookSettings, fetcher: (any Fetcher)? = nil, counts: Counts, logger: Logger,
         now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.settings = settings
        self.fetcher = fetcher ?? HTTPFetcher(options: .init(
            allowPrivateAddresses: settings.allowPrivateAddresses, timeout: settings.timeout, maximumBodyBytes: 1 << 20,
            maximumRedirects: 0, userAgent: "Switchyard-Webhooks/0.1"))
        self.counts = counts
        self.logger = logger
        self.now = now
        node = "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// The endpoints' names only: ServiceLifecycle logs this when it starts the service.
    package var description: String { "WebhookDeliverer(\(settings.endpoints.map(\.name).joined(separator: ", ")))" }

    /// How long a taken delivery stays this node's: the attempt's timeout and a margin.
    package var lease: Double { settings.timeout + 5 }

    package func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let sent = await deliverDue()
            if sent == 0 {
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(settings.pollInterval)) }
            }
        }
    }

    /// Takes one batch of due deliveries and sends them side by side; how many were taken.
    @discardableResult
    package func deliverDue() async -> Int {
        let batch: [WebhookDelivery]
        do { batch = try await store.claimWebhookDeliveries(node: node, now: now(), lease: lease, limit: batchSize) } catch {
            logger.error("webhook deliveries not read; retrying", metadata: ["error": "\(error)"])
            return 0
        }
        await withTaskGroup(of: Void.self) { group in
            for delivery in batch { group.addTask { await send(delivery) } }
        }
        return batch.count
    }

    package func send(_ delivery: WebhookDelivery) async {
        guard let endpoint = settings.endpoints.first(where: { $0.name == delivery.endpoint }) else {
            await finish(delivery, .failed(status: nil, error: "endpoint \(delivery.endpoint) is no longer configured"))
            return
        }
        let body = Array(delivery.body.utf8)
        let timestamp = Int(now().timeIntervalSince1970)
        let request = FetchRequest(url: endpoint.url, method: .post, followRedirects: false, headers: [
            ("Content-Type", "application/json"),
            ("Switchyard-Event", delivery.event),
            ("Switchyard-Event-Id", delivery.eventID),
            ("Switchyard-Delivery-Attempt", String(delivery.attempts)),
            ("Switchyard-Signature", WebhookSignature.header(secret: endpoint.secret.bytes, keyID: endpoint.keyID, timestamp: timestamp, body: body)),
        ], body: body)
        var status: Int?
        var problem: String
        do {
            let response = try await fetcher.fetch(request)
            if (200..<300).contains(response.status) {
                await finish(delivery, .delivered(status: response.status))
                return
            }
            status = response.status
            problem = "HTTP \(response.status)"
        } catch {
            // The error quotes the URL: its path, query and user info (where receivers keep their
            // tokens: Slack's and Discord's are in the path) stay out.
            problem = Redaction.scrub(error.description, of: endpoint.url, keepingPath: false)
        }
        if delivery.attempts >= settings.maxAttempts {
            await finish(delivery, .failed(status: status, error: problem))
        } else {
            let delay = settings.retryDelay(after: delivery.attempts)
            await finish(delivery, .retry(at: now().addingTimeInterval(delay), status: status, error: problem))
        }
    }

    package func finish(_ delivery: WebhookDelivery, _ outcome: LinkStore.DeliveryOutcome) async {
        var metadata: Logger.Metadata = ["event": "\(delivery.event)", "eventId": "\(delivery.eventID)", "endpoint": "\(delivery.endpoint)",
                                         "attempt": "\(delivery.attempts)"]
        switch outcome {
        case .delivered(let status):
            counts.delivered()
            metadata["status"] = "\(status)"
            logger.debug("webhook delivered", metadata: metadata)
        case .retry(let at, _, let error):
            counts.retried()
            metadata["error"] = "\(error)"
            metadata["retryIn"] = "\(Int(at.timeIntervalSince(now()).rounded(.up))) s"
            logger.warning("webhook not delivered; will retry", metadata: metadata)
        case .failed(_, let error):
            counts.failed()
            metadata["error"] = "\(error)"
            logger.error("webhook given up after \(delivery.attempts) attempts", metadata: metadata)
        }
        do {
            if try await !store.finishWebhookDelivery(delivery, node: node, outcome, now: now()) {
                logger.notice("webhook lease ran out before the attempt ended; another attempt owns it now", metadata: metadata)
            }
        } catch {
            // The lease runs out and the delivery is attempted again: at least once.
            logger.error("webhook outcome not recorded; it will be attempted again", metadata: ["error": "\(error)", "eventId": "\(delivery.eventID)"])
        }
    }
}
