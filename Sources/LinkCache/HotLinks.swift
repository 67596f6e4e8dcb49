import Atomics
import LinkAudience
import LinkConfiguration
import LinkPages
import LinkStorage
import SwitchyardCore
import Foundation
import Logging
import NIOCore
import ServiceLifecycle

/// The landing page's fast path: recently read links and their rendered pages stay in memory
/// for a few seconds, and clicks on links without a use limit are added up in memory and
/// written in one transaction per second (and at shutdown). A SIGKILL can lose at most the last
/// second of click counts, never a link. Another node drops a changed link when the change is
/// announced (`LinkChangeListener`, PostgreSQL), or else after `ttl`.
package final class HotLinks: Sendable {
    package struct Entry {
        package var link: StoredLink?
        package var loaded: Double
        package var pages: [LandingPage.Audience: ByteBuffer] = [:]
        /// Phones' pages with a stand-in where each visit's signed claim token goes.
        package var claimPages: [LandingPage.Audience: ClaimPage] = [:]
    }

    /// A phone's page rendered once with a stand-in for the claim token: each visit gets its
    /// own token written over the stand-in.
    package struct ClaimPage: Sendable {
        /// The stand-in: 43 base64url characters, which neither HTML nor URL escaping changes.
        package static let standIn = "sy-claim-token-stand-in-" + String(repeating: "_", count: 19)

        package let bytes: [UInt8]
        /// Where the stand-in starts, in order.
        package let offsets: [Int]

        /// The page rendered with the stand-in; nil when it does not hold the stand-in.
        package init?(_ page: ByteBuffer) {
            bytes = Array(page.readableBytesView)
            let needle = Array(Self.standIn.utf8)
            var found: [Int] = []
            var i = 0
            while i + needle.count <= bytes.count {
                if bytes[i] == needle[0] && bytes[i..<(i + needle.count)].elementsEqual(needle) {
                    found.append(i)
                    i += needle.count
                } else {
                    i += 1
                }
            }
            guard !found.isEmpty else { return nil }
            offsets = found
        }

        /// The page with `token` (43 characters) in place of every stand-in.
        package func with(token: String) -> ByteBuffer {
            var out = ByteBuffer()
            out.reserveCapacity(bytes.count)
            var start = 0
            for offset in offsets {
                out.writeBytes(bytes[start..<offset])
                out.writeString(token)
                start = offset + Self.standIn.utf8.count
            }
            out.writeBytes(bytes[start...])
            return out
        }
    }

    package let store: LinkStore
    package let ttl: Double
    private let now: @Sendable () -> Double
    private let entries = Locked<[String: Entry]>([:])
    /// Counts every `forget`: a link read from the store while one happened may be older than
    /// the change forgotten, so it is answered but not kept.
    private let generation = ManagedAtomic<UInt64>(0)
    private let pendingClicks = Locked<[String: Int64]>([:])
    /// The same clicks by link, day and platform (`click_days`).
    private let pendingDays = Locked<[ClickDay: Int64]>([:])
    /// The clicks behind `pendingClicks`, kept for their `link.clicked` events when an endpoint
    /// wants them; past `maximumPendingEvents` events are counted as dropped and logged.
    private let pendingEvents = Locked<[LinkStore.Click]>([])
    /// Visit records (`visits`), identical ones in one second added up.
    private let pendingVisits = Locked<[Visit: Int64]>([:])
    /// Records folded past a client's budget (one per link, minute, platform, bot flag and
    /// network), kept until their minute is over so each becomes one row.
    private let pendingFolded = Locked<[Visit: Int64]>([:])
    private let recordsClicks: Bool
    package let visitSettings: VisitSettings
    /// What a record's place, software and visitor are made from, in the flush; nil: none of them.
    package let audience: VisitAudience?
    package let maximumPendingEvents = 1_000_000
    package let droppedEvents = ManagedAtomic<Int>(0)
    /// Past this many distinct pending records, more are counted as dropped and logged.
    package let maximumPendingVisits = 1_000_000
    package let droppedVisits = ManagedAtomic<Int>(0)
    private let flushing = AsyncLock()
    private let maximumEntries = 100_000

    package init(store: LinkStore, visits: VisitSettings = VisitSettings(), audience: VisitAudience? = nil, ttl: Double = 5,
         now: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }) {
        self.store = store
        self.visitSettings = visits
        self.audience = audience
        self.recordsClicks = store.outbox?.wants("link.clicked") ?? false
        self.ttl = ttl
        self.now = now
    }

    /// The link for `code`, from memory when fresh (a missing code is remembered too).
    package func link(_ code: String) async throws(StoreError) -> StoredLink? {
        let t = now()
        if let e = entries.withLock({ $0[code] }), t - e.loaded < ttl { return e.link }
        let before = generation.load(ordering: .acquiring)
        let link = try await store.link(code: code)
        entries.withLock {
            guard generation.load(ordering: .acquiring) == before else { return }
            if $0.count >= maximumEntries { $0.removeAll(keepingCapacity: true) }
            $0[code] = Entry(link: link, loaded: t)
        }
        return link
    }

    /// A page rendered earlier for this link and audience, if the entry is still fresh.
    package func page(_ code: String, _ audience: LandingPage.Audience) -> ByteBuffer? {
        entries.withLock { $0[code]?.pages[audience] }
    }

    /// A page that can be served without the database: fresh entry, page rendered, no use
    /// limit, not protected, not expired; with the link's campaign, which its visit counts under.
    package func servablePage(_ code: String, _ audience: LandingPage.Audience, now date: Date) -> (page: ByteBuffer, campaign: LinkCampaign)? {
        let t = now()
        return entries.withLock { entries -> (ByteBuffer, LinkCampaign)? in
            guard let e = entries[code], t - e.loaded < ttl, let link = e.link, link.maxUses == nil, link.passwordHash == nil, let page = e.pages[audience] else { return nil }
            if let expiry = link.expiresAt, expiry <= date { return nil }
            return (page, link.campaign)
        }
    }

    /// A phone's claim page that can be served without the database (as `servablePage`), with
    /// the link's creation time for its token and its campaign.
    package func servableClaimPage(_ code: String, _ audience: LandingPage.Audience, now date: Date) -> (page: ClaimPage, created: Date, campaign: LinkCampaign)? {
        let t = now()
        return entries.withLock { entries -> (ClaimPage, Date, LinkCampaign)? in
            guard let e = entries[code], t - e.loaded < ttl, let link = e.link, link.maxUses == nil, link.passwordHash == nil, let page = e.claimPages[audience] else { return nil }
            if let expiry = link.expiresAt, expiry <= date { return nil }
            return (page, link.createdAt, link.campaign)
        }
    }

    package func rememberClaimPage(_ code: String, _ audience: LandingPage.Audience, _ page: ClaimPage) {
        entries.withLock { $0[code]?.claimPages[audience] = page }
    }

    package func remember(_ code: String, _ audience: LandingPage.Audience, _ page: ByteBuffer) {
        entries.withLock { $0[code]?.pages[audience] = page }
    }

    /// Notes in the cached link that the store counted one more use of `code`, so this node's
    /// previews and API reads see a use-limited link used up at once, not after `ttl`.
    package func usedOnce(_ code: String) {
        entries.withLock { entries in
            guard var link = entries[code]?.link else { return }
            link.clicks += 1
            entries[code]?.link = link
        }
    }

    /// Notes in the cached link that the store refused a use of `code`: none is left.
    package func usedUp(_ code: String) {
        entries.withLock { entries in
            guard var link = entries[code]?.link, let max = link.maxUses else { return }
            link.clicks = Swift.max(link.clicks, max)
            entries[code]?.link = link
        }
    }

    /// Forgets every code (announcements of changes may have been missed).
    package func forgetAll() {
        entries.withLock { entries in
            generation.wrappingIncrement(ordering: .releasing)
            entries.removeAll()
        }
    }

    /// Forgets a code (after a delete or a change, on this node or announced by another).
    package func forget(_ code: String) {
        _ = entries.withLock { entries in
            generation.wrappingIncrement(ordering: .releasing)
            return entries.removeValue(forKey: code)
        }
    }

    /// The record of a visit, or nil when visits are not recorded; its campaign is the visited
    /// URL's `utm_*`, or else `linkCampaign` (the link's own). `address` is asked (once)
    /// only when addresses are kept or the audience needs it; the User-Agent, the full address
    /// and the proxy's country are held in the record's ``Visit/observed`` until the flush.
    package func visit(_ code: String, platform: LandingPage.Audience, at date: Date, bot: Bool, referer: String?, address: () -> String?,
                       userAgent: String? = nil, campaign: Visit.Campaign = .init(), linkCampaign: LinkCampaign = .init(), proxyCountry: String? = nil) -> Visit? {
        guard visitSettings.record else { return nil }
        let needed = visitSettings.addresses != .none || audience?.needsAddress == true
        let full = needed ? address() : nil
        var visit = Visit(code: code, at: date, platform: VisitPlatform(platform), referrerHost: VisitSettings.referrerHost(referer), bot: bot,
                          address: visitSettings.kept(full))
        let observed = audience?.observed(address: { full }, userAgent: userAgent, proxyCountry: proxyCountry)
        // A URL without utm_* counts under the link's own campaign.
        var campaign = campaign
        if campaign.isEmpty { campaign = linkCampaign }
        if observed != nil || !campaign.isEmpty {
            visit.updateAudience { a in
                a.campaign = campaign
                a.observed = observed
            }
        }
        return visit
    }

    /// `visit` made into what is stored now (a use-limited link's record, written with its use).
    package func madeNow(_ visit: Visit?, at date: Date) async throws(StoreError) -> Visit? {
        guard let visit, visit.observed != nil, let audience else { return visit }
        return try await audience.enrich([visit: 1], at: date).keys.first
    }

    /// Records and events a client's visits to one link may cost per minute (see ``VisitBudget``).
    package let budget = VisitBudget()

    /// `visit` as it is recorded: as given while its client is within ``VisitBudget/perMinute``
    /// records of this link this minute; past that, folded into one record per minute, platform
    /// and bot flag (no referrer), so varying headers cannot make more rows.
    private func recordLater(_ visit: Visit?, withinBudget: Bool) {
        guard var visit else { return }
        guard !withinBudget else { return recordLater(visit) }
        visit.second -= visit.second % 60
        visit.referrerHost = nil
        visit.updateAudience { $0 = .init() }
        pendingFolded.withLock { $0[visit, default: 0] += 1 }
    }

    /// Whether the client `address` names may still cost this link a record (and, with `event`,
    /// an event) this minute; always, when nothing would be recorded or sent.
    private func withinBudget(_ code: String, at date: Date, visit: Visit?, event: Bool, address: () -> String?) -> Bool {
        guard visit != nil || event else { return true }
        // A record that keeps the address already holds its network.
        return budget.take(code: code, network: visit?.address ?? VisitBudget.network(address()), at: date)
    }

    private func recordLater(_ visit: Visit?) {
        guard let visit else { return }
        let kept = pendingVisits.withLock { pending -> Bool in
            if let n = pending[visit] { pending[visit] = n + 1; return true }
            guard pending.count < maximumPendingVisits else { return false }
            pending[visit] = 1
            return true
        }
        if !kept { droppedVisits.wrappingIncrement(ordering: .relaxed) }
    }

    /// For a use the store counts at once (a use-limited link): within the client's budget, its
    /// record for the store's transaction and a `link.clicked` event; past it, no event, and the
    /// record (`overBudget`) to fold into the batched ones once the use is counted
    /// (``recordOverBudget(_:)``), none going to the store.
    package func budgetedUse(_ code: String, at date: Date, visit: Visit?, address: () -> String?) -> (visit: Visit?, event: Bool, overBudget: Visit?) {
        guard !withinBudget(code, at: date, visit: visit, event: recordsClicks, address: address) else { return (visit, true, nil) }
        return (nil, false, visit)
    }

    /// Records a use's visit that was past its client's budget (``budgetedUse(_:at:visit:address:)``),
    /// folded, once the use is counted: a visit to a link already used up is no visit.
    package func recordOverBudget(_ visit: Visit?) {
        recordLater(visit, withinBudget: false)
    }

    /// Counts a click later (links without a use limit), with its visit record and event, both
    /// within the client's budget (`address`, asked only when something is recorded or sent).
    package func countLater(_ code: String, platform: LandingPage.Audience, at date: Date, visit: Visit? = nil, address: () -> String? = { nil }) {
        let within = withinBudget(code, at: date, visit: visit, event: recordsClicks, address: address)
        recordLater(visit, withinBudget: within)
        pendingClicks.withLock { $0[code, default: 0] += 1 }
        pendingDays.withLock { $0[ClickDay(code: code, day: ClickDay.day(of: date), platform: VisitPlatform(platform)), default: 0] += 1 }
        guard recordsClicks, within else { return }
        let click = LinkStore.Click(code: code, platform: VisitPlatform(platform), at: date)
        let kept = pendingEvents.withLock { events -> Bool in
            guard events.count < maximumPendingEvents else { return false }
            events.append(click)
            return true
        }
        if !kept { droppedEvents.wrappingIncrement(ordering: .relaxed) }
    }

    /// Counts a preview, crawler or prefetch visit later: a `bot` day row only — never a click,
    /// never a use, never an event.
    package func countPreviewLater(_ code: String, at date: Date, visit: Visit? = nil, address: () -> String? = { nil }) {
        let within = withinBudget(code, at: date, visit: visit, event: false, address: address)
        recordLater(visit, withinBudget: within)
        pendingDays.withLock { $0[ClickDay(code: code, day: ClickDay.day(of: date), platform: .bot), default: 0] += 1 }
    }

    /// How long a flush waits for its write before it lets the next flush (or an edit) go on.
    package static let flushTimeLimit = Duration.seconds(5)

    /// Writes the pending click counts; on failure they are kept for the next flush. Flushes run
    /// one at a time, so a caller that flushes (a test, the shutdown) returns only after counts
    /// another flush had already taken are written too.
    /// With `keepingTheMinuteOf` (the flusher's second-by-second writes), folded records of that
    /// date's minute stay for a later flush; without, everything is written.
    package func flush(keepingTheMinuteOf date: Date? = nil) async throws(StoreError) {
        await flushing.lock()
        do { try await flushPending(keepingTheMinuteOf: date) } catch {
            await flushing.unlock()
            throw error
        }
        await flushing.unlock()
    }

    private func flushPending(keepingTheMinuteOf date: Date?) async throws(StoreError) {
        let counts = pendingClicks.withLock { p -> [String: Int64] in defer { p.removeAll() }; return p }
        let days = pendingDays.withLock { p -> [ClickDay: Int64] in defer { p.removeAll() }; return p }
        let clicks = pendingEvents.withLock { p -> [LinkStore.Click] in defer { p.removeAll() }; return p }
        var visits = pendingVisits.withLock { p -> [Visit: Int64] in defer { p.removeAll() }; return p }
        let running = date.map { Int64($0.timeIntervalSince1970.rounded(.down)) / 60 * 60 } ?? Int64.max
        let folded = pendingFolded.withLock { p -> [Visit: Int64] in
            let done = p.filter { $0.key.second < running }
            for key in done.keys { p[key] = nil }
            return done
        }
        visits.merge(folded, uniquingKeysWith: +)
        let store = self.store
        let requeue: @Sendable () -> Void = { [visits] in
            self.pendingClicks.withLock { p in for (k, v) in counts { p[k, default: 0] += v } }
            self.pendingDays.withLock { p in for (k, v) in days { p[k, default: 0] += v } }
            self.pendingEvents.withLock { p in p.insert(contentsOf: clicks, at: 0) }
            self.pendingVisits.withLock { p in for (k, v) in visits where folded[k] == nil { p[k, default: 0] += v } }
            self.pendingFolded.withLock { p in for (k, v) in folded { p[k, default: 0] += v } }
        }
        if let audience {
            do { visits = try await audience.enrich(visits, at: Date()) } catch {
                requeue()
                throw error
            }
        }
        let write = Task { [visits] in try await store.addClicks(counts, days: days, clicks: clicks, visits: visits) }
        // Waited for a bounded time: a write the database never answers (its connection died
        // mid-transaction) would otherwise hold the flush lock, and every edit and shutdown
        // behind it, for good. Its counts stay with it: kept again only if it fails, so a slow
        // write that commits late is never counted twice.
        let finished: Bool
        do { finished = try await awaitingAtMost(Self.flushTimeLimit) { try await write.value } != nil } catch {
            requeue()
            throw (error as? StoreError) ?? StoreError(.failed, "\(error)", cause: error)
        }
        guard finished else {
            Task { do { try await write.value } catch { requeue() } }
            throw StoreError(.unavailable, "the database has not answered the click counts' write within \(Self.flushTimeLimit); they are written when it does, and kept for the next flush if it fails")
        }
    }
}

