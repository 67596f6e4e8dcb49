import LinkWebhooks
import LinkAudience
import LinkCache
import LinkRequests
import Atomics
import AssociatedDomains
import Foundation
import LinkConfiguration
import LinkPages
import LinkStorage
import SwitchyardNetwork
import Hummingbird
import HTTPTypes
import HummingbirdCore
import LinkRules
import Logging
import NIOCore
import Prometheus
import ServiceTransport
import NIOPosix
import ServiceLifecycle
import SwitchyardCore

/// The link service: association files, the links and invite APIs, landing pages, the resolve
/// API, health and metrics.
///
/// ```swift
/// let store = try await LinkStore.open(.defaultSQLite)
/// let service = try LinkService(configuration: try ServiceConfiguration(contentsOf: path), store: store)
/// try await service.application(host: "127.0.0.1", port: 8080).runService()   // SIGTERM stops it
/// await store.close()
/// ```
public struct LinkService: Sendable {
    /// The configuration the service was started with.
    package let configuration: ServiceConfiguration
    /// The store given at start, with this service's webhook outbox attached, so link changes and clicks write their events.
    package let store: LinkStore
    /// This service's Prometheus metrics, served at `/metrics`.
    package let metrics: ServiceMetrics
    /// Recently read links and their pages, and the clicks not yet written.
    let hot: HotLinks
    /// Whether link changes announced by other nodes arrive now (PostgreSQL).
    let changesArrive = Locked(false)
    /// The comparison with Apple's CDN copy of the AASA (`appleCDN.check`); nil when off.
    let appleCDN: AppleCDNWatch?
    let now: @Sendable () -> Date
    let logger: Logger
    /// Every route the service answers, by controller, with the guards in front of each.
    let routes: ServiceRoutes

