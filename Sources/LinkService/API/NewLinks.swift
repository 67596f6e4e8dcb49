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

    /// Stores `link` on the domain named `domain` (nil: the first; see ``LinkKey``); with
    /// `chosenCode` false it gets a random code first (an invite's code parameter too). 409
    /// `code-taken` for a chosen code another link of the domain has.
    func insert(_ link: inout StoredLink, chosenCode: Bool, domain: String? = nil) async throws {
        var rng = SystemRandomNumberGenerator()
        if chosenCode { link.code = LinkKey.key(code: link.code, domain: domain) }
        for _ in 0..<8 {
            if !chosenCode {
                let code = String((0..<configuration.codeLength).map { _ in configuration.codeAlphabet.randomElement(using: &rng)! })
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