/// How many visit records and `link.clicked` events one client may cost one link, and all links
/// together, per minute.
/// A client is its network as visit records anonymise it (IPv4 /24, IPv6 /48), so rotating
/// addresses inside one network or varying `Referer`, `User-Agent` or any other header makes no
/// more. Past the budget a visit is still counted (clicks, days), its record folded into one per
/// minute, platform and bot flag, and it sends no event. Minutes are clock minutes, so a burst
/// across a minute's end can cost up to twice the budget.
package final class VisitBudget: Sendable {
    /// Records (and events) per link, client network and minute.
    package static let perMinute = 20
    /// Records (and events) per client network and minute over all links: visiting many links
    /// buys no more (the webhook queue is shared by every event).
    package static let perNetworkPerMinute = 60
    /// Clients tracked in one minute; past this, new ones are over budget until the minute turns.
    package static let maximumKeys = 200_000
    private let state = Locked<(minute: Int64, counts: [String: Int])>((minute: 0, counts: [:]))

    /// The network of a client's address, as budgets are kept (`-` when unknown).
    package static func network(_ address: String?) -> String { address.flatMap(VisitSettings.anonymize) ?? address ?? "-" }

    /// Takes one of the budget of client `network` for link `code` in the minute of `date`;
    /// false when it is spent.
    package func take(code: String, network: String, at date: Date) -> Bool {
        let minute = Int64(date.timeIntervalSince1970.rounded(.down)) / 60
        let key = code + " " + network
        let all = "* " + network
        return state.withLock { state -> Bool in
            if state.minute != minute {
                state.minute = minute
                state.counts.removeAll(keepingCapacity: true)
            }
            let used = state.counts[key] ?? 0, usedAll = state.counts[all] ?? 0
            guard used < Self.perMinute, usedAll < Self.perNetworkPerMinute else { return false }
            if (used == 0 || usedAll == 0) && state.counts.count >= Self.maximumKeys { return false }
            state.counts[key] = used + 1
            state.counts[all] = usedAll + 1
            return true
        }
    }
}

