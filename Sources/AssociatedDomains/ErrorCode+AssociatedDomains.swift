import SwitchyardCore

/// The error and finding codes AssociatedDomains uses. Compare with these constants, never with string literals.
extension ErrorCode {
    /// A decision case's `aasa` is a string that is not JSON text.
    public static let aasaJSONSyntax = ErrorCode("aasa-json-syntax")
    /// Deciding a URL against a file would take more work than one decision may: the file's
    /// patterns times the URL's length is over ``Glob/maximumWork``.
    public static let tooMuchWork = ErrorCode("too-much-work")
    /// A decision case's `aasa` cannot be read as an AASA file at all.
    public static let invalidAASA = ErrorCode("invalid-aasa")
    /// The AASA's `applinks` details list no app ID matching this app's
    /// team and bundle ID, so iOS gives the app none of the domain's links.
    public static let appNotInAasa = ErrorCode("app-not-in-aasa")
    /// The team ID is not known (no entitlements): only the bundle ID was compared with the AASA.
    public static let teamIDUnknown = ErrorCode("team-id-unknown")
    /// The app claims `webcredentials:` but the AASA's `webcredentials.apps` does
    /// not list it, so iOS will not pair the app with the site's saved passwords.
    public static let appNotInWebcredentials = ErrorCode("app-not-in-webcredentials")
    /// An assetlinks.json fingerprint is the shared Android debug keystore's;
    /// release builds are signed with another key, so their links will not verify.
    public static let debugFingerprint = ErrorCode("debug-fingerprint")
    /// An associated-domains entry uses `?mode=developer`, which skips
    /// Apple's CDN and only works on devices with developer mode turned on.
    public static let developerMode = ErrorCode("developer-mode")
    /// The legacy `details` dictionary has the same app ID
    /// as a key more than once; iOS keeps only the last one.
    public static let duplicateAppID = ErrorCode("duplicate-app-id")
    /// An assetlinks.json holds no statements, so it links no app.
    public static let empty = ErrorCode("empty")
    /// An assetlinks.json fingerprint is not written as 32 upper-case hex bytes separated by colons.
    public static let fingerprintFormat = ErrorCode("fingerprint-format")
    /// An `appID` or `appIDs` key inside an entry of the legacy `details`
    /// dictionary: iOS never reads it, the dictionary key is the app ID.
    public static let ignoredKey = ErrorCode("ignored-key")
    /// An associated-domains entitlement entry without a known service prefix
    /// (`applinks:`, `webcredentials:` …) or whose rest is not a bare host name.
    public static let invalidAssociatedDomain = ErrorCode("invalid-associated-domain")
    /// An associated-domains entry's `?mode=` is not `developer`, `managed` or `developer+managed`.
    public static let invalidMode = ErrorCode("invalid-mode")
    /// An assetlinks.json `package_name` that is not a valid Android package name.
    public static let invalidPackageName = ErrorCode("invalid-package-name")
    /// A scheme in `CFBundleURLTypes` or `LSApplicationQueriesSchemes`
    /// that does not follow RFC 3986 scheme syntax.
    public static let invalidScheme = ErrorCode("invalid-scheme")
    /// A `web` target in assetlinks.json whose `site` does not start with `https://` or `http://`.
    public static let invalidSite = ErrorCode("invalid-site")
    /// `applinks.apps` lists app IDs; it must be an empty
    /// array or left out, and the app IDs belong in `details`.
    public static let legacyAppsKey = ErrorCode("legacy-apps-key")
    /// `applinks.details` is the iOS 9 dictionary keyed by app ID; iOS
    /// still reads it, but the array of detail objects is the current form.
    public static let legacyDetailsDictionary = ErrorCode("legacy-details-dictionary")
    /// An app ID that is not `TEAMID.bundle.id` with a team ID of 10 upper-case letters or digits.
    public static let malformedAppID = ErrorCode("malformed-app-id")
    /// The bundle ID part of an app ID has characters other
    /// than letters, digits, `-` and `.`, or an empty segment.
    public static let malformedBundleID = ErrorCode("malformed-bundle-id")
    /// The AASA has no `applinks` section, so no URL of the domain
    /// opens an app (an error when it has no section at all).
    public static let missingApplinks = ErrorCode("missing-applinks")
    /// `applinks` has no `details`, so no app is associated with the domain's links.
    public static let missingDetails = ErrorCode("missing-details")
    /// An `android_app` target in assetlinks.json lists no SHA-256 signing-certificate fingerprint.
    public static let missingFingerprints = ErrorCode("missing-fingerprints")
    /// An `applinks` detail whose `appIDs` is empty or missing, so no app can claim its links.
    public static let noAppIDs = ErrorCode("no-app-ids")
    /// The entitlements have no `com.apple.developer.associated-domains`
    /// entry, so iOS never downloads the domain's AASA.
    public static let noAssociatedDomains = ErrorCode("no-associated-domains")
    /// A route table has no hosts, so there are no universal links to compare with the AASA.
    public static let noHosts = ErrorCode("no-hosts")
    /// An `applinks` detail has neither `components` nor `paths`, so it matches no URL.
    public static let noPatterns = ErrorCode("no-patterns")
    /// An app ID's team ID is all digits, which suggests an App Store ID was used instead of the team ID.
    public static let numericTeamID = ErrorCode("numeric-team-id")
    /// A detail has both `paths` and `components`: iOS 13 and
    /// later read only `components`, older versions only `paths`.
    public static let pathsAndComponents = ErrorCode("paths-and-components")
    /// An app ID still contains a template placeholder such as `TEAMID` or `$(…)`.
    public static let placeholderAppID = ErrorCode("placeholder-app-id")
    /// An assetlinks.json fingerprint is placeholder text rather than a real certificate hash.
    public static let placeholderFingerprint = ErrorCode("placeholder-fingerprint")
    /// A file given as the Info.plist or the entitlements is not a valid XML or binary property list.
    public static let plistSyntax = ErrorCode("plist-syntax")
    /// A query item pattern `""`, which matches only when the item is absent or empty.
    public static let queryEmptyPattern = ErrorCode("query-empty-pattern")
    /// A query item pattern `"?"`, which matches exactly one character rather than any value.
    public static let querySingleCharacter = ErrorCode("query-single-character")
    /// A component's `?` dictionary has a value that is not a string; iOS then ignores the whole dictionary.
    public static let queryValueNotString = ErrorCode("query-value-not-string")
    /// The app registers a URL scheme the system owns (`http`,
    /// `tel`, `maps` …), which iOS will not route to it.
    public static let reservedScheme = ErrorCode("reserved-scheme")
    /// A universal route whose sample URL the AASA does not hand to the app.
    public static let routeNotCovered = ErrorCode("route-not-covered")
    /// `LSApplicationQueriesSchemes` has more than 50 entries; `canOpenURL` only honours the first 50.
    public static let tooManyQuerySchemes = ErrorCode("too-many-query-schemes")
    /// `CFBundleIdentifier` is still a build setting (`$(…)`), so it cannot be compared with the AASA.
    public static let unexpandedBundleID = ErrorCode("unexpanded-bundle-id")
    /// An assetlinks.json target whose `namespace` is neither `android_app` nor `web`.
    public static let unknownNamespace = ErrorCode("unknown-namespace")
    /// An assetlinks.json relation that is not one of those Google documents for Digital Asset Links.
    public static let unknownRelation = ErrorCode("unknown-relation")
    /// A pattern uses a `$(name)` that is neither built in nor defined
    /// in `substitutionVariables`, so it only matches that literal text.
    public static let unknownVariable = ErrorCode("unknown-variable")
    /// A pattern whose substitution variables expand to more than `Glob.maximumSize`
    /// characters and wildcards: it is not compiled and matches nothing here.
    public static let patternTooLarge = ErrorCode("pattern-too-large")
    /// A component that can never apply because an earlier one matches every URL.
    public static let unreachableComponent = ErrorCode("unreachable-component")
    /// A URL the AASA hands to the app that no route of the route table handles.
    public static let urlWithoutRoute = ErrorCode("url-without-route")
    /// A path pattern with characters URLs carry percent-encoded (non-ASCII, spaces), compared
    /// as written (`percentEncoded` true): it never matches them.
    public static let unencodedPattern = ErrorCode("unencoded-pattern")
    /// A pattern the AASA hands to the app that is wider than its route: a typed parameter
    /// (`{id:int}`) refuses some of the URLs the pattern's `*` takes.
    public static let patternWiderThanRoute = ErrorCode("pattern-wider-than-route")
    /// A legacy `NOT` path with no including path after it, so it excludes nothing.
    public static let uselessNot = ErrorCode("useless-not")
    /// `substitutionVariables` defines a name that is already a built-in variable (`alpha`, `digit` …).
    public static let variableShadowsBuiltin = ErrorCode("variable-shadows-builtin")
    /// An app ID that looks like a bare bundle ID, without the team ID in front.
    public static let missingTeamID = ErrorCode("missing-team-id")
    /// A legacy `NOT` path that can never apply because an earlier path matches every path.
    public static let unreachableNot = ErrorCode("unreachable-not")
    /// A legacy path that can never apply because an earlier path matches every path.
    public static let unreachablePath = ErrorCode("unreachable-path")
    /// A dynamic App Links rule (Android 15) with a malformed or empty field: Android discards
    /// every dynamic rule of the statement.
    public static let malformedDynamicRule = ErrorCode("malformed-dynamic-rule")
    /// A dynamic rule key Android does not read (`exlude`, `path`), with the key meant.
    public static let unknownRuleKey = ErrorCode("unknown-rule-key")
    /// A dynamic rule with no pattern: it matches every URL.
    public static let emptyRule = ErrorCode("empty-rule")
    /// Dynamic rules that only exclude: on Android 15+ no URL of the site opens the app.
    public static let onlyExclusions = ErrorCode("only-exclusions")
    /// A dynamic rule after one that matches every URL: never reached.
    public static let unreachableRule = ErrorCode("unreachable-rule")
    /// Android discards all of a statement's dynamic rules (one is malformed); the manifest decides.
    public static let dynamicRulesDiscarded = ErrorCode("dynamic-rules-discarded")
    /// Dynamic rules declared more than once for one site, relation and app.
    public static let duplicateDynamicRules = ErrorCode("duplicate-dynamic-rules")
    /// A key the file's reader does not know, ignored (with the key meant, when one is close).
    public static let unknownKey = ErrorCode("unknown-key")
    /// A decision case's `assetlinks` cannot be read as an assetlinks.json file at all.
    public static let invalidAssetLinks = ErrorCode("invalid-assetlinks")
    /// Where iOS and Android 15 may decide a generated entry differently.
    public static let platformDifference = ErrorCode("platform-difference")
}
