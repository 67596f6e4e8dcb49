import LinkRequests
import LinkConfiguration
import LinkStorage

/// How a stored link is shown to the world: its page URL, the deep link it stands for, and the
/// API's answer for it (which webhook events carry too). One definition, used by the API, the
/// pages, QR codes, the dashboard and webhooks.
struct LinkAnswers: Sendable {
    let configuration: ServiceConfiguration
    let input: LinkInput

    /// Where a stored link's page is: an imported Firebase link at its old path, others at /i/.
    func pageURL(of link: StoredLink) -> String { Self.pageURL(code: link.code, kind: link.kind, publicURL: configuration.publicURL) }

    /// The one definition of a page URL.
    static func pageURL(code: String, kind: LinkKind, publicURL: String) -> String {
        publicURL + (kind == .fdl ? "/" : "/i/") + code
    }

    /// The deep link a stored link stands for: its own, or the one its route builds.
    func deepLink(of link: StoredLink) -> String? {
        if let d = link.deepLink { return d }
        if let r = link.route { return input.deepLink(route: r, parameters: link.parameters) }
        return nil
    }

    /// A link as the API answers it, with a warning when its page can show no "Open in the app".
    func response(_ link: StoredLink) -> LinkResponse {
        var body = LinkResponse(link, url: pageURL(of: link), deepLink: deepLink(of: link))
        if link.kind != .fdl, let warning = LandingPages.appButtonWarning(for: body.deepLink, route: link.route, configuration: configuration) {
            body.warnings = [warning]
        }
        return body
    }
}
