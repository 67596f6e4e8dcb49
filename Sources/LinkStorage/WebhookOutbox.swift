import Foundation
import SwitchyardCore

/// The durable outbox: an event is written into `webhook_deliveries` — one row per endpoint
/// that wants it — in the same transaction as the change it reports, so a committed change
/// always has its event and a rolled-back one never does. `WebhookDeliverer` sends the rows.
package struct WebhookOutbox: Sendable {
    /// The names of the endpoints that want each event type; an event no endpoint wants is not written.
    let endpoints: [String: [String]]
    /// A link as the API shows it (the `data` of link events).
    let render: @Sendable (StoredLink) -> JSONValue
    /// The public page URL of a link's stored key and kind.
    let pageURL: @Sendable (_ key: String, _ kind: LinkKind) -> String
    /// The name of the domain of a link's stored key.
    let domainName: @Sendable (_ key: String) -> String

    /// An outbox writing each event for the endpoints `endpoints[event]` names.
    package init(endpoints: [String: [String]], render: @escaping @Sendable (StoredLink) -> JSONValue,
                 pageURL: @escaping @Sendable (_ key: String, _ kind: LinkKind) -> String,
                 domainName: @escaping @Sendable (_ key: String) -> String) {
        self.endpoints = endpoints.filter { !$0.value.isEmpty }
        self.render = render
        self.pageURL = pageURL
        self.domainName = domainName
    }

    /// Whether some endpoint wants `event`.
    package func wants(_ event: String) -> Bool { endpoints[event] != nil }

    /// The `data` of a `link.clicked` event.
    package func clickData(code: String, kind: LinkKind, platform: VisitPlatform?) -> JSONValue {
        .object([("code", .string(LinkKey.code(of: code))), ("domain", .string(domainName(code))), ("url", .string(pageURL(code, kind))),
                 ("platform", platform.map { .string($0.rawValue) } ?? .null)])
    }

    /// Writes `event` for every endpoint that wants it, inside the caller's transaction.
    package func enqueue(_ event: String, data: JSONValue, at date: Date, in tx: any SQLExecutor) async throws(StoreError) {
        guard let targets = endpoints[event] else { return }
        let id = Self.newEventID()
        let body = JSONWriter.compact(.object([
            ("id", .string(id)), ("type", .string(event)), ("createdAt", .string(Timestamp.format(date))), ("data", data),
        ]))
        let millis = LinkStore.millis(date)
        for endpoint in targets {
            try await tx.run(
                "INSERT INTO webhook_deliveries (id, event_id, event_type, endpoint, body, created_at, attempts, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
                [.text(id + "/" + endpoint), .text(id), .text(event), .text(endpoint), .text(body), .int(millis), .int(millis)])
        }
    }

    /// `evt_` and 128 random bits in hex: unguessable, unique, the receivers' de-duplication key.
    package static func newEventID() -> String {
        var rng = SystemRandomNumberGenerator()
        let hex = (0..<2).map { _ in String(rng.next() as UInt64, radix: 16) }.map { String(repeating: "0", count: 16 - $0.count) + $0 }
        return "evt_" + hex.joined()
    }
}

/// A delivery a node has taken: it holds it until `next_attempt_at` (the lease) passes.
package struct WebhookDelivery: Sendable, Equatable {
    package var id: String
    package var eventID: String
    package var event: String
    package var endpoint: String
    package var body: String
    /// Attempts so far, this one included.
    package var attempts: Int
}

extension LinkStore {
    /// This store writing events of `settings`' endpoints into the outbox (nil: no endpoints).
    package func withOutbox(_ outbox: WebhookOutbox?) -> LinkStore {
        var copy = self
        copy.outbox = outbox.flatMap { $0.endpoints.isEmpty ? nil : $0 }
        return copy
    }

