import SwitchyardCore
import Foundation

/// The HTML page behind `/i/{code}` and every universal-link route: Open Graph and Twitter card
/// tags for previews, an "Open in the app" button with the custom-scheme link, and a fallback
/// chosen by the visitor's platform. Every href is checked against the configuration first.
public struct LandingPage: Sendable, Equatable {
    /// Who is visiting, from the User-Agent.
    public enum Audience: String, Sendable, Hashable {
        case iOS = "ios", android, desktop

        /// iOS for an iPhone, iPad or iPod User-Agent, Android for one that says Android, desktop otherwise (and when there is none).
        public init(userAgent: String?) {
            guard let ua = userAgent else { self = .desktop; return }
            // Compared as bytes, case kept: this runs on every landing-page request, and
            // Foundation's `contains` was 8 % of a cached page's CPU time.
            var kind = Audience.desktop
            var text = ua
            text.withUTF8 { bytes in
                var i = 0
                while i + 4 <= bytes.count {
                    if bytes[i] == UInt8(ascii: "i"), bytes[i + 1] == UInt8(ascii: "P") {
                        let rest = bytes[(i + 2)...]
                        if rest.starts(with: "hone".utf8) || rest.starts(with: "ad".utf8) || rest.starts(with: "od".utf8) { kind = .iOS; return }
                    } else if kind == .desktop, bytes[i] == UInt8(ascii: "A"), bytes[(i + 1)...].starts(with: "ndroid".utf8) {
                        kind = .android
                    }
                    i += 1
                }
            }
            self = kind
        }
    }

    /// The page's heading and its og:title and twitter:title.
    public var title: String
    /// Text under the heading and in og:description and twitter:description; no paragraph when empty.
    public var description: String
    /// The preview image's URL (og:image, twitter:image); nil: a summary card without image.
    public var image: String?
    /// The canonical URL of the page (og:url).
    public var pageURL: String
    /// The custom-scheme link; nil when the link has none the configuration allows.
    public var deepLink: String?
    /// The App Store page: the fallback on iPhone and iPad, and a store button on desktop without `webURL`.
    public var appStoreURL: String?
    /// The Play Store page: the fallback on Android, and a store button on desktop without `webURL`.
    public var playStoreURL: String?
    /// Where desktop visitors continue; nil: both store buttons instead.
    public var webURL: String?
    /// The numeric App Store ID for the `apple-itunes-app` Smart App Banner tag; nil: no banner.
    public var appStoreID: String?
    /// A deferred deep link's claim URL (`publicURL/d/TOKEN`): on iPhone and iPad the store
    /// button becomes "Get the app" (`#get-app`), which copies it when tapped, then goes on.
    public var claimURL: String?
    /// The app's icon (`landing.icon`): shown above the title, and the preview image when there is no `image`.
    public var icon: String? = nil
    /// The in-app browser the visitor is in (`Instagram`), nil in a browser: the page then offers
    /// the way out that works there instead of links the webview would keep.
    public var inAppBrowser: String? = nil
    /// The Android app's package, for the `intent://` link an Android in-app browser gets.
    public var androidPackage: String? = nil
    /// An image of the page's QR code (`/i/{code}/qr.svg`), shown on desktop to continue on a phone.
    public var qrImage: String? = nil

    /// The page URL as an Android intent that opens `package`'s App Link for it, or Chrome with
    /// the page when the app is not installed (`S.browser_fallback_url`); nil for a URL that is
    /// not https.
    static func intentURL(_ pageURL: String, package: String) -> String? {
        guard pageURL.hasPrefix("https://") else { return nil }
        let rest = pageURL.dropFirst("https://".count)
        let fallback = pageURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return "intent://\(rest)#Intent;scheme=https;package=\(package);S.browser_fallback_url=\(fallback);end"
    }

    /// The store whose app page `url` is ("App Store": `…/id<digits>` on apps.apple.com or
    /// itunes.apple.com; "Google Play": `/store/apps/details?id=…`), nil for any other page: a
    /// button is labelled as a store only when it leads to an app there.
    static func storeName(_ url: String) -> String? {
        guard let c = URLComponents(string: url), let host = c.host?.lowercased() else { return nil }
        if host == "apps.apple.com" || host == "itunes.apple.com",
           let last = c.path.split(separator: "/").last, last.hasPrefix("id"), last.count > 2, last.dropFirst(2).allSatisfy({ $0.isASCII && $0.isNumber }) { return "App Store" }
        if host == "play.google.com", c.path == "/store/apps/details", c.queryItems?.contains(where: { $0.name == "id" }) == true { return "Google Play" }
        return nil
    }

