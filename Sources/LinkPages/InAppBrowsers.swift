import Foundation
import SwitchyardCore

/// In-app browsers (the webviews of Instagram, Facebook, TikTok, …), from
/// `Resources/in-app-browsers.json`. Universal links and App Links rarely fire inside them, so
/// the landing page offers a way out that works there (see ``LandingPage``).
package struct InAppBrowsers: Sendable {
    /// One in-app browser, recognised by a substring of its User-Agent.
    package struct Browser: Sendable, Equatable {
        /// The app it belongs to, as people call it (`Instagram`).
        package var name: String
        /// Found anywhere in the User-Agent (case kept).
        package var match: String
        /// A User-Agent of this browser (the tests check that each is recognised).
        package var example: String
    }

    /// An in-app browser whose User-Agent is the platform browser's own: the page finds it by
    /// an object the app puts on `window`.
    package struct SeenByScript: Sendable, Equatable {
        /// The app it belongs to (`Telegram`).
        package var name: String
        /// Names on `window` that only this app's browser has (`TelegramWebviewProxy`).
        package var globals: [String]
    }

    /// The known in-app browsers, in file order.
    package let browsers: [Browser]
    /// The in-app browsers the page itself finds, in file order.
    package let seenByScript: [SeenByScript]
    /// Answers given lately: a few hundred User-Agents send most requests.
    private let recent = RecentAgents()

    /// A detector made of `browsers`.
    package init(browsers: [Browser], seenByScript: [SeenByScript] = []) {
        self.browsers = browsers
        self.seenByScript = seenByScript
    }

    /// The list shipped with the service.
    package static let standard: InAppBrowsers = {
        guard let path = PageResources.path("in-app-browsers.json"),
              let text = try? String(contentsOfFile: path, encoding: .utf8), let document = try? JSONParser.parse(text),
              let entries = document["browsers"]?.arrayValue else {
            fatalError("Resources/in-app-browsers.json is missing or malformed: the package is broken")
        }
        let browsers = entries.compactMap { e -> Browser? in
            guard let name = e["name"]?.stringValue, let match = e["match"]?.stringValue, let example = e["example"]?.stringValue else { return nil }
            return Browser(name: name, match: match, example: example)
        }
        let seen = (document["seenByScript"]?.arrayValue ?? []).compactMap { e -> SeenByScript? in
            guard let name = e["name"]?.stringValue, let globals = e["globals"]?.arrayValue?.compactMap(\.stringValue), !globals.isEmpty,
                  globals.allSatisfy({ g in !g.isEmpty && g.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") } }) else {
                fatalError("Resources/in-app-browsers.json: seenByScript entries need a name and globals that are plain identifiers")
            }
            return SeenByScript(name: name, globals: globals)
        }
        return InAppBrowsers(browsers: browsers, seenByScript: seen)
    }()

    /// The in-app browser `userAgent` belongs to, or nil (a browser, a program, or no User-Agent).
    package func browser(userAgent: String?) -> Browser? {
        guard let userAgent, userAgent.utf8.count <= 4096 else { return nil }
        let remembered = userAgent.utf8.count <= RecentAgents.longest
        let answer: Int
        if remembered, let known = recent.answer(userAgent) { answer = known } else {
            answer = browsers.firstIndex { userAgent.contains($0.match) } ?? RecentAgents.person
            if remembered { recent.remember(userAgent, answer) }
        }
        return answer >= 0 ? browsers[answer] : nil
    }
}
