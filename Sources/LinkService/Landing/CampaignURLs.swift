import Foundation
import LinkRouting
import LinkStorage

/// A link's campaign handed on where the operator turns it on (`landing.campaignParameters`):
/// the web page gets the `utm_*` parameters, the Play Store its install `referrer`, the App
/// Store its campaign token (`ct`) and provider token (`pt`). What a URL names already stays.
enum CampaignURLs {
    /// The web page's URL with each `utm_*` value the link has and the URL does not name.
    static func web(_ url: String, _ campaign: LinkCampaign) -> String {
        appending(url, campaign.parameters)
    }

    /// The Play Store URL with the `utm_*` values in its `referrer` (the Install Referrer API
    /// hands the app `utm_source=…&utm_campaign=…`), beside what the referrer holds already.
    static func play(_ url: String, _ campaign: LinkCampaign) -> String {
        let present = Set(referrerItems(url).map(\.0))
        return withReferrer(url, campaign.parameters.filter { !present.contains($0.0) })
    }

    /// Apple's longest campaign token, in characters.
    static let campaignTokenLength = 40

    /// The App Store URL with `ct` (the campaign, or else the source, cut to 40 Unicode scalars)
    /// and with it `pt` (the provider token), each unless the URL has it; nothing without a
    /// campaign or source.
    static func appStore(_ url: String, _ campaign: LinkCampaign, providerToken: String?) -> String {
        guard let named = campaign.campaign ?? campaign.source else { return url }
        var items = [("ct", String(String.UnicodeScalarView(named.unicodeScalars.prefix(campaignTokenLength))))]
        if let providerToken { items.append(("pt", providerToken)) }
        return appending(url, items)
    }

    /// `url` with `items` added to its query (before any fragment), those whose name the query
    /// has already left out.
    static func appending(_ url: String, _ items: [(String, String)]) -> String {
        let (base, fragment) = split(url)
        let query = base.firstIndex(of: "?").map { base[base.index(after: $0)...] } ?? ""
        let names = Set(query.split(separator: "&").map { String($0.split(separator: "=", maxSplits: 1).first ?? "").removingPercentEncoding ?? "" })
        let added = items.filter { !names.contains($0.0) }.map { PercentText.encode($0.0) + "=" + PercentText.encode($0.1) }
        guard !added.isEmpty else { return url }
        let joiner = !base.contains("?") ? "?" : (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&")
        return String(base) + joiner + added.joined(separator: "&") + fragment
    }

    /// A Play Store URL with `items` in its `referrer`, URL-encoded as one value
    /// (`referrer=utm_source%3Dnews%26sy_claim%3DTOKEN`: the Play Store keeps one `referrer`, and
    /// the Install Referrer API hands it back decoded). What the referrer holds stays, but for
    /// the names `items` gives again; further `referrer` parameters are dropped.
    static func withReferrer(_ url: String, _ items: [(String, String)]) -> String {
        guard !items.isEmpty else { return url }
        let (base, fragment) = split(url)
        // Each value is encoded within the referrer too, so an `&` in a campaign stays in it.
        let adding = items.map { $0.0 + "=" + PercentText.encode($0.1) }.joined(separator: "&")
        guard let question = base.firstIndex(of: "?") else { return String(base) + "?referrer=" + PercentText.encode(adding) + fragment }
        var parts = base[base.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map(String.init)
        let earlier = parts.indices.filter { parts[$0] == "referrer" || parts[$0].hasPrefix("referrer=") }
        guard let first = earlier.first else {
            return String(base) + (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") + "referrer=" + PercentText.encode(adding) + fragment
        }
        let names = Set(items.map { $0.0 + "=" })
        let kept = (parts[first].dropFirst("referrer=".count).removingPercentEncoding ?? "")
            .split(separator: "&").filter { item in !names.contains { item.hasPrefix($0) } }.joined(separator: "&")
        parts[first] = "referrer=" + PercentText.encode(kept.isEmpty ? adding : kept + "&" + adding)
        for i in earlier.dropFirst().reversed() { parts.remove(at: i) }
        return String(base[...question]) + parts.joined(separator: "&") + fragment
    }

    /// The names and values in a URL's `referrer`, each decoded.
    static func referrerItems(_ url: String) -> [(String, String)] {
        let (base, _) = split(url)
        guard let question = base.firstIndex(of: "?") else { return [] }
        guard let part = base[base.index(after: question)...].split(separator: "&").first(where: { $0.hasPrefix("referrer=") }),
              let value = part.dropFirst("referrer=".count).removingPercentEncoding else { return [] }
        return value.split(separator: "&").map { item in
            let pair = item.split(separator: "=", maxSplits: 1)
            return (String(pair.first ?? ""), pair.count > 1 ? String(pair[1]).removingPercentEncoding ?? String(pair[1]) : "")
        }
    }

    private static func split(_ url: String) -> (Substring, String) {
        guard let hash = url.firstIndex(of: "#") else { return (Substring(url), "") }
        return (url[..<hash], String(url[hash...]))
    }
}
