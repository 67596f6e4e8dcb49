import LinkRouting
import SwitchyardCore

/// What iOS and Android 15 decide for the same URLs, side by side: the association files made
/// from one route table (or the ones a site serves) asked the same questions.
///
/// ```swift
/// let rows = PlatformComparison.compare(PlatformComparison.sampleURLs(router), aasa: aasa, appID: id,
///                                       assetLinks: links, package: "com.example.app", domain: host)
/// rows.filter(\.disagree)   // the URLs one platform opens in the app and the other does not
/// ```
public enum PlatformComparison {
    /// One URL's two decisions.
    public struct Row: Sendable, Equatable {
        /// The URL asked about.
        public var url: String
        /// What iOS does (``AppSiteAssociation/Decision``).
        public var ios: AppSiteAssociation.Decision
        /// What Android 15 does.
        public var android: AssetLinks.Decision
        /// True when one platform opens the URL in the app and the other does not. `manifest`
        /// (the intent filters decide) is counted as opening, as a generated manifest would.
        public var disagree: Bool { (ios == .match) != (android == .match || android == .manifest) }
    }

    /// Both decisions for each of `urls`.
    public static func compare(_ urls: [String], aasa: AppSiteAssociation, appID: String, assetLinks: AssetLinks, package: String, domain: String?) -> [Row] {
        urls.map { Row(url: $0, ios: aasa.decide($0, for: appID, domain: domain), android: assetLinks.decide($0, package: package)) }
    }

    /// URLs to ask about: for each universal route, its example URL, the same with a query
    /// parameter no route reads (as iOS 18's AdAttributionKit re-engagement adds), and for each
    /// excluded route its example too.
    public static func sampleURLs(_ router: LinkRouter) -> [String] {
        var urls: [String] = []
        for route in router.routes where route.kind == .universal {
            guard let url = RouteCoverage.sampleURL(router, route) else { continue }
            urls.append(url)
            if !route.exclude { urls.append(url + (url.contains("?") ? "&" : "?") + "sy_extra=1") }
        }
        var seen = Set<String>()
        return urls.filter { seen.insert($0).inserted }
    }
}
