import Foundation
import LinkCache
import LinkRequests
import HTTPTypes
import SwitchyardCore
import Logging
import LinkConfiguration
import LinkStorage

/// Stores new links under their chosen code, or a random one of the configured alphabet and
/// length (drawn again on a collision, eight times at most).
struct NewLinks: Sendable {
    let store: LinkStore
    let hot: HotLinks
    let configuration: ServiceConfiguration
    let logger: Logger
    /// The domains links are made on: each one's input checks, and the keys of their codes.
    let domains: LinkDomains
    /// Where a protected link's password is hashed.
    let passwords: LinkPasswords

    /// A new link from a `POST /api/links` body, made as every way of making one makes it (the
    /// API, its bulk endpoint, the dashboard's forms): on the body's `domain`, else `domain`
    /// (the query's), checked against what `token` may do there; read and checked by that
    /// domain's input; stored under its chosen code or a new one.
    func create(_ asked: LinkRequest, domain: String?, token: StoredToken, now: Date) async throws -> StoredLink {
        let index = try domains.index(named: asked.domain ?? domain, field: "domain", token: token, .linksWrite)
        var link = try domains.inputs[index].read(asked, now: now)
        link.createdBy = token.id
        if let password = asked.password { try await passwords.apply(.value(password), to: &link) }
        try await insert(&link, chosenCode: !link.code.isEmpty, domain: domains.keyName(index))
        return link
    }

    /// Several new links, each made by ``create(_:domain:token:now:)`` in a transaction of its
    /// own, in order: one that cannot be made (a body that did not read, a refused field, a
    /// taken code) spoils none of the others. Once the database fails, the rest are not tried
    /// (503, nothing of them stored).
    func createEach(_ bodies: [Result<LinkRequest, APIError>], domain: String?, token: StoredToken, now: @Sendable () -> Date) async -> [Result<StoredLink, APIError>] {
        var outcomes: [Result<StoredLink, APIError>] = []
        outcomes.reserveCapacity(bodies.count)
        var storeFailedAt: Int?
        for (index, body) in bodies.enumerated() {
            if let failed = storeFailedAt {
                outcomes.append(.failure(APIError(.serviceUnavailable, .storageUnavailable,
                                                  "not tried: the database failed at item \(failed); nothing of this item was stored")))
                continue
            }
            do {
                outcomes.append(.success(try await create(try body.get(), domain: domain, token: token, now: now())))
            } catch let error as APIError {
                outcomes.append(.failure(error))
            } catch let error as StoreError {
                storeFailedAt = index
                outcomes.append(.failure(APIError.storageUnavailable(cause: error)))
            } catch {
                // (Nothing else is thrown: the checks throw APIError, the store StoreError.)
                storeFailedAt = index
                outcomes.append(.failure(APIError(.serviceUnavailable, .storageUnavailable, "the link could not be stored", cause: error)))
            }
        }
        return outcomes
    }

    /// Stores `link` on the domain named `domain` (nil: the first; see ``LinkKey``); with
    /// `chosenCode` false it gets a random code first (an invite's code parameter too). 409
    /// `code-taken` for a chosen code another link of the domain has.
    func insert(_ link: inout StoredLink, chosenCode: Bool, domain: String? = nil) async throws {
        var rng = SystemRandomNumberGenerator()
        if chosenCode { link.code = LinkKey.key(code: link.code, domain: domain) }
        for _ in 0..<8 {
            if !chosenCode {
                let code = String((0..<configuration.codeLength).map { _ in configuration.codeAlphabet.randomElement(using: &rng)! })
                if LinkInput.reservedCodes.contains(code) { continue }
                link.code = LinkKey.key(code: code, domain: domain)
                if let invites = configuration.invites, link.kind == .invite, let p = invites.codeParameter {
                    link.parameters.removeAll { $0.0 == p }
                    link.parameters.append((p, code))
                }
            }
            do {
                try await store.insert(link)
                hot.forget(link.code)
                return
            } catch {
                // Anything but a taken code is the store failing (answered 503 by `StoreFailures`).
                guard error.code == .duplicate else { throw error }
                if chosenCode { throw APIError(.conflict, .codeTaken, "code \(LinkKey.code(of: link.code)) is already taken", field: "code") }
                logger.notice("short code collision; drawing another", metadata: ["code": "\(link.code)"])
            }
        }
        throw APIError(.serviceUnavailable, .codeSpaceExhausted, "8 random codes in a row were taken; raise links.length")
    }
}