    /// - Parameters:
    ///   - clock: seconds for the rate limiters and the link cache (injected in tests).
    ///   - scriptWorker: how to start a script worker process (`switchyard script-worker`); with
    ///     nil, or `resolve.scriptIsolation: none`, scripts run in this process.
    public init(configuration: ServiceConfiguration, store: LinkStore, logger: Logger = Logger(label: "switchyard"),
                scriptWorker: ScriptIsolation? = nil, manifest loaded: Manifest? = nil,
                now: @escaping @Sendable () -> Date = { Date() },
                clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) throws(ConfigurationError) {
        self.configuration = configuration
        let domains = LinkDomains(configuration)
        let input = domains.inputs[0]
        let answers = LinkAnswers(configuration: configuration, input: input, domains: domains)
        // Link changes and clicks write their webhook events in their own transactions.
        let store = store.withOutbox(WebhookOutbox(
            endpoints: configuration.webhooks.endpointNames, render: { answers.response($0, now: now()).json },
            pageURL: { key, kind in
                let domain = domains.configurations[domains.index(ofKey: key) ?? 0]
                return LinkAnswers.pageURL(code: LinkKey.code(of: key), kind: kind, publicURL: kind == .fdl ? domain.fdlBase : domain.publicURL)
            }, domainName: domains.name(ofKey:)))
        self.store = store
        self.logger = logger
        self.now = now
        let metrics = ServiceMetrics()
        self.metrics = metrics
        appleCDN = configuration.appleCDN.check ? AppleCDNWatch(settings: configuration.appleCDN, configuration: configuration, metrics: metrics) : nil
        let audience = configuration.visits.record ? try VisitAudience(settings: configuration.visits, store: store, logger: logger) : nil
        let hot = HotLinks(store: store, visits: configuration.visits, audience: audience, now: clock)
        self.hot = hot
        let manifest: Manifest
        if let loaded { manifest = loaded } else { manifest = try Self.manifest(configuration) }
        // Scripts mostly wait (on their network calls), so the service gives the engine more
        // threads than cores; each thread runs one resolve at a time.
        let executor = ScriptExecutor(threads: configuration.resolveThreads)
        let engine = LinkEngine(manifest: manifest, options: .init(
            offline: configuration.resolveOffline, scriptTimeLimit: configuration.resolveScriptTimeLimit,
            allowPrivateAddresses: configuration.resolveAllowsPrivateAddresses,
            executor: executor, regexTimeLimit: configuration.resolveRegexTimeLimit,
            scriptMemoryLimit: Double(configuration.resolveScriptMemoryMB) * 1_048_576,
            scriptIsolation: configuration.resolveIsolatesScripts ? scriptWorker ?? .inProcess : .inProcess).withHTTPFetcher())

        // Every file a request would read is read now, at start, never on an event loop at first use.
        _ = PreviewAgents.standard
        _ = InAppBrowsers.standard
        _ = LandingPages.prefetchHeaderNames
        DashboardPages.load()
        let documents = AssociationController.documents(configuration)
        let hosts = domains.hosts

        let limits = RequestLimits(configuration: configuration, store: store, metrics: metrics, clock: clock)
        let tokens = TokenVerifier(store: store, limits: limits)
        let passwords = LinkPasswords(cost: 1 << configuration.passwordCost, perAddress: configuration.passwordPerAddressLimit,
                                      perLink: configuration.passwordPerLinkLimit, clock: clock)
        let newLinks = NewLinks(store: store, hot: hot, configuration: configuration, logger: logger, domains: domains, passwords: passwords)
        let bodies = RequestBodies(maximumBytes: configuration.maximumBodyBytes)
        let bulkBodies = RequestBodies(maximumBytes: max(configuration.maximumBulkBodyBytes, configuration.maximumBodyBytes), setting: "service.maximumBulkBodyBytes")
        let uses = LinkUses(hot: hot, store: store, metrics: metrics)
        let pages = LandingPages(answers: answers, logger: logger)
        let claims = Claims(configuration: configuration, input: input, store: store, keys: ClaimKeys(configuration.deferred.signingKeys),
                            limits: limits, metrics: metrics, now: now, logger: logger)
        let addresses = limits.addresses
        // Each domain's pages and claims: the first's are `pages` and `claims`.
        let served = [DomainPages(pages: pages, claims: claims)] + zip(domains.configurations, domains.inputs).enumerated().dropFirst().map { i, domain in
            var claims = Claims(configuration: domain.0, input: domain.1, store: store, keys: claims.keys, limits: limits, metrics: metrics, now: now, logger: logger)
            claims.matchDomain = domains.keyName(i)
            return DomainPages(pages: LandingPages(answers: LinkAnswers(configuration: domain.0, input: domain.1, domains: domains), logger: logger), claims: claims)
        }
        routes = ServiceRoutes(
            limits: limits, tokens: tokens, metrics: metrics,
            endpoints: ServiceEndpoints(openAPI: AssociationController.openAPIDocument.map { String(buffer: $0.body) }),
            association: AssociationController(documents: documents, openAPI: AssociationController.openAPIDocument, hosts: hosts),
            health: HealthController(store: store, metrics: metrics, changesArrive: changesArrive, appleCDN: appleCDN, now: now),
            links: LinksController(store: store, hot: hot, answers: answers, domains: domains, newLinks: newLinks, bodies: bodies,
                                   bulkBodies: bulkBodies, limits: limits, metrics: metrics, now: now,
                                   breakdowns: StatsController(store: store, input: input, now: now, countsUniques: configuration.visits.uniques, domains: domains)),
            invites: InvitesController(invites: configuration.invites, store: store, newLinks: newLinks, answers: answers, uses: uses,
                                       limits: limits, tokens: tokens, bodies: bodies, now: now),
            transactions: TransactionsController(store: store, bodies: bodies, now: now),
            resolve: ResolveController(engine: engine, gate: AdmissionGate(limit: configuration.resolveThreads * 4)),
            landing: LandingController(pages: pages, claims: claims, hot: hot, uses: uses, addresses: addresses,
                                       firebase: served.map { FirebaseController(pages: $0.pages, claims: $0.claims, addresses: addresses) }, metrics: metrics, now: now,
                                       countryHeader: configuration.visits.countryHeader.flatMap { HTTPField.Name($0) },
                                       domains: domains, routeDomains: served, passwords: passwords),
            qr: QRController(qr: QRImages(clock: clock), hot: hot, store: store, input: input, answers: answers, addresses: addresses, now: now, domains: domains),
            deferred: DeferredController(claims: claims, pages: pages, store: store, bodies: bodies, addresses: addresses, metrics: metrics, now: now,
                                         domains: domains, served: served),
            dashboard: DashboardController(store: store, hot: hot, answers: answers, newLinks: newLinks, tokens: tokens, limits: limits,
                                           bodies: bodies, bulkBodies: bulkBodies, metrics: metrics, now: now, domains: domains),
            firebaseAPI: FirebaseAPIController(store: store, domains: domains, tokens: tokens, limits: limits, bodies: bodies, now: now, metrics: metrics))
    }

