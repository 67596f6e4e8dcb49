import Foundation
import HTTPTypes
import Hummingbird
import LinkStorage
import SwitchyardCore

extension LinkService {
    /// How long `/healthz` waits for its write probe before answering degraded.
    static let healthProbeTimeout = Duration.seconds(2)
    /// `Retry-After` (seconds) on every 503 the service sends.
    static let retryAfterSeconds = 5

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
        if health.needsProbe() {
            let store = store, now = now
            finished = await health.probe(timeout: Self.healthProbeTimeout) { () async in try? await store.probeWrite(at: now()) }
        }
        var storage: [(key: String, value: JSONValue)]
        let ok: Bool
        if !finished {
            ok = false
            storage = [("writable", .bool(false)),
                       ("reason", .string("the write probe did not finish within \(Self.healthProbeTimeout.components.seconds) s"))]
        } else if let last = health.last {
            ok = last.failure == nil
            storage = [("writable", .bool(ok))]
            if let failure = last.failure { storage.append(("reason", .string(failure))) }
            if let since = last.failingSince { storage.append(("since", .string(Timestamp.format(since)))) }
            storage += [("checked", .string(Timestamp.format(last.date))), ("by", .string(last.source))]
        } else {
            ok = false
            storage = [("writable", .bool(false)), ("reason", .string("no write has been tried yet"))]
        }
        var members: [(key: String, value: JSONValue)] = [("status", .string(ok ? "ok" : "degraded")), ("database", .string(store.kind)), ("storage", .object(storage))]
        // Apple's CDN copy is reported, never counted against the status: its lag is not ours.
        if let appleCDN { members.append(("appleCDN", appleCDN.health)) }
        let body = JSONValue.object(members)
        var response = Response.json(body, status: ok ? .ok : .serviceUnavailable)
        if !ok { response.headers[.retryAfter] = String(Self.retryAfterSeconds) }
        response.headers[.cacheControl] = "no-store"
        return response
    }
}
