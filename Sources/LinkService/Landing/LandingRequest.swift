import Foundation
import LinkRequests
import HTTPTypes
import LinkAudience
import LinkPages
import LinkStorage

/// A landing-page request as the decision sees it, read once where it arrives (the lane or the
/// router) and handed on whole: the code, who is asking (platform, preview or person, in-app
/// browser) and where from.
struct LandingRequest {
    /// The stored link's code (not yet checked).
    let code: String
    /// A GET (which counts a visit); otherwise a HEAD, which uses nothing up.
    let isGet: Bool
    let userAgent: String?
    let audience: LandingPage.Audience
    /// A link preview, crawler or prefetch: counted apart, never a click or a use.
    let preview: Bool
    /// The in-app browser a phone's visitor is in (`Instagram`); nil elsewhere.
    let inApp: String?
    let referer: String?
    /// The `utm_*` parameters of the URL visited.
    let campaign: Visit.Campaign
    /// The country the operator's proxy named (`visits.countryHeader`), as sent; nil without one.
    let proxyCountry: String?
    /// The text after the path's `?`, as sent; nil without one.
    let query: Substring?
    /// The request's header fields, for what only some pages read (a protected link's cookie):
    /// kept whole, as shared storage, so a page that reads none of it costs nothing more.
    let fields: HTTPFields

    /// `code` as the path carries it: percent escapes are decoded (`/i/%6cane1` is `/i/lane1`).
    /// `query` is the text after the path's `?`; `countryHeader`, the header the configuration trusts.
    init(code: String, method: HTTPRequest.Method, fields: HTTPFields, query: Substring? = nil, countryHeader: HTTPField.Name? = nil) {
        self.code = code.contains("%") ? code.removingPercentEncoding ?? code : code
        isGet = method == .get
        userAgent = fields[.userAgent]
        audience = LandingPage.Audience(userAgent: userAgent)
        preview = LandingPages.isPreview(userAgent: userAgent) { fields[$0] }
        inApp = LandingPages.inAppBrowser(audience, userAgent: userAgent)
        referer = fields[.referer]
        campaign = query.map { Visit.Campaign(query: $0) } ?? .init()
        proxyCountry = countryHeader.flatMap { fields[$0] }
        self.query = query
        self.fields = fields
    }
}