/// Flushes click counts and visit records every second, with a last flush at graceful shutdown;
/// deletes visit records past their retention, old claims and idle shared rate-limit buckets at
/// start and then hourly.
package struct ClickFlusher: Service, CustomStringConvertible {
    package let hot: HotLinks
    package let logger: Logger
    package var now: @Sendable () -> Date = { Date() }
    package var pruneInterval: Duration = .seconds(3600)
    /// How long a visit's match key is kept (`deferred.matchWindow`).
    package var matchWindow: Double = 3600
    /// How long a shared rate-limit bucket stays after its last request (PostgreSQL): at
    /// least as long as the slowest limit takes to refill, so a dropped bucket was full anyway.
    package var sharedBucketIdle: Double = 3600
    /// Its name only: ServiceLifecycle logs this when it starts the service.
    package var description: String { "ClickFlusher" }

    package init(hot: HotLinks, logger: Logger, now: @escaping @Sendable () -> Date = { Date() }, pruneInterval: Duration = .seconds(3600),
                 matchWindow: Double = 3600, sharedBucketIdle: Double = 3600) {
        self.hot = hot
        self.logger = logger
        self.now = now
        self.pruneInterval = pruneInterval
        self.matchWindow = matchWindow
        self.sharedBucketIdle = sharedBucketIdle
    }

    package func run() async throws {
        var lastPrune: ContinuousClock.Instant?
        var secretsPrunedFor: Int64?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if lastPrune.map({ ContinuousClock.now - $0 >= pruneInterval }) ?? true {
                lastPrune = ContinuousClock.now
                await prune()
            }
            // A day's visitor secret goes within seconds of the day's end (and its grace).
            if hot.audience?.countsUniques == true, case let day = ClickDay.day(of: now().addingTimeInterval(-LinkStore.visitorSecretGrace)), secretsPrunedFor != day {
                do {
                    try await hot.store.pruneVisitorSecrets(at: now())
                    secretsPrunedFor = day
                } catch {
                    if !(Task.isCancelled || error.isCancellation) { logger.error("visitor secrets of past days not deleted; retrying", metadata: ["error": "\(error)"]) }
                }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(1)) }
            do { try await hot.flush(keepingTheMinuteOf: now()) } catch { logger.error("click counts not written; retrying", metadata: ["error": "\(error)"]) }
            let dropped = hot.droppedEvents.exchange(0, ordering: .relaxed)
            if dropped > 0 {
                logger.error("link.clicked events dropped: more than \(hot.maximumPendingEvents) waited to be written", metadata: ["dropped": "\(dropped)"])
            }
            let droppedVisits = hot.droppedVisits.exchange(0, ordering: .relaxed)
            if droppedVisits > 0 {
                logger.error("visit records dropped: more than \(hot.maximumPendingVisits) distinct records waited to be written",
                             metadata: ["dropped": "\(droppedVisits)"])
            }
        }
        do { try await hot.flush() } catch { logger.error("click counts lost at shutdown", metadata: ["error": "\(error)"]) }
    }

    /// Deletes visit records older than `visits.retentionDays`, and deferred-link claims a week
    /// after they expired.
    package func prune() async {
        let date = now()
        do {
            if hot.visitSettings.record {
                // Rolled up first: the rollups keep the charts of the records deleted next.
                let kept = date.addingTimeInterval(-Double(hot.visitSettings.retentionDays) * 86_400)
                try await hot.store.rollUpVisits(at: date, recordsKeptSince: kept)
                try await hot.store.pruneVisits(before: kept)
            }
            try await hot.store.pruneClaims(expiredBefore: date.addingTimeInterval(-DeferredSettings.keptAfterExpiry),
                                            matchesBefore: date.addingTimeInterval(-matchWindow))
            // Webhook deliveries that ended a week ago: the outbox is not an archive.
            try await hot.store.pruneWebhookDeliveries(endedBefore: date.addingTimeInterval(-7 * 86_400))
            try await hot.store.pruneSharedTokens(idleSeconds: sharedBucketIdle)
        } catch {
            // Stopped with the service (its start failed, or SIGTERM): not a storage failure.
            if Task.isCancelled || error.isCancellation { return }
            logger.error("old visit records or claims not deleted; retrying in an hour", metadata: ["error": "\(error)"])
        }
    }
}

extension VisitPlatform {
    /// The platform a landing page's audience is recorded as.
    package init(_ audience: LandingPage.Audience) {
        switch audience {
        case .iOS: self = .ios
        case .android: self = .android
        case .desktop: self = .desktop
        }
    }
}

extension AppPlatform {
    /// The app platform of a landing page's audience; nil on a desktop.
    package init?(_ audience: LandingPage.Audience) {
        switch audience {
        case .iOS: self = .ios
        case .android: self = .android
        case .desktop: return nil
        }
    }
}
