import Foundation
import Mustache

/// The page of `relay watch --http` (`launcher.mustache`): a URL field, an Open button, one
/// button per quick-test URL, and the script that posts to the watcher with the run's token.
package struct LauncherPage: Sendable {
    /// The inbox directory the page names.
    var inbox: String
    /// The run's token (32 hex digits), which the page's script sends with every request.
    var token: String
    /// URLs offered as one-click test buttons.
    var quickTests: [String]

    package init(inbox: String, token: String, quickTests: [String]) {
        (self.inbox, self.token, self.quickTests) = (inbox, token, quickTests)
    }

    /// The page, every value HTML-escaped.
    package var html: String { Self.template.render(self) }

    private static let template: MustacheTemplate = {
        guard let path = PageResources.path("launcher.mustache"), let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            fatalError(PageResources.missing("launcher.mustache"))
        }
        do { return try ScalarHTMLEscaping.template(text) } catch { fatalError("the built-in template launcher.mustache is broken: \(error)") }
    }()
}
