import LinkRequests
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import LinkStorage
import SwitchyardCore

/// `/healthz` and `/metrics`: whether writes get through, and the Prometheus metrics.
struct HealthController: Sendable {
    let store: LinkStore
    let metrics: ServiceMetrics
    /// Whether link changes announced by other nodes arrive now (PostgreSQL).
    let changesArrive: Locked<Bool>
    /// The comparison with Apple's CDN copy of the AASA; nil when off.
    let appleCDN: AppleCDNWatch?
    let now: @Sendable () -> Date

    /// How long `/healthz` waits for its write probe before answering degraded.
    static let probeTimeout = Duration.seconds(2)

    func addRoutes(to router: Router<ServiceContext>) {
        router.get("/healthz") { _, _ in await health() }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(bytes: metrics.text())))
        }
    }

    /// `GET /healthz`: 200 `{"status":"ok",…}` while writes commit, 503 `{"status":"degraded",…}`
    /// with the reason and `Retry-After` while they fail.
    ///
    /// The verdict is the outcome of the most recent write (any request's, the click flusher's, or
    /// the probe's). When that outcome is older than 10 s (1 s while failing), the check first
    /// makes a write of its own — one row in `health_probes` — bounded by 2 s; concurrent checks
    /// share one probe, so monitors polling often cost at most one small write per interval.
    func health() async -> Response {
        let health = store.health
        var finished = true
        if let down = store.unreachable {
            // Known at once: no probe waits for a database nothing listens for.
            health.record(failure: "the database cannot be reached (\(down))", source: "probe")
        } else if health.needsProbe() {
            let store = store, now = now
            finished = await health.probe(timeout: Self.probeTimeout) { () async in try? await store.probeWrite(at: now()) }
        }
        let storage: HealthResponse.Storage
        if !finished {
            storage = .init(writable: false, reason: "the write probe did not finish within \(Self.probeTimeout.components.seconds) s")
        } else if let last = health.last {
            storage = .init(writable: last.failure == nil, reason: last.failure, since: last.failingSince.map { Timestamp.format($0) },
                            checked: Timestamp.format(last.date), by: last.source)
        } else {
            storage = .init(writable: false, reason: "no write has been tried yet")
        }
        let ok = storage.writable
        // Neither counts against the status: without announcements cached links still expire,
        // and Apple's CDN lag is not this service's.
        let changes = store.announcesChanges ? (changesArrive.withLock { $0 } ? "arriving" : "not arriving") : nil
        let body = HealthResponse(status: ok ? "ok" : "degraded", database: store.kind, storage: storage, linkChanges: changes, appleCDN: appleCDN?.health)
        var response = Response.json(body.json, status: ok ? .ok : .serviceUnavailable)
        if !ok { response.headers[.retryAfter] = String(APIError.retryAfterSeconds) }
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// `GET /healthz`; members without a value are left out.
struct HealthResponse: Encodable {
    struct Storage: Encodable {
        var writable: Bool
        var reason: String?
        var since: String?
        var checked: String?
        var by: String?
    }

    var status: String
    var database: String
    var storage: Storage
    /// On PostgreSQL: `arriving` while other nodes' link changes reach this node at once,
    /// `not arriving` while they wait for the cache to expire.
    var linkChanges: String?
    var appleCDN: AppleCDNWatch.Health?

    /// The answer as a JSON value, members without a value left out. It holds strings, whole
    /// numbers and booleans, which always encode.
    var json: JSONValue { try! JSONValueEncoder(nilMembers: .omitted).encode(self) }
}
