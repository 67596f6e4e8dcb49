import LinkConfiguration
import LinkPages
import LinkStorage
import SwitchyardCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension LinkService {
    /// GET `/?link=…&apn=…&…`: a Firebase Dynamic Links long link on the service's own domain.
    /// Without `efr=1`, a preview page (title, description and image from `st`, `sd`, `si`) whose
    /// buttons are the app link and the platform's target; with it, a 302 to that target (link
    /// previews and crawlers still get the page). 400 and nothing redirected when `link` or a
    /// fallback is not on an allowed host.
    func firebaseLongLink(_ request: Request, _ context: ServiceContext) async -> Response {
        let pairs = FirebaseLink.queryPairs(request.uri.query)
        let link: FirebaseLink
        do { link = try FirebaseLink(pairs, input: input) } catch {
            return messagePage(.badRequest, "Link not valid", error.message)
        }
        let userAgent = request.headers[.userAgent]
        let audience = LandingPage.Audience(userAgent: userAgent)
        let iPad = userAgent?.contains("iPad") ?? false
        let preview = Self.isPreview(userAgent: userAgent) { request.headers[$0] }
        if link.forceRedirect && !preview {
            var target = link.target(for: audience, iPad: iPad)
            // Android needs no tap to carry a claim: the Play Store link itself does.
            if audience == .android, request.method == .get, offersClaim(audience, preview: preview) {
                var page = basePage(pageURL: configuration.publicURL + "/?" + (request.uri.query ?? ""))
                page.deepLink = appLink(forPageURL: link.link) ?? link.deepLink
                page.playStoreURL = target
                target = await withClaim(page, audience: audience, code: nil, route: nil, parameters: [:],
                                         address: { clientAddress(request, context) }).page.playStoreURL ?? target
            }
            return Response(status: .found, headers: [.location: target, .cacheControl: "no-store",
                                                      Self.referrerPolicy: "no-referrer"])
        }
        var page = basePage(pageURL: configuration.publicURL + "/?" + (request.uri.query ?? ""))
        page.title = link.title ?? configuration.defaultTitle
        page.description = link.description ?? configuration.defaultDescription
        page.image = link.image ?? page.image
        // "Open in the app" is the app link of `link` when a route of this service takes it (a tap
        // on a universal link of the page's own domain stays in the browser on iOS).
        page.deepLink = appLink(forPageURL: link.link) ?? link.deepLink
        page.appStoreURL = link.target(for: .iOS, iPad: iPad)
        page.playStoreURL = link.target(for: .android, iPad: false)
        page.webURL = link.target(for: .desktop, iPad: false)
        // The banner offers the app the link names, as "Get the app" does.
        page.appStoreID = link.appStoreID ?? page.appStoreID
        if request.method == .get, offersClaim(audience, preview: preview) {
            page = await withClaim(page, audience: audience, code: nil, route: nil, parameters: [:], address: { clientAddress(request, context) }).page
            return htmlResponse(.ok, await pageBody(page, for: audience, inApp: Self.inAppBrowser(audience, userAgent: request.headers[.userAgent])), cache: "private, no-store")
        }
        return htmlResponse(.ok, await pageBody(page, for: audience, inApp: Self.inAppBrowser(audience, userAgent: request.headers[.userAgent])), cache: "public, max-age=300")
    }

    /// A link imported from Firebase Dynamic Links keeps its short link's path (`/abc`): a
    /// one-segment path that no route takes is looked up as such a link.
    func importedLinkPage(_ request: Request, _ context: ServiceContext) async -> Response? {
        let path = request.uri.path
        guard path.utf8.count > 1, path.hasPrefix("/") else { return nil }
        let code = String(path.dropFirst())
        guard !code.contains("/"), input.isStoredCode(code) else { return nil }
        guard let link = try? await hot.link(code), link.kind == "fdl" else { return nil }
        return await storedLinkPage(code: code, request, context)
    }
}
