import Mustache

/// A URL the service has checked before it reaches a page: an http(s) URL, a path of the
/// service, or a deep link of the configuration's schemes, never `javascript:`. Only values of
/// this type may start a URL attribute in an operator's template (``TemplateCheck``).
package struct PageURL: Sendable, Equatable, CustomStringConvertible, MustacheCustomRenderable {
    /// The URL as written into the page (escaped there like any value).
    package let text: String

    /// `text`, which the caller has checked.
    package init(checked text: String) { self.text = text }

    package var description: String { text }
    package var renderText: String { text }
    package var isNull: Bool { false }
}

/// The values a page template is rendered with. Its stored properties are the names the
/// template sees: an optional that is nil is absent, a `Bool` is a section that shows when
/// true, an array a section repeated per item, a struct a section with its own names inside.
package protocol PageView: Sendable {
    /// The page whose template renders it.
    static var page: PageTemplates.Page { get }
    /// A view with every optional present and one item in every list: ``ViewShape`` reads the
    /// names a template may use from it.
    static var specimen: Self { get }
}

/// The names a view gives its template, read from its type's ``PageView/specimen``: what
/// ``TemplateCheck`` lets an operator's template use.
package struct ViewShape: Sendable, Equatable {
    /// The names at the top level.
    package private(set) var variables: Set<String> = []
    /// For each section whose value is an object or a list of objects, the names inside it.
    package private(set) var members: [String: Set<String>] = [:]
    /// The names whose values are ``PageURL``s, at any level.
    package private(set) var urlValues: Set<String> = []
    /// The sections whose value is a list.
    package private(set) var lists: Set<String> = []

    /// The shape of `view`.
    package init(of view: some PageView) {
        for (name, value) in Self.children(view) {
            variables.insert(name)
            read(name, value)
        }
    }

    private mutating func read(_ name: String, _ value: Any) {
        if value is PageURL { urlValues.insert(name); return }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .collection:
            lists.insert(name)
            if let first = mirror.children.first { read(name, Self.unwrapped(first.value) ?? first.value) }
        case .struct:
            let inner = Self.children(value)
            members[name, default: []].formUnion(inner.map(\.name))
            for (innerName, innerValue) in inner where innerValue is PageURL { urlValues.insert(innerName) }
        default:
            break
        }
    }

    /// The labelled stored properties of `value`, optionals unwrapped (a nil one as `Optional.none`).
    static func children(_ value: Any) -> [(name: String, value: Any)] {
        Mirror(reflecting: value).children.compactMap { child in
            child.label.map { ($0, unwrapped(child.value) ?? child.value) }
        }
    }

    /// The value inside an optional (nil when it is empty); a value that is no optional as it is.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) ?? $0.value }
    }

    /// The places in `view` where an optional is nil or a list is empty: a specimen has none, or
    /// the names under them would be missing from its shape.
    package static func gaps(in view: Any, path: String = "") -> [String] {
        var gaps: [String] = []
        for child in Mirror(reflecting: view).children {
            let name = path.isEmpty ? child.label ?? "?" : path + "." + (child.label ?? "?")
            guard let value = unwrapped(child.value) else { gaps.append(name); continue }
            let mirror = Mirror(reflecting: value)
            switch mirror.displayStyle {
            case .collection:
                if let first = mirror.children.first { gaps += Self.gaps(in: first.value, path: name + "[0]") } else { gaps.append(name) }
            case .struct where !(value is PageURL):
                gaps += Self.gaps(in: value, path: name)
            default:
                break
            }
        }
        return gaps
    }
}

