import SwitchyardCore
import Foundation

/// Versioned schema changes, applied in order at start inside one transaction. The
/// `schema_migrations` table records what is applied; a database newer than this build is refused.
/// The same SQL runs on SQLite and PostgreSQL, then a migration's PostgreSQL-only statements there.
enum Migrations {
    struct Migration: Sendable {
        var version: Int64
        var name: String
        var statements: [String]
        /// Run on PostgreSQL only, after `statements`.
        var postgres: [String] = []
    }

    static let all: [Migration] = [
        Migration(version: 1, name: "links and tokens", statements: [
            """
            CREATE TABLE links (
                code TEXT PRIMARY KEY,
                kind TEXT NOT NULL,
                deep_link TEXT,
                route TEXT,
                parameters TEXT NOT NULL,
                web_url TEXT,
                app_store_url TEXT,
                play_store_url TEXT,
                title TEXT,
                description TEXT,
                image_url TEXT,
                expires_at BIGINT,
                max_uses BIGINT,
                created_at BIGINT NOT NULL,
                clicks BIGINT NOT NULL DEFAULT 0,
                created_by TEXT
            )
            """,
            "CREATE INDEX links_created ON links (created_at, code)",
            """
            CREATE TABLE tokens (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                secret_hash TEXT NOT NULL,
                scopes TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                revoked_at BIGINT
            )
            """,
        ]),
        Migration(version: 2, name: "verification transactions", statements: [
            """
            CREATE TABLE transactions (
                id TEXT PRIMARY KEY,
                purpose TEXT,
                created_by TEXT,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                verified_at BIGINT
            )
            """,
        ]),
        Migration(version: 3, name: "health probes", statements: [
            // One row, rewritten by GET /healthz to check that a write commits.
            "CREATE TABLE health_probes (id BIGINT PRIMARY KEY, probed_at BIGINT NOT NULL)",
        ]),
        Migration(version: 4, name: "link edits", statements: [
            // When a link was last changed (PATCH /api/links/{code}); NULL until then.
            "ALTER TABLE links ADD COLUMN updated_at BIGINT",
        ]),
        Migration(version: 5, name: "webhook outbox", statements: [
            // One row per event and endpoint, written in the transaction of the change it reports.
            // next_attempt_at is also the lease: a node that takes a delivery moves it forward.
            """
            CREATE TABLE webhook_deliveries (
                id TEXT PRIMARY KEY,
                event_id TEXT NOT NULL,
                event_type TEXT NOT NULL,
                endpoint TEXT NOT NULL,
                body TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                attempts BIGINT NOT NULL DEFAULT 0,
                next_attempt_at BIGINT NOT NULL,
                leased_by TEXT,
                delivered_at BIGINT,
                failed_at BIGINT,
                last_status BIGINT,
                last_error TEXT
            )
            """,
            "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE delivered_at IS NULL AND failed_at IS NULL",
        ]),
        Migration(version: 6, name: "dashboard", statements: [
            // Counted visits per link, UTC day (days since 1970) and platform, written with the
            // click counts. Clicks counted before this migration are in links.clicks only.
            """
            CREATE TABLE click_days (
                code TEXT NOT NULL,
                day BIGINT NOT NULL,
                platform TEXT NOT NULL,
                clicks BIGINT NOT NULL,
                PRIMARY KEY (code, day, platform)
            )
            """,
            // Dashboard sign-ins: only SHA-256 of the cookie's value is kept.
            """
            CREATE TABLE admin_sessions (
                id_hash TEXT PRIMARY KEY,
                token_id TEXT NOT NULL,
                csrf TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL
            )
            """,
        ]),
        Migration(version: 7, name: "visit records", statements: [
            // One row per link, second (unix seconds), platform, referrer host, bot flag and kept
            // address, with the number of visits it stands for; deleted after visits.retentionDays.
            """
            CREATE TABLE visits (
                code TEXT NOT NULL,
                second BIGINT NOT NULL,
                platform TEXT NOT NULL,
                referrer_host TEXT,
                bot BIGINT NOT NULL,
                address TEXT,
                visits BIGINT NOT NULL
            )
            """,
            "CREATE INDEX visits_by_code ON visits (code, second)",
            "CREATE INDEX visits_by_second ON visits (second)",
        ]),
        Migration(version: 8, name: "deferred deep links", statements: [
            // One row per claim token shown on a phone's landing page; only SHA-256 of the token
            // is kept. What the token stands for is copied in, so the claim answers as the page did.
            """
            CREATE TABLE deferred_claims (
                token_hash TEXT PRIMARY KEY,
                code TEXT,
                deep_link TEXT,
                route TEXT,
                parameters TEXT,
                platform TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                claimed_at BIGINT
            )
            """,
            "CREATE INDEX deferred_claims_by_expiry ON deferred_claims (expires_at)",
        ]),
        Migration(version: 9, name: "deferred matching", statements: [
            // Probabilistic matching (off by default): SHA-256 of platform and address, cleared
            // when the claim is redeemed or its match window ends.
            "ALTER TABLE deferred_claims ADD COLUMN match_key TEXT",
            "CREATE INDEX deferred_claims_by_match_key ON deferred_claims (match_key)",
        ]),
        Migration(version: 10, name: "signed claim tokens", statements: [
            // Secrets every node on the database shares: the key that signs claim tokens when
            // the configuration names none (a signed token gets its row only when redeemed).
            "CREATE TABLE service_keys (name TEXT PRIMARY KEY, secret TEXT NOT NULL, created_at BIGINT NOT NULL)",
        ]),
        Migration(version: 11, name: "link change announcements", statements: [], postgres: [
            // Every change to what a link serves is announced on `switchyard_links` (the code as
            // the payload) when its transaction commits, so every node drops its cached copy at
            // once. A click count of a link without a use limit changes nothing it serves.
            """
            CREATE FUNCTION switchyard_announce_link() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'DELETE' THEN
                    PERFORM pg_notify('switchyard_links', OLD.code);
                    RETURN OLD;
                END IF;
                IF TG_OP = 'UPDATE' AND NEW.max_uses IS NULL AND (to_jsonb(NEW) - 'clicks') = (to_jsonb(OLD) - 'clicks') THEN
                    RETURN NEW;
                END IF;
                PERFORM pg_notify('switchyard_links', NEW.code);
                RETURN NEW;
            END
            $$
            """,
            "CREATE TRIGGER links_announce AFTER INSERT OR UPDATE OR DELETE ON links FOR EACH ROW EXECUTE FUNCTION switchyard_announce_link()",
        ]),
        Migration(version: 12, name: "shared rate limits", statements: [], postgres: [
            // Token buckets every node takes from (a key's HMAC-SHA256 under the `rate-limits`
            // secret of service_keys, thousandths of a token, the database's clock in
            // milliseconds, what the last take got): a client's limit holds whatever node answers.
            "CREATE TABLE rate_buckets (key TEXT PRIMARY KEY, tokens BIGINT NOT NULL, updated_at BIGINT NOT NULL, granted BIGINT NOT NULL)",
            "CREATE INDEX rate_buckets_by_age ON rate_buckets (updated_at)",
        ]),
        Migration(version: 13, name: "app opens by day", statements: [
            // Redeemed deferred-link claims of a stored link, per UTC day and app platform: the
            // first opens after an install, kept after the claims themselves are pruned.
            "CREATE TABLE app_open_days (code TEXT NOT NULL, day BIGINT NOT NULL, platform TEXT NOT NULL, opens BIGINT NOT NULL, PRIMARY KEY (code, day, platform))",
        ]),
        Migration(version: 14, name: "visit audience", statements: [
            // Where a visit came from (geo database or trusted proxy), the browser, OS and device
            // families of its User-Agent, the visited URL's utm_* parameters, and the visitor of
            // the day (a keyed hash whose daily secret in service_keys is deleted after the day).
            // Nodes of the previous version go on writing rows without them (NULL).
        ] + ["continent", "country", "region", "city", "browser", "os", "device",
             "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "visitor"].map { "ALTER TABLE visits ADD COLUMN \($0) TEXT" }),
        Migration(version: 15, name: "visit rollups", statements: [
            // People's visits and visitors per link (and `*` for all links), UTC day and group of
            // each breakdown (`all` for the day's totals; '' for a value not known), made from the
            // visit records once a day is over, so charts outlive visits.retentionDays.
            """
            CREATE TABLE visit_rollups (
                code TEXT NOT NULL,
                day BIGINT NOT NULL,
                dimension TEXT NOT NULL,
                value TEXT NOT NULL,
                visits BIGINT NOT NULL,
                uniques BIGINT NOT NULL,
                PRIMARY KEY (code, dimension, day, value)
            )
            """,
            // `visits`: the last day every visit of which is in visit_rollups;
            // `records-deleted-before-second`: how far records have been deleted (a second).
            "CREATE TABLE visit_rollup_marks (name TEXT PRIMARY KEY, day BIGINT NOT NULL)",
        ]),
        Migration(version: 16, name: "link campaigns and tags", statements: [
            // A link's utm_* values (a JSON object) and tags (a JSON array of lowercase text);
            // NULL when it has none, as the rows nodes of the previous version write have.
            "ALTER TABLE links ADD COLUMN utm TEXT",
            "ALTER TABLE links ADD COLUMN tags TEXT",
        ]),
        Migration(version: 17, name: "where ended links go", statements: [
            // Where a link sends visitors once expired or used up; NULL: the domain's default,
            // as rows nodes of the previous version write have (they leave it as it is on edits).
            "ALTER TABLE links ADD COLUMN expired_url TEXT",
        ]),
        Migration(version: 18, name: "protected links", statements: [
            // The scrypt hash of the password a link's page asks for; NULL: none, as rows nodes
            // of the previous version write have (they leave it as it is on edits).
            "ALTER TABLE links ADD COLUMN password_hash TEXT",
        ]),
    ]

    static var latest: Int64 { all.last?.version ?? 0 }

    /// Applies every migration the database lacks; returns the versions applied.
    @discardableResult
    static func apply(to db: any SQLDatabase) async throws(StoreError) -> [Int64] {
        let kind = db.kind
        return try await db.transaction { tx throws(StoreError) in
            // Two nodes starting at once: the second waits here, then finds nothing to do.
            if kind == "postgres" { try await tx.run("SELECT pg_advisory_xact_lock(727274)", []) }
            try await tx.run("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)", [])
            let current = try await tx.run("SELECT MAX(version) FROM schema_migrations", []).first?.first?.int ?? 0
            if current > latest {
                throw StoreError(.schemaTooNew, "the \(kind) database is at schema version \(current), newer than this build (\(latest)); upgrade switchyard")
            }
            var applied: [Int64] = []
            for m in all where m.version > current {
                for statement in m.statements + (kind == "postgres" ? m.postgres : []) { try await tx.run(statement, []) }
                try await tx.run("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                                 [.int(m.version), .text(m.name), .int(Int64(Date().timeIntervalSince1970))])
                applied.append(m.version)
            }
            return applied
        }
    }
}
