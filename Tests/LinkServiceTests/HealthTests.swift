import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
@testable import LinkStorage
import LinkConfiguration
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// `/healthz` tells a monitor whether writes get through, and every 503 says when to come back.
@Suite struct HealthTests {
    @Test func healthFollowsTheWritesAndEvery503CarriesRetryAfter() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let fresh = try await client.call(.get, "/healthz")
            #expect(fresh.status == .ok)
            #expect(fresh.json?["status"]?.stringValue == "ok")
            #expect(fresh.json?["database"]?.stringValue == "sqlite")
            #expect(fresh.json?.at("storage.writable") == .bool(true))
            #expect(fresh.json?.at("storage.by")?.stringValue == "write", "the harness's token inserts are fresh: no probe needed")
            #expect(fresh.headers[.retryAfter] == nil)
            let limited = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/l", "maxUses": 5}"#)
            let code = try #require(limited.json?["code"]?.stringValue)

            // From here on the database refuses every write, as a read-only file or a full disk would.
            try await h.store.db.run("PRAGMA query_only = ON", [])
            let refused = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/x"}"#)
            #expect(refused.status == .serviceUnavailable)
            #expect(refused.json?.at("error.code")?.stringValue == "storage-unavailable")
            #expect(refused.headers[.retryAfter] == "5")
            var degraded = try await client.call(.get, "/healthz")
            // On a loaded machine the check's write probe may outlast its 2 s bound (the reason then
            // says so, with no `by` yet); the refused write is named on a later check.
            for _ in 0..<20 where degraded.json?.at("storage.reason")?.stringValue?.contains("did not finish within") == true {
                try await Task.sleep(for: .milliseconds(500))
                degraded = try await client.call(.get, "/healthz")
            }
            #expect(degraded.status == .serviceUnavailable)
            #expect(degraded.headers[.retryAfter] == "5")
            #expect(degraded.headers[.cacheControl] == "no-store")
            #expect(degraded.json?["status"]?.stringValue == "degraded")
            #expect(degraded.json?.at("storage.writable") == .bool(false))
            #expect(degraded.json?.at("storage.reason")?.stringValue == "sqlite: attempt to write a readonly database", "\(degraded.text)")
            // The failed POST decided it, or — when more than a second passed — a probe that failed alike.
            #expect(["write", "probe"].contains(degraded.json?.at("storage.by")?.stringValue ?? ""))
            #expect(degraded.json?.at("storage.since")?.stringValue != nil)
            // A landing page that has to count a use in the database: a 503 page, with Retry-After.
            let page = try await client.call(.get, "/i/\(code)")
            #expect(page.status == .serviceUnavailable)
            #expect(page.headers[.retryAfter] == "5")

