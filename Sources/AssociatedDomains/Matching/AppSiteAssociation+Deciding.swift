import SwitchyardCore
import LinkRouting

extension AppSiteAssociation {
    /// What iOS does with `url` for the app `appID` (TEAMID.bundle.id): the details listing the
    /// app are tried in order and the first one whose components (or legacy paths) match or
    /// exclude decides. Only https URLs with a host are universal links.
    ///
    /// `domain` is the domain the file was served for: the URL's host must be that domain
    /// (compared without case). Without one (nil), the URL's own host is taken as the domain,
    /// so only the URL's path, query and fragment decide. An empty domain names no host, so
    /// nothing matches it.
    public func decide(_ url: String, for appID: String, domain: String? = nil) -> Decision {
        explain(url, for: appID, domain: domain, steps: false).decision
    }

    /// True when a pattern of the file expands past ``Glob/maximumSize``: it is not compiled
    /// and matches nothing, so a decision may rest on it (``explain(_:for:domain:)`` says where).
    public var hasPatternTooLarge: Bool {
        applinks?.details.contains { $0.compiled.hasTooLargePattern } ?? false
    }

    /// The sizes of every pattern the file's details hold, added up (``Glob/size``): what a
    /// decision may try on each character of a URL.
    public var patternSize: Int {
        applinks?.details.reduce(0) { $0 + $1.compiled.size } ?? 0
    }

    /// Why deciding `url` would take more work than ``Glob/maximumWork`` allows (the file's
    /// patterns times the URL's length), or nil when it would not. A decision is bounded by
    /// this, whatever the file and the URL: ask before deciding text from strangers.
    public func workProblem(_ url: String) -> String? {
        Glob.workProblem(size: patternSize, url: url)
    }

    /// A decision with the reasons: which detail and entry decided, and for every entry tried
    /// before it which key failed.
    public func explain(_ url: String, for appID: String, domain: String? = nil) -> Explanation {
        explain(url, for: appID, domain: domain, steps: true)
    }

    func explain(_ url: String, for appID: String, domain: String?, steps wantSteps: Bool) -> Explanation {
        var explanation = Explanation(decision: .noMatch)
        guard let parts = URLParts(url) else {
            // "plur:/x" and "mailto:a@b" are absolute URLs of another scheme, not malformed ones.
            switch URLInput.scheme(of: url) {
            case nil:
                explanation.note = "not an absolute URL"
                explanation.isInvalidURL = true
            case "https":
                explanation.note = "the URL has no host, so it cannot be a universal link"
                explanation.isInvalidURL = true
            default:
                explanation.note = "only https URLs can be universal links"
            }
            return explanation
        }
        guard parts.scheme == "https" else {
            explanation.note = "only https URLs can be universal links"
            return explanation
        }
        if let domain {
            // Both as browsers send them: a Unicode host is its punycode.
            let wanted = BrowserURL.sentHost(domain.lowercased(), of: "https://\(domain)/")
            if wanted.isEmpty {
                explanation.note = "the domain is empty: it names no host, so no URL is on it"
                return explanation
            }
            if BrowserURL.sentHost(parts.host, of: url) != wanted {
                explanation.note = "the URL's host \(parts.host) is not \(wanted)"
                return explanation
            }
        }
        guard let applinks else {
            explanation.note = "the file has no applinks section"
            return explanation
        }
        var subject = Subject(parts)
        var listed = false
        for detail in applinks.details where detail.appIDs.contains(appID) {
            listed = true
            let (decision, steps) = detail.compiled.decide(&subject, explain: wantSteps)
            if wantSteps {
                let legacy = detail.components == nil && detail.paths != nil
                explanation.steps += steps.map { Explanation.Step(detail: detail.index, entry: $0.entry, legacyPath: legacy, failed: $0.failed, patternTooLarge: $0.tooLarge) }
            }
            if decision != .noMatch {
                explanation.decision = decision
                explanation.decidedBy = (detail.index, steps.last?.entry ?? 0)
                return explanation
            }
        }
        if !listed { explanation.note = "no detail lists the app ID \(appID)" + Self.listing(applinks.details.flatMap(\.appIDs)) }
        return explanation
    }
}

extension AppSiteAssociation {
    /// " (the file lists A, B)" for the apps a file names, so a mistyped one is seen; empty
    /// when it names none. At most five, then how many more.
    static func listing(_ apps: [String]) -> String {
        var unique: [String] = []
        for app in apps where !unique.contains(app) { unique.append(app) }
        guard !unique.isEmpty else { return "" }
        let shown = unique.prefix(5).joined(separator: ", ")
        return " (the file lists \(shown)\(unique.count > 5 ? " and \(unique.count - 5) more" : ""))"
    }
}

extension AppSiteAssociation {
    /// Why a URL was (or was not) handed to an app.
    public struct Explanation: Sendable {
        /// One component (or legacy path) that was tried, in the order iOS tries them.
        public struct Step: Sendable, Equatable {
            /// The `Detail.index` of the detail the entry belongs to.
            public var detail: Int
            /// Index into the detail's `components` (or legacy `paths`).
            public var entry: Int
            /// True when the entry is a legacy `paths` pattern rather than a component.
            public var legacyPath: Bool
            /// The first key that did not match; nil when the entry matched.
            public var failed: FailedKey?
            /// True when that key's pattern expands past ``Glob/maximumSize`` and was not
            /// compiled: it matches nothing, so the URL was not really compared with it.
            public var patternTooLarge = false
        }
        /// What iOS does with the URL.
        public var decision: Decision
        /// (detail index, component/path index) of the entry that decided.
        public var decidedBy: (detail: Int, entry: Int)?
        /// Every entry tried, in order, across the details
        /// listing the app; the last one decided, when one did.
        public var steps: [Step] = []
        /// Why nothing could match at all, when that is the case.
        public var note: String?
        /// True when the text is no URL iOS could offer any app: not absolute (no scheme), or
        /// an https URL without a host. A URL of another scheme is valid, and simply not a
        /// universal link.
        public var isInvalidURL = false

        init(decision: Decision) { self.decision = decision }
    }
}