    /// The fallback for an audience: the store of the platform, the web on desktop.
    public func fallback(for audience: Audience) -> (label: String, url: String)? {
        switch audience {
        case .iOS: return appStoreURL.map { (Self.storeName($0).map { "Get it on the \($0)" } ?? "Continue on the web", $0) }
        case .android: return playStoreURL.map { (Self.storeName($0).map { "Get it on \($0)" } ?? "Continue on the web", $0) }
        case .desktop: return webURL.map { ("Continue on the web", $0) }
        }
    }

    /// The document for a visitor in the in-app browser `inApp` (nil: a browser; a desktop has none).
    public func html(for audience: Audience, inApp: String?) -> String {
        var page = self
        page.inAppBrowser = inApp
        return page.html(for: audience)
    }

    /// The complete HTML document for this audience: preview tags, the open-in-app button and the platform's fallback, with every value HTML-escaped.
    public func html(for audience: Audience) -> String {
        let t = Self.escape(title), d = Self.escape(description)
        var head = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(t)</title>
            <link rel="canonical" href="\(Self.escape(pageURL))">
            <meta property="og:type" content="website">
            <meta property="og:title" content="\(t)">
            <meta property="og:description" content="\(d)">
            <meta property="og:url" content="\(Self.escape(pageURL))">
            <meta name="twitter:card" content="\(image == nil ? "summary" : "summary_large_image")">
            <meta name="twitter:title" content="\(t)">
            <meta name="twitter:description" content="\(d)">

            """
        if let preview = image ?? icon {
            head += "<meta property=\"og:image\" content=\"\(Self.escape(preview))\">\n<meta name=\"twitter:image\" content=\"\(Self.escape(preview))\">\n"
        }
        if let icon { head += "<link rel=\"icon\" href=\"\(Self.escape(icon))\">\n<link rel=\"apple-touch-icon\" href=\"\(Self.escape(icon))\">\n" }
        if let id = appStoreID {
            head += "<meta name=\"apple-itunes-app\" content=\"app-id=\(Self.escape(id))\(deepLink.map { ", app-argument=" + Self.escape($0.replacingOccurrences(of: ",", with: "%2C")) } ?? "")\">\n"
        }
        head += """
            <style>body{font:16px/1.5 system-ui,sans-serif;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center;background:#f6f6f8;color:#222}
            main{max-width:28rem;padding:2rem;text-align:center}a.button{display:block;margin:.75rem 0;padding:.8rem 1rem;border-radius:.6rem;text-decoration:none;font-weight:600}
            #open-app{background:#3a5bd9;color:#fff}#fallback,#get-app,.store,#open-browser{background:#fff;color:#3a5bd9;border:1px solid #3a5bd9}
            .icon{width:72px;height:72px;border-radius:16px}.qr{width:176px;height:176px}.hint{font-size:.9rem;color:#555}</style>
            </head>

            """
        var body = "<body><main>\n"
        if let icon { body += "<img class=\"icon\" src=\"\(Self.escape(icon))\" alt=\"\">\n" }
        body += "<h1>\(t)</h1>\n"
        if !description.isEmpty { body += "<p>\(d)</p>\n" }
        body += openButtons(audience)
        if audience == .iOS, let claimURL, let store = appStoreURL {
            body += "<a id=\"get-app\" class=\"button\" data-audience=\"ios\" data-claim=\"\(Self.escape(claimURL))\" href=\"\(Self.escape(store))\">Get the app</a>\n"
        } else if let (label, url) = fallback(for: audience) {
            body += "<a id=\"fallback\" class=\"button\" data-audience=\"\(audience.rawValue)\" href=\"\(Self.escape(url))\">\(label)</a>\n"
            if audience == .desktop {
                if let a = appStoreURL { body += "<a class=\"button store\" href=\"\(Self.escape(a))\">App Store</a>\n" }
                if let p = playStoreURL { body += "<a class=\"button store\" href=\"\(Self.escape(p))\">Google Play</a>\n" }
            }
        } else if audience == .desktop {
            // A desktop without a web page: both stores (read on the computer, installed on the phone).
            if let a = appStoreURL { body += "<a class=\"button store\" href=\"\(Self.escape(a))\">App Store</a>\n" }
            if let p = playStoreURL { body += "<a class=\"button store\" href=\"\(Self.escape(p))\">Google Play</a>\n" }
        } else if let web = webURL {
            // A phone whose platform has no store page here: never the other platform's store.
            body += "<a id=\"web\" class=\"button store\" href=\"\(Self.escape(web))\">Continue on the web</a>\n"
        }
        body += "</main>\n"
        if deepLink != nil, audience != .desktop, inAppBrowser == nil, fallback(for: audience) != nil {
            // Opening the app leaves the page; if it is still visible 1.5 s later, the app is
            // probably not installed, so go to the store (an href already on the page).
            body += """
                <script>document.getElementById("open-app").addEventListener("click",function(){var f=(document.getElementById("fallback")||document.getElementById("get-app")).href;
                setTimeout(function(){if(!document.hidden){location.href=f}},1500)});</script>

                """
        }
        if audience == .iOS, claimURL != nil, appStoreURL != nil {
            // The claim URL goes on the clipboard only here, when the person taps the button
            // (a user gesture, as the clipboard requires); then on to the store either way.
            body += """
                <script>document.getElementById("get-app").addEventListener("click",function(e){var a=this,go=function(){location.href=a.href};
                e.preventDefault();try{navigator.clipboard.writeText(a.getAttribute("data-claim")).then(go,go)}catch(x){go()}});</script>

                """
        }
        return head + body + "</body></html>\n"
    }

    /// "Open in the app" as it can work for this visitor. On a desktop there is no app to open:
    /// the page's QR code, to continue on a phone. In an Android in-app browser, an intent that
    /// opens the app (or Chrome) and one that opens Chrome; in an iOS one, the app's own link,
    /// Safari (`x-safari-https`, iOS 17+) and the words for the webview's menu.
    func openButtons(_ audience: Audience) -> String {
        var out = ""
        switch (audience, inAppBrowser) {
        case (.desktop, _):
            if let qrImage {
                out += "<img class=\"qr\" id=\"qr\" src=\"\(Self.escape(qrImage))\" alt=\"QR code of this link\">\n"
                out += "<p class=\"hint\">Scan it with your phone's camera to open the link in the app.</p>\n"
            }
        case (.android, let browser?):
            if let package = androidPackage, let intent = Self.intentURL(pageURL, package: package) {
                out += "<a id=\"open-app\" class=\"button\" href=\"\(Self.escape(intent))\">Open in the app</a>\n"
            } else if let deepLink {
                out += "<a id=\"open-app\" class=\"button\" href=\"\(Self.escape(deepLink))\">Open in the app</a>\n"
            }
            if let chrome = Self.intentURL(pageURL, package: "com.android.chrome") {
                out += "<a id=\"open-browser\" class=\"button\" href=\"\(Self.escape(chrome))\">Open in Chrome</a>\n"
            }
            out += "<p class=\"hint\" id=\"in-app-hint\">\(Self.escape(browser)) keeps links in its own browser. If the app does not open, choose “Open in browser” from the ⋮ menu.</p>\n"
        case (.iOS, let browser?):
            if let deepLink { out += "<a id=\"open-app\" class=\"button\" href=\"\(Self.escape(deepLink))\">Open in the app</a>\n" }
            if pageURL.hasPrefix("https://") {
                out += "<a id=\"open-browser\" class=\"button\" href=\"x-safari-\(Self.escape(pageURL))\">Open in Safari</a>\n"
            }
            out += "<p class=\"hint\" id=\"in-app-hint\">\(Self.escape(browser)) keeps links in its own browser. If the app does not open, tap ••• or the share button and choose “Open in Safari” (or “Open in browser”).</p>\n"
        default:
            if let deepLink { out += "<a id=\"open-app\" class=\"button\" href=\"\(Self.escape(deepLink))\">Open in the app</a>\n" }
        }
        return out
    }

    /// Escapes text for HTML element content and double-quoted attributes.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