    /// The rule manifest `resolve.manifest` names, or the embedded default rules; a manifest that
    /// cannot be read is a configuration error. The command line loads it before it opens the
    /// database, so such a configuration is refused before anything is written.
    public static func manifest(_ configuration: ServiceConfiguration) throws(ConfigurationError) -> Manifest {
        do { return try configuration.manifestPath.map { try Manifest(contentsOf: $0) } ?? Manifest.defaultRules() } catch {
            throw ConfigurationError("resolve.manifest: \(error)")
        }
    }

    /// The Hummingbird router of every route (``ServiceRoutes``), behind a middleware that
    /// counts and logs requests and the one that answers store failures.
    package func router() -> Router<ServiceContext> { routes.router() }

    /// The connection limits for this process and configuration: the descriptor limit raised and
    /// the connections derived from it, with the share of one client address the configuration
    /// gives (`service.connectionsPerAddress`; by default a sixteenth of the connections, and no
    /// share behind proxies of the operator's, where every connection comes from a proxy).
    package func connectionLimits() -> ConnectionLimits {
        ConnectionLimits.forService(perAddress: configuration.connectionsPerAddress, behindProxies: configuration.trustedProxies > 0)
    }

    /// The application on `host:port`, with the click flusher as a service beside the server.
    /// `lane: false` sends every request through the router (the reference behaviour).
    /// A store opened with `pool: .serviceGroup` has its PostgreSQL pool run here, first, so that
    /// it stops last (after the flusher's final write), and is checked and migrated before the
    /// server accepts connections.
    /// `connectionLimits`: nil raises the descriptor limit and derives the limits from it and
    /// the configuration (``connectionLimits()``).
    public func application(host: String = "127.0.0.1", port: Int = 8080, lane: Bool = true, connectionLimits: ConnectionLimits? = nil,
                            onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) -> some ApplicationProtocol {
        let responseLane = lane ? responseLane() : nil
        let metrics = metrics
        let connections = ConnectionCount(connectionLimits ?? self.connectionLimits(), observers: .init(
            refused: { metrics.connectionsRefused.increment() }, refusedPerAddress: { metrics.connectionsRefusedPerAddress.increment() },
            timedOut: { metrics.requestsTimedOut.increment() }))
        let store = self.store
        let refill = [configuration.perTokenLimit, configuration.perAddressLimit].map { $0.burst / ($0.perMinute / 60) }.max() ?? 0
        var background: [any Service] = [ClickFlusher(hot: hot, logger: logger, now: now, matchWindow: configuration.deferred.matchWindow,
                                                      sharedBucketIdle: max(3600, refill))]
            + (configuration.webhooks.endpoints.isEmpty ? [] : [webhookDeliverer()])
            + (appleCDN.map { [AppleCDNChecker(watch: $0, logger: logger)] } ?? [])
            + (store.announcesChanges ? [LinkChangeListener(store: store, hot: hot, arriving: changesArrive, logger: logger)] : [])
        let ready = StoreReadiness()
        if !store.services.isEmpty {
            // ServiceGroup starts every service at once: the ones that write wait for the migrations.
            background = background.map { AfterStoreIsReady(ready: ready, service: $0) }
        }
        var app = Application(
            router: router(),
            // Hummingbird's HTTP/1 channel. Every connection counts against the connection limit
            // and must send each request whole within the request timeout, which also closes idle
            // connections (ConnectionGuardHandler, before the lane: Hummingbird's own idle timer
            // does not see the requests the lane answers).
            server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionGuardHandler(connections)]
                + (responseLane.map { [$0.handler()] } ?? []))),
            configuration: .init(address: .hostname(host, port: port), serverName: Self.serverName),
            services: store.services + background,
            onServerRunning: onServerRunning,
            logger: logger)
        if !store.services.isEmpty {
            app.beforeServerStarts {
                try await store.prepare()
                ready.open()
            }
        }
        return app
    }

    /// The lane for `laneRoutes`, observed as the router's requests are (`ObservabilityMiddleware`).
    func responseLane() -> ResponseLane {
        let logger = logger
        return ResponseLane(routes: routes.laneRoutes, serverName: Self.serverName) { route in
            let metrics = self.metrics.route(route.pattern)
            return { request, status, client, start in
                ObservabilityMiddleware.observe(record: { metrics.record(status: $0, seconds: $1) }, logger: logger,
                                                method: request.method, path: request.path ?? "", status: status.code, client: client, since: start)
            }
        }
    }

    /// The Server header of every response.
    static let serverName = "switchyard"

    /// The service that sends the webhook outbox (`fetcher`: a test's; nil: the guarded HTTP
    /// fetcher). It keeps real time, as the outbox's rows do, whatever clock the service was given.
    func webhookDeliverer(fetcher: (any Fetcher)? = nil) -> WebhookDeliverer {
        WebhookDeliverer(store: store, settings: configuration.webhooks, fetcher: fetcher, metrics: metrics, logger: logger)
    }

    /// Writes pending click counts now (the flusher does this every second).
    package func flushClicks() async throws(StoreError) { try await hot.flush() }
}

