import LinkRequests
import LinkConfiguration
import LinkPages
import LinkStorage
import SwitchyardCore
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Firebase Dynamic Links as they were served: a long link on the service's own domain
/// (`/?link=…&apn=…`).
struct FirebaseController: Sendable {
    let pages: LandingPages
    let claims: Claims
    let addresses: ClientAddresses

    /// GET `/?link=…&apn=…&…`: a Firebase Dynamic Links long link on the service's own domain.
    /// Without `efr=1`, a preview page (title, description and image from `st`, `sd`, `si`) whose
    /// buttons are the app link and the platform's target; with it, a 302 to that target (link
    /// previews and crawlers still get the page). 400 and nothing redirected when `link` or a
    /// fallback is not on an allowed host.
    func longLink(_ request: Request, _ context: ServiceContext) async -> Response {
        let pairs = FirebaseLink.queryPairs(request.uri.query)
        let link: FirebaseLink
        do { link = try FirebaseLink(pairs, input: pages.input) } catch {
            return pages.messagePage(.badRequest, "Link not valid", error.message)
        }
        let userAgent = request.headers[.userAgent]
        let audience = LandingPage.Audience(userAgent: userAgent)
        let iPad = userAgent?.contains("iPad") ?? false
        let preview = LandingPages.isPreview(userAgent: userAgent) { request.headers[$0] }
        if link.forceRedirect && !preview {
            var target = link.target(for: audience, iPad: iPad)
            // Android needs no tap to carry a claim: the Play Store link itself does.
            if audience == .android, request.method == .get, claims.offersClaim(audience, preview: preview) {
                var page = pages.basePage(pageURL: pages.configuration.publicURL + "/?" + (request.uri.query ?? ""))
                page.deepLink = pages.appLink(forPageURL: link.link) ?? link.deepLink
                page.playStoreURL = target
                target = await claims.withClaim(page, audience: audience, code: nil, route: nil, parameters: [:],
                                         address: { addresses.address(request, context) }).page.playStoreURL ?? target
            }
            return Response(status: .found, headers: [.location: target, .cacheControl: "no-store",
                                                      LandingPages.referrerPolicy: "no-referrer"])
        }
        var page = pages.basePage(pageURL: pages.configuration.publicURL + "/?" + (request.uri.query ?? ""))
        page.title = link.title ?? pages.configuration.defaultTitle
        page.description = link.description ?? pages.configuration.defaultDescription
        page.image = link.image ?? page.image
        // "Open in the app" is the app link of `link` when a route of this service takes it (a tap
        // on a universal link of the page's own domain stays in the browser on iOS).
        page.deepLink = pages.appLink(forPageURL: link.link) ?? link.deepLink
        // The store buttons lead to a store: the link's own fallbacks, else the configured app's
        // store page (without isi/apn a Firebase link's phone target is the link itself, which is
        // no store; the force-redirect above still goes there).
        page.appStoreURL = (iPad ? link.iPadFallback : nil) ?? link.iOSFallback ?? page.appStoreURL
        page.playStoreURL = link.androidFallback ?? page.playStoreURL
        page.webURL = link.target(for: .desktop, iPad: false)
        // The banner offers the app the link names, as "Get the app" does.
        page.appStoreID = link.appStoreID ?? page.appStoreID
        if request.method == .get, claims.offersClaim(audience, preview: preview) {
            page = await claims.withClaim(page, audience: audience, code: nil, route: nil, parameters: [:], address: { addresses.address(request, context) }).page
            return pages.htmlResponse(.ok, await pages.pageBody(page, for: audience, inApp: LandingPages.inAppBrowser(audience, userAgent: request.headers[.userAgent])), cache: "private, no-store")
        }
        return pages.htmlResponse(.ok, await pages.pageBody(page, for: audience, inApp: LandingPages.inAppBrowser(audience, userAgent: request.headers[.userAgent])), cache: "public, max-age=300")
    }
}
