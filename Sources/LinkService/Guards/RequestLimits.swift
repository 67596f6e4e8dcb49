import LinkCache
import LinkRequests
import Foundation
import Hummingbird
import LinkConfiguration
import LinkStorage
import Prometheus

/// Every request budget the service keeps, by name: the per-address limit of the API and the
/// dashboard, the per-token limit, refused tokens per address, and deferred-link claims per
/// visitor and per network. Each takes this node's bucket first, then on PostgreSQL the bucket
/// every node shares (see ``take(_:_:_:)``).
struct RequestLimits: Sendable {
    let addresses: ClientAddresses
    let perToken: RateLimiter
    let perAddress: RateLimiter
    let tokenLimit: ServiceConfiguration.RateLimit
    let addressLimit: ServiceConfiguration.RateLimit
    /// The store whose shared buckets every node takes from, when it keeps them (PostgreSQL).
    let store: LinkStore
    let metrics: ServiceMetrics
    /// Takes from the shared buckets, batched per key.
    let sharedTakes = SharedTakes()

    init(configuration: ServiceConfiguration, store: LinkStore, metrics: ServiceMetrics, clock: @escaping @Sendable () -> Double) {
        addresses = ClientAddresses(trustedProxies: configuration.trustedProxies)
        tokenLimit = configuration.perTokenLimit
        addressLimit = configuration.perAddressLimit
        perToken = RateLimiter(configuration.perTokenLimit, now: clock)
        perAddress = RateLimiter(configuration.perAddressLimit, now: clock)
        self.store = store
        self.metrics = metrics
    }

    /// One request of the client's address (`rateLimit.perAddress`): 429 past it.
    func address(_ request: Request, _ context: ServiceContext) async throws {
        let address = addresses.address(request, context)
        if let wait = await take(perAddress, addressLimit, "address:" + VisitSettings.rateLimitKey(address)) { throw Self.tooMany(wait, "address \(address)") }
    }

    /// A request whose token was refused (401): one more against the address's limit, counted
    /// apart from its other requests; 429 once past it.
    func failedAuthentication(_ request: Request, _ context: ServiceContext) async throws {
        let address = addresses.address(request, context)
        if let wait = await take(perAddress, addressLimit, "auth-failures:" + VisitSettings.rateLimitKey(address)) {
            throw Self.tooMany(wait, "address \(address) (refused tokens)")
        }
    }

    /// One request made with `token` (`rateLimit.perToken`): 429 past it.
    func token(_ token: StoredToken) async throws {
        if let wait = await take(perToken, tokenLimit, "token:" + token.id) { throw Self.tooMany(wait, "token \(token.name)") }
    }

    /// Whether `visitor` may be given one more claim token: counted by client and by network
    /// (IPv4 /24, IPv6 /48) in buckets of their own beside the address's, so many addresses of
    /// one network cannot fill the claims table either.
    func claim(_ visitor: String?) async -> Bool {
        let (client, network) = Self.claimBuckets(visitor)
        guard await take(perAddress, addressLimit, client) == nil else { return false }
        return await take(perAddress, addressLimit, network) == nil
    }

    /// ``claim(_:)`` from this node's buckets alone, for the lane, which answers without
    /// waiting: only when the limits are not shared (the lane leaves claim pages to the router
    /// on PostgreSQL).
    func claimOnThisNode(_ visitor: String?) -> Bool {
        let (client, network) = Self.claimBuckets(visitor)
        return perAddress.take(client) == nil && perAddress.take(network) == nil
    }

    /// The two buckets a claim for `visitor` is taken from: its client's and its network's.
    static func claimBuckets(_ visitor: String?) -> (client: String, network: String) {
        ("claims:" + VisitSettings.rateLimitKey(visitor ?? "unknown"), "claims-network:" + VisitBudget.network(visitor))
    }

    /// One request of `key` against `limit`: nil when allowed, else the seconds to wait. This
    /// node's bucket first: a client past the limit here is past it everywhere, and is refused
    /// without a round trip. Then, on PostgreSQL, the bucket every node takes from, so the limit
    /// holds whatever node answers; requests that arrive while a take is in flight share the next
    /// one (`SharedTakes`). While the database does not answer, this node's bucket alone decides
    /// (the request itself will need the database anyway).
    func take(_ local: RateLimiter, _ limit: ServiceConfiguration.RateLimit, _ key: String) async -> Double? {
        if let wait = local.take(key) { return wait }
        guard store.sharesRateLimits else { return nil }
        let (store, metrics) = (self.store, self.metrics)
        return await sharedTakes.token(key) { count -> SharedTakes.Take in
            do { return try await store.takeSharedTokens(key, count: count, perSecond: limit.perMinute / 60, burst: limit.burst) } catch {
                metrics.sharedLimitFailures.increment()
                return nil
            }
        }
    }

    /// The 429 for a client that must wait `wait` seconds.
    static func tooMany(_ wait: Double, _ who: String) -> APIError {
        var e = APIError(.tooManyRequests, .rateLimited, "too many requests from \(who); retry in \(Int(wait.rounded(.up))) s")
        e.retryAfter = max(1, Int(wait.rounded(.up)))
        return e
    }
}
