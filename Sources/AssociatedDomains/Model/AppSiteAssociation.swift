import SwitchyardCore

/// An apple-app-site-association file: which apps may open which URLs of a domain, and which
/// apps share its web credentials, App Clips and Handoff.
///
/// ```swift
/// let aasa = try AppSiteAssociation(json: text)
/// aasa.decide("https://example.com/buy/42", for: "ABCDE12345.com.example.app")  // .match
/// ```
public struct AppSiteAssociation: Sendable {
    /// The `applinks` section: which URLs of the domain iOS opens in which apps; nil when the file has none.
    public var applinks: AppLinks?
    /// `webcredentials.apps`: app IDs iOS lets use the site's saved
    /// passwords (Password AutoFill); nil when the section is absent.
    public var webcredentials: [String]?
    /// `appclips.apps`: App Clip app IDs iOS may launch for
    /// the domain's URLs; nil when the section is absent.
    public var appclips: [String]?
    /// `activitycontinuation.apps`: app IDs that may continue (Handoff)
    /// activities from the domain's web pages; nil when absent.
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
    /// Whether patterns compare letters case-sensitively; nil
    /// inherits from the next level out, and iOS's default is true.
    public var caseSensitive: Bool?
    /// Whether patterns compare the URL as written (percent-encoded)
    /// rather than decoded; nil inherits, and iOS's default is true.
    public var percentEncoded: Bool?
    /// The `/` pattern of every component that has none; nil inherits.
    public var path: String?
    /// The `?` of every component that has none; nil inherits.
    public var query: AppLinks.Component.Query?
    /// The `#` pattern of every component that has none; nil inherits.
    public var fragment: String?
    /// The `exclude` of every component that does not say; nil inherits (false at the end).
    public var exclude: Bool?

    /// Defaults with the given settings; a setting left nil is inherited.
    public init(caseSensitive: Bool? = nil, percentEncoded: Bool? = nil, path: String? = nil,
                query: AppLinks.Component.Query? = nil, fragment: String? = nil, exclude: Bool? = nil) {
        self.caseSensitive = caseSensitive
        self.percentEncoded = percentEncoded
        self.path = path
        self.query = query
        self.fragment = fragment
        self.exclude = exclude
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
        /// The detail's own `defaults`; a component's own keys
        /// override them, and they override the domain-wide ones.
        public var defaults: MatchingDefaults
        /// The substitution variables in effect for the detail:
        /// the domain-wide ones, overridden by the detail's own.
        public var substitutionVariables: [String: [String]]
        /// Compiled matchers, built once when the file is read.
        var compiled: CompiledDetail
    }

    /// One entry of `components`. An absent key matches anything.
    public struct Component: Sendable {
        /// The `?` key of a component: one pattern for the whole query, or a pattern per item.
        public enum Query: Sendable, Equatable {
            /// A pattern for the whole query string.
            case whole(String)
            /// Named items, each with a pattern; order irrelevant.
            case items([QueryItem])
            /// A dictionary with a non-string value: iOS disregards it.
            case voided
        }

        /// One entry of a component's `?` dictionary: a query
        /// item's name and the pattern its value must match.
        public struct QueryItem: Sendable, Equatable {
            /// The name of the query item to look for in the URL.
            public var name: String
            /// The pattern (`*`, `?`, `$(name)`) the item's value must
            /// match; a missing item is compared as an empty value.
            public var pattern: String
        }

        /// Position of the component in its detail's `components` array.
        public var index: Int
        /// The `/` key: a pattern for the URL's path; nil matches any path.
        public var path: String?
        /// The `?` key; nil matches any query.
        public var query: Query?
        /// The `#` key: a pattern for the fragment; nil matches any fragment.
        public var fragment: String?
        /// The `exclude` key: when true and the component matches,
        /// iOS does not open the URL in the app (false when absent).
        public var exclude: Bool
        /// The component's own `caseSensitive`; nil takes the
        /// detail's, then the domain's defaults (true if none is set).
        public var caseSensitive: Bool?
        /// The component's own `percentEncoded`; nil takes the
        /// detail's, then the domain's defaults (true if none is set).
        public var percentEncoded: Bool?
        /// The `comment` key, a note for people; iOS ignores it.
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