extension WebhookDeliverer {
    /// A deliverer counting into the service's metrics.
    init(store: LinkStore, settings: WebhookSettings, fetcher: (any Fetcher)? = nil, metrics: ServiceMetrics, logger: Logger) {
        self.init(store: store, settings: settings, fetcher: fetcher, counts: .init(
            delivered: { metrics.webhookDelivered.increment() }, retried: { metrics.webhookRetried.increment() },
            failed: { metrics.webhookFailed.increment() }), logger: logger)
    }
}

/// Set once the store is connected and migrated.
final class StoreReadiness: Sendable {
    private let isOpen = Locked(false)
    func open() { isOpen.withLock { $0 = true } }
    var opened: Bool { isOpen.withLock { $0 } }
}

/// Runs `service` once the store is ready; returns without running it when the group stops first.
struct AfterStoreIsReady: Service, CustomStringConvertible {
    let ready: StoreReadiness
    let service: any Service
    /// The service it runs, as that one describes itself.
    var description: String { "\(service) after the store is ready" }

    func run() async throws {
        do {
            try await cancelWhenGracefulShutdown {
                while !ready.opened { try await Task.sleep(for: .milliseconds(20)) }
            }
        } catch is CancellationError {
            return
        }
        try await service.run()
    }
}

/// Counts every request by route pattern and status and logs it (errors and writes at info).
struct ObservabilityMiddleware: RouterMiddleware {
    typealias Context = ServiceContext
    let metrics: ServiceMetrics
    /// The paths and methods the service answers, for the 404 or 405 of a request no route takes.
    let endpoints: ServiceEndpoints

