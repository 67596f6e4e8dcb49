import Foundation

/// The HTML page behind `/i/{code}` and every universal-link route: Open Graph and Twitter card
/// tags for previews, an "Open in the app" button with the custom-scheme link, and a fallback
/// chosen by the visitor's platform. Every href is checked against the configuration first.
package struct LandingPage: Sendable, Equatable {
    /// Who is visiting, from the User-Agent.
    package enum Audience: String, Sendable, Hashable {
        case iOS = "ios", android, desktop

        /// iOS for an iPhone, iPad or iPod User-Agent, Android for one that says Android, desktop otherwise (and when there is none).
        package init(userAgent: String?) {
            guard let ua = userAgent else { self = .desktop; return }
            // Compared as bytes, case kept, in one pass: this runs on every landing-page request.
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
    package var title: String
    /// Text under the heading and in og:description and twitter:description; no paragraph when empty.
    package var description: String
    /// The preview image's URL (og:image, twitter:image); nil: a summary card without image.
    package var image: String?
    /// The canonical URL of the page (og:url).
    package var pageURL: String
    /// The custom-scheme link; nil when the link has none the configuration allows.
    package var deepLink: String?
    /// What "Open in the app" opens when it is not `deepLink` (an https link of the page's own
    /// domain, which iOS keeps in Safari, gets its app route instead): `.some(nil)` for no button.
    package var appButton: String?? = nil
    /// The link "Open in the app" opens: `appButton` when set, else `deepLink`.
    var buttonLink: String? { appButton ?? deepLink }
    /// The App Store page: the fallback on iPhone and iPad, and a store button on desktop without `webURL`.
    package var appStoreURL: String?
    /// The Play Store page: the fallback on Android, and a store button on desktop without `webURL`.
    package var playStoreURL: String?
    /// Where desktop visitors continue; nil: both store buttons instead.
    package var webURL: String?
    /// The numeric App Store ID for the `apple-itunes-app` Smart App Banner tag; nil: no banner.
    package var appStoreID: String?
    /// A deferred deep link's claim URL (`publicURL/d/TOKEN`): on iPhone and iPad the store
    /// button becomes "Get the app" (`#get-app`), which copies it when tapped, then goes on.
    package var claimURL: String?
    /// The app's icon (`landing.icon`): shown above the title, and the preview image when there is no `image`.
    package var icon: String? = nil
    /// The in-app browser the visitor is in (`Instagram`), nil in a browser: the page then offers
    /// the way out that works there instead of links the webview would keep.
    package var inAppBrowser: String? = nil
    /// The Android app's package, for the `intent://` link an Android in-app browser gets.
    package var androidPackage: String? = nil
    /// An image of the page's QR code (`/i/{code}/qr.svg`), shown on desktop to continue on a phone.
    package var qrImage: String? = nil

    /// A page with these texts and links; what is not given is absent from the page.
    package init(title: String, description: String, image: String? = nil, pageURL: String, deepLink: String? = nil,
                appStoreURL: String? = nil, playStoreURL: String? = nil, webURL: String? = nil, appStoreID: String? = nil,
                claimURL: String? = nil, icon: String? = nil, inAppBrowser: String? = nil, androidPackage: String? = nil,
                qrImage: String? = nil) {
        self.title = title
        self.description = description
        self.image = image
        self.pageURL = pageURL
        self.deepLink = deepLink
        self.appStoreURL = appStoreURL
        self.playStoreURL = playStoreURL
        self.webURL = webURL
        self.appStoreID = appStoreID
        self.claimURL = claimURL
        self.icon = icon
        self.inAppBrowser = inAppBrowser
        self.androidPackage = androidPackage
        self.qrImage = qrImage
    }

    /// The page URL as an Android intent that opens `package`'s App Link for it, or Chrome with
    /// the page when the app is not installed (`S.browser_fallback_url`); nil for a URL that is
    /// not https.
    package static func intentURL(_ pageURL: String, package: String) -> String? {
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
    package func fallback(for audience: Audience) -> (label: String, url: String)? {
        switch audience {
        case .iOS: return appStoreURL.map { (Self.storeName($0).map { "Get it on the \($0)" } ?? "Continue on the web", $0) }
        case .android: return playStoreURL.map { (Self.storeName($0).map { "Get it on \($0)" } ?? "Continue on the web", $0) }
        case .desktop: return webURL.map { ("Continue on the web", $0) }
        }
    }

    /// The document for a visitor in the in-app browser `inApp` (nil: a browser; a desktop has
    /// none), made from `templates`' `landing` template.
    package func html(for audience: Audience, inApp: String?, templates: PageTemplates = .standard) -> String {
        var page = self
        page.inAppBrowser = inApp
        return page.html(for: audience, templates: templates)
    }

    /// The complete HTML document for this audience: preview tags, the open-in-app button and
    /// the platform's fallback, every value HTML-escaped by the template.
    package func html(for audience: Audience, templates: PageTemplates = .standard) -> String {
        templates.render(view(for: audience))
    }

    /// What the `landing` template is given for this audience (the names are documented in the
    /// operator guide, "Your own page templates"). Every URL here was checked when the page was
    /// made, or is built from those.
    package func view(for audience: Audience) -> LandingView {
        let url = PageURL.init(checked:)
        var view = LandingView(title: title, description: description, pageURL: url(pageURL), audience: audience.rawValue,
                               twitterCard: image == nil ? "summary" : "summary_large_image")
        view.previewImage = (image ?? icon).map(url)
        view.icon = icon.map(url)
        view.deepLink = deepLink
        view.inAppBrowser = inAppBrowser
        if let id = appStoreID {
            view.smartBanner = "app-id=\(id)" + (deepLink.map { ", app-argument=" + $0.replacingOccurrences(of: ",", with: "%2C") } ?? "")
        }
        // "Open in the app" as it can work for this visitor. On a desktop there is no app to
        // open: the page's QR code, to continue on a phone. In an Android in-app browser, an
        // intent that opens the app (or Chrome) and one that opens Chrome; in an iOS one, the
        // app's own link, Safari (`x-safari-https`, iOS 17+) and the words for the webview's menu.
        switch (audience, inAppBrowser) {
        case (.desktop, _):
            view.qrImage = qrImage.map(url)
        case (.android, _?):
            view.openApp = (androidPackage.flatMap { Self.intentURL(pageURL, package: $0) } ?? buttonLink).map(url)
            if let chrome = Self.intentURL(pageURL, package: "com.android.chrome") { view.openBrowser = .init(href: url(chrome), name: "Chrome") }
            view.inAppAndroid = true
        case (.iOS, _?):
            view.openApp = buttonLink.map(url)
            if pageURL.hasPrefix("https://") { view.openBrowser = .init(href: url("x-safari-" + pageURL), name: "Safari") }
            view.inAppIOS = true
        default:
            view.openApp = buttonLink.map(url)
            // A phone whose User-Agent names no in-app browser may still be in one that sends the
            // browser's own (Telegram's): the page's script looks for the app's objects on
            // `window` and then shows the way out it would have been given (hidden otherwise).
            if audience != .desktop, pageURL.hasPrefix("https://") {
                let android = audience == .android
                let browser = android ? Self.intentURL(pageURL, package: "com.android.chrome") : "x-safari-" + pageURL
                let app = android ? androidPackage.flatMap { Self.intentURL(pageURL, package: $0) } : nil
                view.webviewEscapes = InAppBrowsers.standard.seenByScript.map { seen in
                    LandingView.WebviewEscape(name: seen.name, globals: seen.globals.joined(separator: " "), browserHref: browser.map(url),
                                              browserName: android ? "Chrome" : "Safari", appIntent: app.map(url), android: android)
                }
                view.findsWebviews = !view.webviewEscapes.isEmpty
            }
        }
        // Where to go without the app: on iPhone and iPad with a claim, "Get the app" (which
        // copies the claim URL); else the platform's fallback, with both stores on a desktop; a
        // phone whose platform has no store page here gets the web page, never the other store.
        var stores: [LandingView.Store] = []
        if audience == .desktop {
            if let a = appStoreURL { stores.append(.init(url: url(a), label: "App Store")) }
            if let p = playStoreURL { stores.append(.init(url: url(p), label: "Google Play")) }
        }
        if audience == .iOS, let claimURL, let store = appStoreURL {
            view.getApp = .init(claimURL: url(claimURL), storeURL: url(store))
            view.copiesClaim = true
        } else if let (label, target) = fallback(for: audience) {
            view.fallback = .init(audience: audience.rawValue, url: url(target), label: label)
            view.stores = stores
        } else if audience == .desktop {
            view.stores = stores
        } else if let web = webURL {
            view.web = url(web)
        }
        // Opening the app leaves the page; if it is still visible 1.5 s later, the app is
        // probably not installed, so the script goes to the store (an href already on the page).
        view.fallbackTimer = buttonLink != nil && audience != .desktop && inAppBrowser == nil && fallback(for: audience) != nil
        return view
    }

    /// Escapes text for HTML element content and double-quoted attributes.
    package static func escape(_ s: String) -> String {
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