/// What the `landing` template is given (the operator guide, "Your own page templates",
/// describes each name).
package struct LandingView: PageView, Equatable {
    package static var page: PageTemplates.Page { .landing }
    /// "Open in Chrome" or "Open in Safari" from an in-app browser.
    package struct BrowserButton: Sendable, Equatable {
        package var href: PageURL
        package var name: String
    }

    /// "Get the app" on an iPhone with a deferred link: the button copies `claimURL`, then goes to `storeURL`.
    package struct GetApp: Sendable, Equatable {
        package var claimURL: PageURL
        package var storeURL: PageURL
    }

    /// The platform's way on without the app.
    package struct Fallback: Sendable, Equatable {
        package var audience: String
        package var url: PageURL
        package var label: String
    }

    /// A store button on a desktop.
    package struct Store: Sendable, Equatable {
        package var url: PageURL
        package var label: String
    }

    /// The way out of an in-app browser that sends the browser's own User-Agent, shown by the
    /// page's script when `globals` exist on `window`.
    package struct WebviewEscape: Sendable, Equatable {
        package var name: String
        package var globals: String
        package var browserHref: PageURL?
        package var browserName: String
        package var appIntent: PageURL?
        package var android: Bool
    }

    package var title: String
    package var description: String
    package var hasDescription: Bool
    package var pageURL: PageURL
    package var audience: String
    package var twitterCard: String
    package var previewImage: PageURL?
    package var icon: PageURL?
    package var deepLink: String?
    package var smartBanner: String?
    package var qrImage: PageURL?
    package var openApp: PageURL?
    package var openBrowser: BrowserButton?
    package var inAppBrowser: String?
    package var inAppAndroid = false
    package var inAppIOS = false
    package var getApp: GetApp?
    package var copiesClaim = false
    package var fallback: Fallback?
    package var stores: [Store] = []
    package var web: PageURL?
    package var fallbackTimer = false
    package var webviewEscapes: [WebviewEscape] = []
    package var findsWebviews = false

    init(title: String, description: String, pageURL: PageURL, audience: String, twitterCard: String) {
        (self.title, self.description, self.pageURL, self.audience, self.twitterCard) = (title, description, pageURL, audience, twitterCard)
        hasDescription = !description.isEmpty
    }

    package static var specimen: LandingView {
        let url = PageURL(checked: "https://example.com/")
        var view = LandingView(title: "t", description: "d", pageURL: url, audience: "ios", twitterCard: "summary")
        (view.previewImage, view.icon, view.deepLink, view.smartBanner, view.qrImage, view.openApp) = (url, url, "app://x", "app-id=1", url, url)
        view.openBrowser = BrowserButton(href: url, name: "Safari")
        view.inAppBrowser = "Instagram"
        view.getApp = GetApp(claimURL: url, storeURL: url)
        view.fallback = Fallback(audience: "ios", url: url, label: "l")
        view.stores = [Store(url: url, label: "App Store")]
        view.web = url
        view.webviewEscapes = [WebviewEscape(name: "Telegram", globals: "TelegramWebview", browserHref: url, browserName: "Safari", appIntent: url, android: false)]
        return view
    }
}

/// What the `message` template is given: a short page saying why there is no landing page.
package struct MessageView: PageView, Equatable {
    package static var page: PageTemplates.Page { .message }
    package var title: String
    package var message: String
    /// The HTTP status (`404`).
    package var status: Int

    package init(title: String, message: String, status: Int) {
        (self.title, self.message, self.status) = (title, message, status)
    }

    package static var specimen: MessageView { MessageView(title: "t", message: "m", status: 404) }
}

/// What a protected link shows until its password is given (`password.mustache`): nothing of
/// the link itself — no title, description, image or destination — only a form.
package struct PasswordView: PageView, Equatable {
    package static var page: PageTemplates.Page { .password }
    /// The page's heading ("Protected link").
    package var title: String
    /// What to do, for people.
    package var message: String
    /// Where the form posts the password: the link's `/i/{code}` path.
    package var action: PageURL
    /// The visited URL's query (after `?`), posted back so the link opens with it; nil without one.
    package var query: String?
    /// Why the last try failed ("That password is not right."); nil on the first visit.
    package var problem: String?
    /// The HTTP status (`200`, or `403` after a wrong password).
    package var status: Int

    package init(title: String = "Protected link", message: String = "This link is protected. Enter its password to open it.",
                 action: PageURL, query: String? = nil, problem: String? = nil, status: Int = 200) {
        (self.title, self.message, self.action, self.query, self.problem, self.status) = (title, message, action, query, problem, status)
    }

    package static var specimen: PasswordView {
        PasswordView(action: PageURL(checked: "/i/code"), query: "q=1", problem: "p", status: 200)
    }
}