    /// Takes up to `limit` due deliveries for `node`: each gets one more attempt and is leased
    /// until `now + lease` (no other node takes it before then; if this node dies, another
    /// takes it after). On PostgreSQL rows another node is taking are skipped, not waited for.
    package func claimWebhookDeliveries(node: String, now: Date, lease: Double, limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        let skipLocked = db.kind == "postgres" ? " FOR UPDATE SKIP LOCKED" : ""
        let sql = "UPDATE webhook_deliveries SET attempts = attempts + 1, leased_by = ?, next_attempt_at = ? WHERE id IN ("
            + "SELECT id FROM webhook_deliveries WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= ? "
            // Changes before clicks: a burst of clicks does not hold up a link's edit or deletion.
            + "ORDER BY CASE WHEN event_type = 'link.clicked' THEN 1 ELSE 0 END, next_attempt_at LIMIT ?\(skipLocked)) "
            + "RETURNING id, event_id, event_type, endpoint, body, attempts"
        let rows = try await db.run(sql, [.text(node), .int(Self.millis(now.addingTimeInterval(lease))), .int(Self.millis(now)), .int(Int64(limit))])
        return rows.map { r in
            WebhookDelivery(id: r[0].text ?? "", eventID: r[1].text ?? "", event: r[2].text ?? "", endpoint: r[3].text ?? "",
                            body: r[4].text ?? "", attempts: Int(r[5].int ?? 0))
        }
    }

    /// Deletes deliveries that ended (delivered or given up) before `date`; the outbox keeps
    /// only what is pending and a recent history.
    package func pruneWebhookDeliveries(endedBefore date: Date) async throws(StoreError) {
        let cutoff = SQLValue.int(Self.millis(date))
        _ = try await write { () async throws(StoreError) in
            try await db.run("DELETE FROM webhook_deliveries WHERE (delivered_at IS NOT NULL AND delivered_at < ?) OR (failed_at IS NOT NULL AND failed_at < ?)", [cutoff, cutoff])
        }
    }

    package enum DeliveryOutcome: Sendable, Equatable {
        case delivered(status: Int)
        case retry(at: Date, status: Int?, error: String)
        case failed(status: Int?, error: String)
    }

    /// Records how attempt `delivery.attempts` ended — unless the lease was lost meanwhile (another
    /// node took the delivery after this one's lease ran out), in which case nothing changes and
    /// false is returned.
    @discardableResult
    package func finishWebhookDelivery(_ delivery: WebhookDelivery, node: String, _ outcome: DeliveryOutcome, now: Date) async throws(StoreError) -> Bool {
        let mine = " WHERE id = ? AND leased_by = ? AND attempts = ? AND delivered_at IS NULL AND failed_at IS NULL RETURNING id"
        let key: [SQLValue] = [.text(delivery.id), .text(node), .int(Int64(delivery.attempts))]
        let rows: [[SQLValue]]
        switch outcome {
        case .delivered(let status):
            rows = try await db.run("UPDATE webhook_deliveries SET delivered_at = ?, last_status = ?, last_error = NULL" + mine,
                                    [.int(Self.millis(now)), .int(Int64(status))] + key)
        case .retry(let at, let status, let error):
            rows = try await db.run("UPDATE webhook_deliveries SET next_attempt_at = ?, last_status = ?, last_error = ?" + mine,
                                    [.int(Self.millis(at)), SQLValue(status.map(Int64.init)), .text(error)] + key)
        case .failed(let status, let error):
            rows = try await db.run("UPDATE webhook_deliveries SET failed_at = ?, last_status = ?, last_error = ?" + mine,
                                    [.int(Self.millis(now)), SQLValue(status.map(Int64.init)), .text(error)] + key)
        }
        return !rows.isEmpty
    }

    /// A delivery's state, for tests and inspection.
    package struct DeliveryRecord: Sendable, Equatable {
        package var id: String
        package var event: String
        package var endpoint: String
        package var attempts: Int
        package var delivered: Bool
        package var failed: Bool
        package var lastStatus: Int?
        package var lastError: String?
    }

    package func webhookDeliveryRecords() async throws(StoreError) -> [DeliveryRecord] {
        try await db.read("SELECT id, event_type, endpoint, attempts, delivered_at, failed_at, last_status, last_error FROM webhook_deliveries ORDER BY created_at, id", []).map { r in
            DeliveryRecord(id: r[0].text ?? "", event: r[1].text ?? "", endpoint: r[2].text ?? "", attempts: Int(r[3].int ?? 0),
                           delivered: r[4].int != nil, failed: r[5].int != nil, lastStatus: r[6].int.map(Int.init), lastError: r[7].text)
        }
    }
}
