import SwitchyardCore
/// A rule set in the Opener manifest format: apps, actions that turn web URLs into app URLs,
/// browsers, link previews and redirect-unwrapping rules.
///
/// ```swift
/// let manifest = try Manifest(contentsOf: "openerManifest.json")
/// let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
/// let result = await engine.resolve("https://twitter.com/jack/status/20")
/// ```
public struct Manifest: Sendable {
    public var apps: [App]
    public var actions: [Action]
    public var browsers: [Browser]
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
        public var identifier: String
        public var name: String
        /// The App Store identifier, as a string even when the manifest has a number.
        public var storeId: String?
        /// The URL scheme without `://`.
        public var scheme: String
        public var platform: String?
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
        public var title: String
        public var regex: String
        /// The compiled `regex`.
        public var pattern: Pattern
        /// True for `headers`/`includeHeaders` actions: the input is the URL, a newline and the
        /// response headers as a JSON object.
        public var includeHeaders: Bool
        public var testInputs: [String]
        public var formats: [Format]
    }

    /// One app's way of handling an action.
    public struct Format: Sendable {
        public var index: Int
        public var appId: String
        public var transform: Transform
        /// Expected outputs for the action's `testInputs` (nil = the script returns null).
        public var testResults: [String?]?
    }

    /// A browser that can open any matching web URL.
    public struct Browser: Sendable {
        public var index: Int
        public var identifier: String
        public var name: String
        public var storeId: String?
        public var scheme: String
        public var regex: String
        public var pattern: Pattern
        public var transform: Transform
        public var testInputs: [String]
        public var testResults: [String?]?
    }

    /// A rule that finds a preview image URL for a web URL.
    public struct Preview: Sendable {
        public var index: Int
        public var regex: String
        public var pattern: Pattern
        public var transform: Transform
        public var canSave: Bool
    }

    /// A redirect-unwrapping rule.
    public struct RedirectRule: Sendable {
        public enum Output: Sendable, Equatable {
            /// The value of this query item, percent-decoded.
            case param(String)
            /// A regex template over the input.
            case template(String)
        }
        public var index: Int
        public var regex: String
        public var pattern: Pattern
        public var output: Output
        /// The rule's own tests (`tests` or `test`), input → expected output, in file order.
        public var tests: [(input: String, expected: String)]
    }
}
