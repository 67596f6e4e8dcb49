import SwitchyardCore
import PatternMatching
/// A rule set in the Opener manifest format: apps, actions that turn web URLs into app URLs,
/// browsers, link previews and redirect-unwrapping rules.
///
/// ```swift
/// let manifest = try Manifest(contentsOf: "openerManifest.json")
/// let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
/// let result = await engine.resolve("https://twitter.com/jack/status/20")
/// ```
public struct Manifest: Sendable {
    /// The apps rules can open, in file order, with apps that formats define inline added.
    public var apps: [App]
    /// The usable actions, in file order (skipped entries left out).
    public var actions: [Action]
    /// The usable browsers, in file order.
    public var browsers: [Browser]
    /// The usable preview rules, in file order.
    public var previews: [Preview]
    /// Redirect rules in file order; the first that matches wins.
    public var redirects: [RedirectRule]
    /// The parsed document, key order kept (used by `minify`).
    public var document: JSONValue
    /// Values that were ignored or defaulted while loading (the entries were kept).
    public var warnings: [Diagnostic]
    /// One diagnostic per entry that could not be used and was skipped, with its JSON path.
    public var skipped: [Diagnostic]

    /// The app with `identifier`, if any.
    public func app(_ identifier: String) -> App? { appsByID[identifier] }
    var appsByID: [String: App]
}

extension Manifest {
    /// An app that rules can open.
    public struct App: Sendable, Equatable {
        /// The app's unique identifier, which formats name in `appId`.
        public var identifier: String
        /// The name shown to people (the identifier when the manifest gives none).
        public var name: String
        /// The App Store identifier, as a string even when the manifest has a number.
        public var storeId: String?
        /// The URL scheme without `://`.
        public var scheme: String
        /// The manifest's `platform` value as written, if any; the engine does not use it.
        public var platform: String?
        /// The manifest's `country` value as written, if any; the engine does not use it.
        public var country: String?
    }

    /// How a format or browser turns a matching URL into an app URL.
    public enum Transform: Sendable, Equatable {
        /// A regex template such as `twitter://status?id=$1`.
        case template(String)
        /// A `script2` JavaScript `process(url, completionHandler)`.
        case script(String)
        /// Only the legacy `script` field (XMLHttpRequest based); not supported.
        case legacyScript
    }

    /// An action: a regex over the input and the formats of the apps that can open it.
    public struct Action: Sendable {
        /// Position in the manifest's `actions` array.
        public var index: Int
        /// The action's title, shown to people (empty when the manifest gives none).
        public var title: String
        /// The regex source, as written.
        public var regex: String
        /// The compiled `regex`.
        public var pattern: Pattern
        /// True for `headers`/`includeHeaders` actions: the input is the URL, a newline and the
        /// response headers as a JSON object.
        public var includeHeaders: Bool
        /// Sample inputs the manifest's tests run through the formats (empty when none).
        public var testInputs: [String]
        /// The usable formats, in file order: how each app that can open the action builds its URL.
        public var formats: [Format]
    }

    /// One app's way of handling an action.
    public struct Format: Sendable {
        /// Position in the action's `formats` array.
        public var index: Int
        /// Identifier of the app the format opens (one of `apps`).
        public var appId: String
        /// How the matching input becomes the app URL.
        public var transform: Transform
        /// Expected outputs for the action's `testInputs` (nil = the script returns null).
        public var testResults: [String?]?
    }

    /// A browser that can open any matching web URL.
    public struct Browser: Sendable {
        /// Position in the manifest's `browsers` array.
        public var index: Int
        /// The browser's unique identifier.
        public var identifier: String
        /// The name shown to people (the identifier when the manifest gives none).
        public var name: String
        /// The App Store identifier, as a string even when the manifest has a number.
        public var storeId: String?
        /// The URL scheme without `://` (empty when none is given).
        public var scheme: String
        /// The regex of web URLs the browser can open, as written.
        public var regex: String
        /// The compiled `regex`.
        public var pattern: Pattern
        /// How a matching web URL becomes the URL that opens it in the browser.
        public var transform: Transform
        /// Sample inputs for the browser's tests (empty when none).
        public var testInputs: [String]
        /// Expected outputs for `testInputs` (nil = no URL); nil when there are none or their count differs.
        public var testResults: [String?]?
    }

    /// A rule that finds a preview image URL for a web URL.
    public struct Preview: Sendable {
        /// Position in the manifest's `previews` array.
        public var index: Int
        /// The regex of web URLs the rule applies to, as written.
        public var regex: String
        /// The compiled `regex`.
        public var pattern: Pattern
        /// How a matching URL becomes the preview image URL.
        public var transform: Transform
        /// The manifest's `canSave` flag (false when absent); the engine only passes it on in `PreviewResult`.
        public var canSave: Bool
    }

    /// A redirect-unwrapping rule.
    public struct RedirectRule: Sendable {
        /// Where the unwrapped URL comes from.
        public enum Output: Sendable, Equatable {
            /// The value of this query item, percent-decoded.
            case param(String)
            /// A regex template over the input.
            case template(String)
        }
        /// Position among the table's rules, in file order.
        public var index: Int
        /// The regex the input must match, as written (the key, in an object table).
        public var regex: String
        /// The compiled `regex`.
        public var pattern: Pattern
        /// What the rule gives back: a query item's value or a template's result.
        public var output: Output
        /// The rule's own tests (`tests` or `test`), input → expected output, in file order.
        public var tests: [(input: String, expected: String)]
    }
}