    func handle(_ request: Request, context: ServiceContext, next: (Request, ServiceContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do { response = try await next(request, context) } catch let error as APIError {
            // An answer the API gives (it builds its own response): observed like any other.
            metrics.countRefusal(error.status)
            let route = context.endpointPath ?? "unmatched"
            Self.observe(record: { metrics.record(route: route, status: $0, seconds: $1) }, logger: context.logger, method: request.method,
                         path: request.uri.path, status: error.status.code, client: { context.remoteAddress?.ipAddress }, since: start)
            if let cause = error.cause {
                var metadata: Logger.Metadata = ["path": "\(Self.loggedPath(request.uri.path))", "code": "\(error.code)", "cause": "\(cause)"]
                if let statement = (cause as? StoreError)?.statement { metadata["statement"] = "\(statement)" }
                context.logger.error("request failed", metadata: metadata)
            }
            throw error
        } catch let error as HTTPError where error.status == .notFound {
            // No route for this method and path: the API's JSON error, 405 with Allow when the
            // path is served with other methods (logged as a request, not as a failure).
            let answer = endpoints.unmatched(method: request.method, path: request.uri.path)
            Self.observe(record: { metrics.record(route: "unmatched", status: $0, seconds: $1) }, logger: context.logger, method: request.method,
                         path: request.uri.path, status: answer.status.code, client: { context.remoteAddress?.ipAddress }, since: start)
            // Firebase's REST API answers in Google's shape; the dashboard in its own pages, a
            // wrong method too.
            if request.uri.path == "/v1" || request.uri.path.hasPrefix("/v1/") { return FirebaseAPIErrors.response(answer) }
            guard request.uri.path == "/admin" || request.uri.path.hasPrefix("/admin/") else { return answer.response }
            var page = DashboardController.adminMessage(answer.status, answer.message, retryAfter: nil)
            if let allow = answer.allow { page.headers[.allow] = allow.joined(separator: ", ") }
            return page
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.record(route: context.endpointPath ?? "unmatched", status: status, seconds: ContinuousClock.now - start)
            context.logger.error("request failed", metadata: ["method": "\(request.method)", "path": "\(Self.loggedPath(request.uri.path))", "status": "\(status)", "error": "\(error)"])
            throw error
        }
        let route = context.endpointPath ?? "unmatched"
        Self.observe(record: { metrics.record(route: route, status: $0, seconds: $1) }, logger: context.logger, method: request.method,
                     path: request.uri.path, status: response.status.code, client: { context.remoteAddress?.ipAddress }, since: start)
        return response
    }

    /// Path segments after which the next one is a secret (a transaction id, a claim token).
    static let secretSegmentsFollow: Set<String> = ["transactions", "d"]

    /// `path` fit for a log line: the segment after `transactions` or `d` (however many slashes
    /// or escapes stand around it, as the router still takes `//api/transactions/ID`), and any
    /// segment of 32 or more token characters, replaced by `…`, so a log reader cannot verify a
    /// transaction or redeem a claim.
    static func loggedPath(_ path: String) -> String {
        var previous = ""
        var redacted = false
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> Substring in
            guard !segment.isEmpty else { return segment }
            let decoded = String(segment).removingPercentEncoding?.lowercased() ?? segment.lowercased()
            defer { previous = decoded }
            func isTokenLike(_ text: Substring) -> Bool {
                text.utf8.count >= 32 && text.utf8.allSatisfy { b in
                    (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F || b == 0x25
                }
            }
            // A segment may carry a whole URL, its slashes escaped (Firebase's linkStats): each
            // of its decoded parts is looked at too (lower-cased: still the same characters).
            let tokenLike = isTokenLike(segment) || (segment.contains("%") && decoded.split(separator: "/").contains { isTokenLike($0) })
            if Self.secretSegmentsFollow.contains(previous) || tokenLike {
                redacted = true
                return Substring(Redaction.elided)
            }
            return segment
        }
        return redacted ? segments.joined(separator: "/") : path
    }

    /// Records one answered request — duration and count by route, and a log line (debug for
    /// reads that succeeded, info otherwise). The router's middleware and the event-loop lane
    /// both call it, so a request is observed the same way whichever answered it.
    /// `record` counts the status and records the duration for the request's route.
    static func observe(record: (Int, Duration) -> Void, logger: Logger, method: HTTPRequest.Method, path: String,
                        status: Int, client: () -> String?, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        record(status, elapsed)
        let level: Logger.Level = (status >= 400 || method != .get && method != .head) ? .info : .debug
        if logger.logLevel <= level {
            var metadata: Logger.Metadata = [
                "method": "\(method)", "path": "\(loggedPath(path))", "status": "\(status)", "client": "\(client() ?? "-")",
                "ms": "\(elapsed / .milliseconds(1))",
            ]
            // The router's logger carries Hummingbird's request id; the event-loop lane's line
            // gets one of the same kind, so every request line can be told apart.
            if logger[metadataKey: "hb.request.id"] == nil { metadata["hb.request.id"] = .stringConvertible(RequestID()) }
            logger.log(level: level, "request", metadata: metadata)
        }
    }
}

/// Counts requests in a section and refuses entry past a limit (never waits).
final class AdmissionGate: Sendable {
    let limit: Int
    private let count = ManagedAtomic<Int>(0)

    init(limit: Int) { self.limit = limit }

    /// Runs `body` if fewer than `limit` others are inside; otherwise throws `busy(others)`.
    func enter<T>(busy: (Int) -> APIError, _ body: () async throws -> T) async throws -> T {
        let inside = count.wrappingIncrementThenLoad(ordering: .relaxed)
        defer { count.wrappingDecrement(ordering: .relaxed) }
        guard inside <= limit else { throw busy(inside - 1) }
        return try await body()
    }
}

/// Drops this node's cached copy of every link another node (or this one) changes, as the
/// database announces it (PostgreSQL `LISTEN`): other nodes serve the new state within
/// milliseconds. While announcements cannot arrive, cached copies still expire after
/// `HotLinks.ttl`, and `/healthz` says so.
struct LinkChangeListener: Service, CustomStringConvertible {
    let store: LinkStore
    let hot: HotLinks
    let arriving: Locked<Bool>
    let logger: Logger
    /// Its name only: ServiceLifecycle logs this when it starts the service.
    var description: String { "LinkChangeListener" }

    func run() async throws {
        let (store, hot, arriving, logger) = (store, hot, arriving, logger)
        try? await cancelWhenGracefulShutdown {
            await store.listenForChanges(listening: { now in
                let was = arriving.withLock { was in defer { was = now }; return was }
                guard was != now else { return }
                if now {
                    // Whatever changed while nothing arrived may be cached: start afresh.
                    hot.forgetAll()
                    logger.info("link changes from other nodes arrive")
                } else {
                    logger.warning("link changes from other nodes do not arrive; cached links expire after \(Int(hot.ttl)) s")
                }
            }, changed: { hot.forget($0) })
        }
    }
}