            // Writable again: within a second of the last failure the check probes and says so.
            try await h.store.db.run("PRAGMA query_only = OFF", [])
            try await Task.sleep(for: .milliseconds(1100))
            var recovered = try await client.call(.get, "/healthz")
            // On a loaded machine the probe may outlast its 2 s bound; it then answers on a later check.
            let deadline = ContinuousClock.now + .seconds(30)
            while recovered.status != .ok && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                recovered = try await client.call(.get, "/healthz")
            }
            #expect(recovered.status == .ok, "\(recovered.text)")
            #expect(recovered.json?.at("storage.by")?.stringValue == "probe")
            #expect(recovered.json?.at("storage.since") == nil)
            #expect(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/x"}"#).status == .created)
        }
    }

    /// A store error is answered in one place per surface, whichever handler met it: the API's
    /// JSON 503, the dashboard's own page (HTML, never the API's JSON), both with Retry-After.
    @Test func aStoreFailureIsAnsweredAsItsSurfaceAnswers() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/s"}"#).json?["code"]?.stringValue)
            var browser = DashboardTests.Browser(client: client)
            try await browser.signIn(h.writer)
            let csrf = try await browser.csrf("/admin/new")
            try await h.store.db.run("PRAGMA query_only = ON", [])
            for (method, path, body) in [(HTTPRequest.Method.patch, "/api/links/\(code)", #"{"title": "t"}"#), (.delete, "/api/links/\(code)", nil),
                                         (.post, "/api/links", #"{"deepLink": "plur://group/t"}"#), (.post, "/api/transactions", "{}")] {
                let refused = try await client.call(method, path, token: path == "/api/transactions" ? h.admin : h.writer, body: body)
                #expect(refused.status == .serviceUnavailable, "\(method) \(path): \(refused.text)")
                #expect(refused.json?.at("error.code")?.stringValue == "storage-unavailable", "\(method) \(path)")
                #expect(refused.headers[.retryAfter] == "5")
            }
            let page = try await browser.post("/admin/links", [("csrf", csrf), ("deepLink", "plur://group/u")])
            #expect(page.status == .serviceUnavailable)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.headers[.retryAfter] == "5")
            #expect(page.text.contains("the database is not available; nothing was stored"), "\(page.text)")
            #expect(!page.text.contains("sqlite"), "the store's own words stay in the log")
        }
    }

    /// Storage that stops taking writes while nobody writes is found by the check's own probe.
    @Test(arguments: Backend.available)
    func theProbeFindsStorageThatStoppedTakingWrites(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        // Probe on every check, instead of after 10 s of quiet.
        let store = LinkStore(db: h.store.db, health: StorageHealth(probeAfterSuccess: 0, probeAfterFailure: 0))
        let service = try LinkService(configuration: h.service.configuration, store: store)
        try await service.application(port: 0).test(.router) { client in
            // The first probe may outlast its 2 s bound on a loaded machine (a fresh connection to
            // PostgreSQL); it then answers on a later check.
            var first = try await client.call(.get, "/healthz")
            let deadline = ContinuousClock.now + .seconds(30)
            while first.status != .ok && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                first = try await client.call(.get, "/healthz")
            }
            #expect(first.status == .ok, "\(first.text)")
            // Every write to the probe table fails, as on a full disk.
            switch backend {
            case .sqlite:
                for event in ["INSERT", "UPDATE"] {
                    try await store.db.run("CREATE TRIGGER full_\(event) BEFORE \(event) ON health_probes BEGIN SELECT RAISE(FAIL, 'simulated: no space left on device'); END", [])
                }
            case .postgres:
                try await store.db.run("CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated: no space left on device'; END $$", [])
                try await store.db.run("CREATE TRIGGER full_disk BEFORE INSERT OR UPDATE ON health_probes FOR EACH ROW EXECUTE FUNCTION full_disk()", [])
            }
            // Each check probes; on a loaded machine a probe can outlast the 2 s bound (then the
            // answer is degraded for that reason), so ask until the probe's own verdict comes back.
            func check(until done: (JSONValue?) -> Bool) async throws -> (status: HTTPResponse.Status, json: JSONValue?, text: String, headers: HTTPFields) {
                let deadline = ContinuousClock.now + .seconds(30)
                while true {
                    let r = try await client.call(.get, "/healthz")
                    if done(r.json) || ContinuousClock.now > deadline { return r }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            let degraded = try await check { $0?.at("storage.by")?.stringValue == "probe" && $0?.at("storage.writable") == .bool(false) }
            #expect(degraded.status == .serviceUnavailable)
            #expect(degraded.headers[.retryAfter] == "5")
            #expect(degraded.json?["status"]?.stringValue == "degraded")
            #expect(degraded.json?.at("storage.reason")?.stringValue?.hasPrefix("\(backend.rawValue): simulated: no space left on device") == true, "\(degraded.text)")
            switch backend {
            case .sqlite:
                for event in ["INSERT", "UPDATE"] { try await store.db.run("DROP TRIGGER full_\(event)", []) }
            case .postgres:
                try await store.db.run("DROP TRIGGER full_disk ON health_probes", [])
            }
            let recovered = try await check { $0?["status"]?.stringValue == "ok" }
            #expect(recovered.status == .ok, "\(recovered.text)")
        }
    }

    @Test func healthStateKeepsTheStartOfAFailureStreakAndProbesWhenStale() {
        let clock = Shared<Double>(0)
        let health = StorageHealth(probeAfterSuccess: 10, probeAfterFailure: 1, clock: { clock.withLock { $0 } },
                                   date: { Date(timeIntervalSince1970: clock.withLock { $0 }) })
        #expect(health.needsProbe(), "nothing known yet")
        health.record(failure: nil, source: "write")
        clock.withLock { $0 = 9.9 }
        #expect(!health.needsProbe())
        clock.withLock { $0 = 10 }
        #expect(health.needsProbe())
        health.record(failure: "disk full", source: "write")
        clock.withLock { $0 = 12 }
        health.record(failure: "disk full again", source: "probe")
        #expect(health.last?.failure == "disk full again")
        #expect(health.last?.failingSince == Date(timeIntervalSince1970: 10))
        #expect(!health.needsProbe())
        clock.withLock { $0 = 13 }
        #expect(health.needsProbe(), "a failure is checked again after a second")
        health.record(failure: nil, source: "probe")
        #expect(health.last?.failingSince == nil)
    }

    @Test func concurrentChecksShareOneProbeAndASlowProbeTimesOut() async throws {
        let health = StorageHealth()
        let runs = Shared(0)
        async let a = health.probe(timeout: .seconds(5)) { runs.withLock { $0 += 1 }; try? await Task.sleep(for: .milliseconds(200)) }
        async let b = health.probe(timeout: .seconds(5)) { runs.withLock { $0 += 1 }; try? await Task.sleep(for: .milliseconds(200)) }
        #expect(await [a, b] == [true, true])
        #expect(runs.withLock { $0 } == 1)
        // A probe still running when the timeout fires: false (true would mean it had finished).
        let slow = await health.probe(timeout: .milliseconds(100)) { try? await Task.sleep(for: .seconds(5)) }
        #expect(!slow)
    }
}

/// A value shared with escaping closures.
final class Shared<Value: Sendable>: Sendable {
    private let value: Locked<Value>
    init(_ value: Value) { self.value = Locked(value) }
    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T { value.withLock { v in body(&v) } }
}
