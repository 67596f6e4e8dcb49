import LinkRequests
import SwitchyardCore
import Foundation
import HTTPTypes
import Prometheus

/// The service's Prometheus metrics, in a registry of its own (no process-wide bootstrap, so
/// several services can live in one test process). Served at `/metrics`.
package final class ServiceMetrics: Sendable {
    /// The registry holding every metric of this service; `/metrics` renders it.
    package let registry = PrometheusCollectorRegistry()
    private struct Key: Hashable { var route: String; var status: Int }
    private let requests = Locked<[Key: Counter]>([:])
    private let durations = Locked<[String: DurationHistogram]>([:])
    let linksCreated: Counter
    let clicks: Counter
    let previewVisits: Counter
    /// Deferred deep links: claim tokens shown on phones' landing pages, and redeemed by apps.
    let claimsIssued: Counter
    /// Pages shown without a claim token because the visitor's address was past its rate limit.
    let claimsRefused: Counter
    let claimsRedeemed: Counter
    let rateLimited: Counter
    /// Shared (PostgreSQL) rate-limit takes that failed, so this node's bucket alone decided.
    let sharedLimitFailures: Counter
    let authFailures: Counter
    /// Webhook attempts by outcome: delivered (2xx), retry (failed, tried again later), failed (given up).
    let webhookDelivered: Counter
    let webhookRetried: Counter
    let webhookFailed: Counter
    /// Connections closed as soon as they were accepted: the connection limit was reached.
    let connectionsRefused: Counter
    /// Connections closed as soon as they were accepted: their client address held its share.
    let connectionsRefusedPerAddress: Counter
    /// Connections closed because no whole request arrived within the request timeout (slow or idle).
    let requestsTimedOut: Counter

    /// Creates the counters (links created, clicks, preview visits, deferred claims, rate limits, auth failures, webhook deliveries) in a fresh registry.
    package init() {
        linksCreated = registry.makeCounter(name: "switchyard_links_created_total", help: "Links and invites created.")
        clicks = registry.makeCounter(name: "switchyard_link_clicks_total", help: "Landing-page views of stored links that were counted.")
        previewVisits = registry.makeCounter(name: "switchyard_link_preview_visits_total",
                                             help: "Landing-page views by link previews, crawlers and prefetches (never clicks or uses).")
        claimsIssued = registry.makeCounter(name: "switchyard_deferred_claims_issued_total", help: "Claim tokens shown on phones' landing pages.")
        claimsRefused = registry.makeCounter(name: "switchyard_deferred_claims_rate_limited_total", help: "Phones' landing pages shown without a claim token: the address was past its rate limit.")
        claimsRedeemed = registry.makeCounter(name: "switchyard_deferred_claims_redeemed_total", help: "Claim tokens redeemed by an installed app.")
        rateLimited = registry.makeCounter(name: "switchyard_rate_limited_total", help: "Requests refused with 429.")
        sharedLimitFailures = registry.makeCounter(name: "switchyard_shared_rate_limit_failures_total",
                                                   help: "Rate-limit checks the database did not answer (PostgreSQL): this node's own limit decided alone.")
        authFailures = registry.makeCounter(name: "switchyard_auth_failures_total", help: "Requests refused with 401 or 403.")
        let help = "Webhook delivery attempts by outcome (delivered, retry, failed: given up)."
        webhookDelivered = registry.makeCounter(name: "switchyard_webhook_deliveries_total", labels: [("outcome", "delivered")], help: help)
        webhookRetried = registry.makeCounter(name: "switchyard_webhook_deliveries_total", labels: [("outcome", "retry")], help: help)
        webhookFailed = registry.makeCounter(name: "switchyard_webhook_deliveries_total", labels: [("outcome", "failed")], help: help)
        connectionsRefused = registry.makeCounter(name: "switchyard_connections_refused_total", help: "Connections closed at once: the connection limit was reached.")
        connectionsRefusedPerAddress = registry.makeCounter(name: "switchyard_connections_refused_per_address_total",
                                                            help: "Connections closed at once: their client address, or its network, already held its share of the connections.")
        requestsTimedOut = registry.makeCounter(name: "switchyard_request_timeouts_total", help: "Connections closed because no whole request arrived within the request timeout (slow or idle clients).")
    }

    /// The request counter for a route pattern and status.
    func requestCounter(route: String, status: Int) -> Counter {
        let key = Key(route: route, status: status)
        return requests.withLock { cache -> Counter in
            if let c = cache[key] { return c }
            let c = registry.makeCounter(name: "switchyard_http_requests_total", labels: [("route", route), ("status", String(status))],
                                         help: "HTTP requests by route pattern and status.")
            cache[key] = c
            return c
        }
    }

    /// Counts a request by route pattern and status, and records its duration.
    func record(route: String, status: Int, seconds: Duration) {
        requestCounter(route: route, status: status).increment()
        durationHistogram(route: route).record(seconds)
    }

    /// A route's metrics looked up once, for a lane that answers the same few routes all day
    /// (the event-loop lane): recording then takes no lock and hashes no string.
    struct Route: Sendable {
        let ok: Counter
        let notModified: Counter
        let durations: DurationHistogram
        let metrics: ServiceMetrics
        let name: String

        func record(status: Int, seconds: Duration) {
            switch status {
            case 200: ok.increment()
            case 304: notModified.increment()
            default: metrics.requestCounter(route: name, status: status).increment()
            }
            durations.record(seconds)
        }
    }

    func route(_ name: String) -> Route {
        Route(ok: requestCounter(route: name, status: 200), notModified: requestCounter(route: name, status: 304),
              durations: durationHistogram(route: name), metrics: self, name: name)
    }

    private func durationHistogram(route: String) -> DurationHistogram {
        durations.withLock { cache -> DurationHistogram in
            if let h = cache[route] { return h }
            let h = registry.makeDurationHistogram(
                name: "switchyard_http_request_duration_seconds", labels: [("route", route)],
                buckets: [.microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(50), .milliseconds(250), .seconds(1)],
                help: "Time to produce the response head.")
            cache[route] = h
            return h
        }
    }

    /// The exposition text.
    package func text() -> [UInt8] { registry.emitToBuffer() }

    /// Counts a refused request: 429 as rate-limited, 401 and 403 as an authentication failure.
    func countRefusal(_ status: HTTPResponse.Status) {
        if status == .tooManyRequests { rateLimited.increment() }
        if status == .unauthorized || status == .forbidden { authFailures.increment() }
    }
}
