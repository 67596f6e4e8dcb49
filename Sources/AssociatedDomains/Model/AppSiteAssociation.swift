import SwitchyardCore

/// An apple-app-site-association file: which apps may open which URLs of a domain, and which
/// apps share its web credentials, App Clips and Handoff.
///
/// ```swift
/// let aasa = try AppSiteAssociation(json: text)
/// aasa.decide("https://example.com/buy/42", for: "ABCDE12345.com.example.app")  // .match
/// ```
public struct AppSiteAssociation: Sendable {
    public var applinks: AppLinks?
    public var webcredentials: [String]?
    public var appclips: [String]?
    public var activitycontinuation: [String]?
}

/// The `applinks` section.
public struct AppLinks: Sendable {
    /// Legacy `apps` (must be an empty array in old files); ignored by iOS 13+.
    public var apps: [String]?
    /// The details in file order.
    public var details: [Detail]
    /// True when `details` was written in the legacy (iOS 9) form: a dictionary keyed by app
    /// ID instead of an array of objects with `appIDs`.
    public var detailsKeyedByAppID: Bool = false
    /// Domain-wide `defaults`.
    public var defaults: MatchingDefaults
    /// Domain-wide `substitutionVariables`.
    public var substitutionVariables: [String: [String]]
}

/// `caseSensitive` and `percentEncoded`, each unset, true or false.
public struct MatchingDefaults: Sendable, Equatable {
    public var caseSensitive: Bool?
    public var percentEncoded: Bool?

    public init(caseSensitive: Bool? = nil, percentEncoded: Bool? = nil) {
        self.caseSensitive = caseSensitive
        self.percentEncoded = percentEncoded
    }
}

extension AppLinks {
    /// One entry of `applinks.details`: an object of the `details` array, or one member of the
    /// legacy `details` dictionary keyed by app ID.
    public struct Detail: Sendable {
        /// Position in `details` (array index, or member position in the legacy dictionary).
        public var index: Int
        /// Where the detail is in the file, as a JSON path: `applinks.details[0]`, or
        /// `applinks.details["TEAMID.bundle.id"]` for the legacy dictionary form.
        public var location: String
        /// `appIDs`, or the legacy single `appID` (both are merged, `appIDs` first); in the legacy
        /// dictionary form, the member's key.
        public var appIDs: [String]
        /// iOS 13+ `components`; when present, `paths` is ignored.
        public var components: [Component]?
        /// Legacy `paths` (with `NOT ` exclusions).
        public var paths: [String]?
        public var defaults: MatchingDefaults
        public var substitutionVariables: [String: [String]]
        /// Compiled matchers, built once when the file is read.
        var compiled: CompiledDetail
    }

    /// One entry of `components`. An absent key matches anything.
    public struct Component: Sendable {
        public enum Query: Sendable, Equatable {
            /// A pattern for the whole query string.
            case whole(String)
            /// Named items, each with a pattern; order irrelevant.
            case items([QueryItem])
            /// A dictionary with a non-string value: iOS disregards it.
            case voided
        }

        public struct QueryItem: Sendable, Equatable {
            public var name: String
            public var pattern: String
        }

        public var index: Int
        public var path: String?
        public var query: Query?
        public var fragment: String?
        public var exclude: Bool
        public var caseSensitive: Bool?
        public var percentEncoded: Bool?
        public var comment: String?
    }
}

extension AppSiteAssociation {
    /// What iOS does with a URL for an app.
    public enum Decision: String, Sendable, Equatable {
        /// The app is offered the URL.
        case match
        /// A component with `exclude: true` (or a `NOT` path) matched: the URL is not handled.
        case exclude
        /// Nothing matched.
        case noMatch = "no_match"
    }
}
