import Foundation
import HTTPTypes
import LinkConfiguration
import LinkRequests
import LinkStorage
import NIOPosix
import SwitchyardCore

/// Where protected links' passwords are hashed and checked (``LinkPassword``: scrypt, tens of
/// milliseconds of CPU and 16 MB each). The work runs on one thread of its own — never an event
/// loop, the database's threads or the QR drawing thread — and at most `waiting` requests queue
/// for it (more are 503 `password-busy` at once). Attempts at a password are limited per client
/// network (IPv4 /24, IPv6 /48) and per link, before any hashing, so guessing costs the guesser
/// time and the service little.
final class LinkPasswords: Sendable {
    private let pool: NIOThreadPool
    /// Requests hashing or waiting to hash.
    let admission: AdmissionGate
    /// Attempts per client network.
    let perAddress: RateLimiter
    /// Attempts per link, from every network together: a guesser spread over many networks
    /// is slowed too (at the cost of the link's own visitors waiting as long).
    let perLink: RateLimiter

    /// scrypt's N for new hashes (`links.passwordCost`, as a power of two).
    let cost: Int

    init(waiting: Int = 16, cost: Int = LinkPassword.cost, perAddress: ServiceConfiguration.RateLimit, perLink: ServiceConfiguration.RateLimit,
         clock: @escaping @Sendable () -> Double) {
        self.cost = cost
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        admission = AdmissionGate(limit: waiting)
        self.perAddress = RateLimiter(perAddress, now: clock)
        self.perLink = RateLimiter(perLink, now: clock)
    }

    deinit { pool.shutdownGracefully { _ in } }

    /// The stored form of `password`, made on the password thread.
    func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await run { LinkPassword.hash(password, cost: cost) }
    }

    /// Whether `password` is the one `stored` was made from, checked on the password thread.
    func verify(_ password: String, against stored: String) async throws -> Bool {
        try await run { LinkPassword.verify(password, against: stored) }
    }

    /// `link` with the password a create or edit asks for: a new one hashed, `null` removed,
    /// absent left as it is.
    func apply(_ change: PatchField<String>, to link: inout StoredLink) async throws {
        switch change {
        case .absent: break
        case .null: link.passwordHash = nil
        case .value(let password): link.passwordHash = try await hash(password)
        }
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        let gate = admission
        return try await admission.enter(busy: { others in
            var busy = APIError(.serviceUnavailable, .passwordBusy, "\(others) password checks are already running or waiting (the limit is \(gate.limit)); try again shortly")
            busy.retryAfter = 1
            return busy
        }) {
            do { return try await pool.runIfActive(work) } catch {
                throw APIError(.serviceUnavailable, .shuttingDown, "the service is stopping")
            }
        }
    }
}
