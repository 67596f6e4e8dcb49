import Foundation
import LinkConfiguration
import LinkRequests
import LinkStorage
import SwitchyardCore

/// Where protected links' passwords are hashed and checked (``LinkPassword``: scrypt, tens of
/// milliseconds of CPU and 16 MB each). The work runs on one thread of its own — never an event
/// loop, the database's threads or the QR drawing thread — and at most `waiting` requests queue
/// for it (more are 503 `password-busy` at once). Attempts at a password are limited per client
/// network (IPv4 /24, IPv6 /48) and per link, before any hashing, so guessing costs the guesser
/// time and the service little.
final class LinkPasswords: Sendable {
    /// The password thread.
    let thread: WorkThread
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
        thread = WorkThread(waiting: waiting, busy: .passwordBusy, running: "password checks are already running")
        self.perAddress = RateLimiter(perAddress, now: clock)
        self.perLink = RateLimiter(perLink, now: clock)
    }

    /// The stored form of `password`, made on the password thread.
    func hash(_ password: String) async throws -> String {
        let cost = cost
        return try await thread.run { LinkPassword.hash(password, cost: cost) }
    }

    /// Whether `password` is the one `stored` was made from, checked on the password thread.
    func verify(_ password: String, against stored: String) async throws -> Bool {
        try await thread.run { LinkPassword.verify(password, against: stored) }
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
}
