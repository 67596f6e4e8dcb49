import Foundation
import LinkRequests
import LinkConfiguration
import LinkStorage

/// How a stored link is shown to the world: its page URL, the deep link it stands for, and the
/// API's answer for it (which webhook events carry too). One definition, used by the API, the
/// pages, QR codes, the dashboard and webhooks. Each link is shown as its own domain has it (its
/// public URL, its route table), whichever domain's pages or API asked.
struct LinkAnswers: Sendable {
    /// The domain this value makes pages for (the first, for the API).
    let configuration: ServiceConfiguration
    let input: LinkInput
    /// Every domain, for the link's own.
    let domains: LinkDomains

    init(configuration: ServiceConfiguration, input: LinkInput, domains: LinkDomains) {
        self.configuration = configuration
        self.input = input
        self.domains = domains
    }

    /// The index of a link's domain: its key's (a key naming no configured domain, left by a
    /// domain renamed since, is shown on the first).
    func domainIndex(of link: StoredLink) -> Int { domains.index(ofKey: link.code) ?? 0 }

    /// Where a stored link's page is: an imported Firebase link at its old path (under its
    /// domain's first URL prefix on its hosts), others at /i/.
    func pageURL(of link: StoredLink) -> String {
        let domain = domains.configurations[domainIndex(of: link)]
        return Self.pageURL(code: LinkKey.code(of: link.code), kind: link.kind, publicURL: link.kind == .fdl ? domain.fdlBase : domain.publicURL)
    }

    /// The one definition of a page URL.
    static func pageURL(code: String, kind: LinkKind, publicURL: String) -> String {
        publicURL + (kind.keepsItsPath ? "/" : "/i/") + code
    }

    /// The deep link a stored link stands for: its own, or the one its domain's route builds.
    func deepLink(of link: StoredLink) -> String? {
        if let d = link.deepLink { return d }
        if let r = link.route { return domains.inputs[domainIndex(of: link)].deepLink(route: r, parameters: link.parameters) }
        return nil
    }

    /// A link as the API answers it, with a warning when its page can show no "Open in the app".
    func response(_ link: StoredLink, now: Date) -> LinkResponse {
        let domain = domains.configurations[domainIndex(of: link)]
        // A link of a domain no longer configured says the name it was made under.
        var body = LinkResponse(link, domain: domains.name(ofKey: link.code), url: pageURL(of: link), deepLink: deepLink(of: link), now: now)
        if !link.kind.keepsItsPath, let warning = LandingPages.appButtonWarning(for: body.deepLink, route: link.route, configuration: domain) {
            body.warnings = [warning]
        }
        return body
    }
}
