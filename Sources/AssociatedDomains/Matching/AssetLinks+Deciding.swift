import SwitchyardCore
import Foundation

extension AssetLinks {
    /// What Android 15 does with an App Link of a site whose `assetlinks.json` this is, for one app.
    public enum Decision: String, Sendable, Equatable {
        /// A dynamic rule lets the URL open the app.
        case match
        /// An `exclude` rule matched: the URL stays in the browser.
        case exclude
        /// The app has dynamic rules and none matched: the URL stays in the browser.
        case noMatch = "no_match"
        /// The app has no usable dynamic rules (none, or discarded as malformed): its manifest's
        /// intent filters decide, as before Android 15.
        case manifest
        /// No statement grants the app `handle_all_urls` on this site: it is not verified for it.
        case notAssociated = "not_associated"
    }

    /// A decision with what decided it.
    public struct Explanation: Sendable, Equatable {
        /// The decision.
        public var decision: Decision
        /// The statement whose rules decided (its index in the file), when one did.
        public var statement: Int?
        /// The rule that matched (its index in the list), for `match` and `exclude`.
        public var rule: Int?
        /// Why, in words.
        public var reason: String
        /// True when the URL is no link at all: not an absolute URL, or an http(s) URL without a
        /// host (as ``AppSiteAssociation/Explanation/isInvalidURL``). A URL of another scheme is
        /// valid, and simply not an App Link.
        public var isInvalidURL = false
    }

    /// What Android 15 decides for `url` and the app `package`; see ``explain(_:package:domain:)``.
    public func decide(_ url: String, package: String, domain: String? = nil) -> Decision { explain(url, package: package, domain: domain).decision }

    /// What Android 15 decides for `url` and the app `package`, and why: the first statement that
    /// grants the app `handle_all_urls` and has dynamic rules is used (the file should have one
    /// such statement per app); its rules are tried in order and the first match decides. Paths,
    /// fragments and query values are compared decoded (as Android's `Uri` gives them),
    /// case-sensitively; a URL that is not an absolute http(s) URL is `not_associated`.
    ///
    /// `domain` is the host the file was served from: a URL on another host is
    /// `not_associated` (this file says nothing about it), as ``AppSiteAssociation`` answers
    /// `no_match` for it. Without one (nil), the URL's own host is taken as the domain.
    public func explain(_ url: String, package: String, domain: String? = nil) -> Explanation {
        var explanation = explainDecision(url, package: package)
        if let domain, let parts = URLParts(url), parts.scheme == "https" || parts.scheme == "http" {
            let wanted = BrowserURL.sentHost(domain.lowercased(), of: "https://\(domain)/")
            if BrowserURL.sentHost(parts.host, of: url) != wanted {
                explanation = Explanation(decision: .notAssociated, reason: "the URL's host \(parts.host) is not \(wanted.isEmpty ? "the (empty) domain" : wanted), the host the file is served from")
            }
        }
        if let scheme = URLInput.scheme(of: url) {
            explanation.isInvalidURL = (scheme == "https" || scheme == "http") && (URLParts(url)?.host ?? "").isEmpty
        } else {
            explanation.isInvalidURL = true
        }
        return explanation
    }

    private func explainDecision(_ url: String, package: String) -> Explanation {
        let granting = statements.indices.filter { statements[$0].target.packageName == package && statements[$0].relations.contains(Self.handleAllURLs) }
        guard !granting.isEmpty else {
            let granted = statements.filter { $0.relations.contains(Self.handleAllURLs) }.compactMap(\.target.packageName)
            return Explanation(decision: .notAssociated, reason: "no statement grants \(package) \(Self.handleAllURLs)" + AppSiteAssociation.listing(granted))
        }
        guard let parts = URLParts(url), parts.scheme == "https" || parts.scheme == "http" else {
            return Explanation(decision: .notAssociated, reason: "App Links are absolute http(s) URLs with a host")
        }
        guard let index = granting.first(where: { statements[$0].dynamicRules != nil }), let dynamic = statements[index].dynamicRules else {
            return Explanation(decision: .manifest, statement: granting[0], reason: "\(package) has no dynamic rules: its intent filters decide")
        }
        guard dynamic.usable else {
            return Explanation(decision: .manifest, statement: index,
                               reason: "the dynamic rules of statement \(index) are malformed, so Android discards them all: the intent filters decide")
        }
        let path = Self.decoded(parts.path, plus: false)
        let fragment = parts.fragment.map { Self.decoded($0, plus: false) } ?? ""
        let query = parts.rawQueryItems.map { (name: Self.decoded($0.name, plus: true), value: Self.decoded($0.value, plus: true)) }
        for (i, rule) in dynamic.rules.enumerated() {
            if let pattern = rule.path, !Self.glob(pattern).matches(path) { continue }
            if let pattern = rule.fragment, !Self.glob(pattern).matches(fragment) { continue }
            if !rule.query.allSatisfy({ wanted in query.contains { $0.name == wanted.name && Self.glob(wanted.value).matches($0.value) } }) { continue }
            return Explanation(decision: rule.exclude ? .exclude : .match, statement: index, rule: i,
                               reason: "rule \(i) \(JSONWriter.compact(rule.json)) matches\(rule.exclude ? " and excludes" : "")")
        }
        return Explanation(decision: .noMatch, statement: index,
                           reason: "none of the \(dynamic.rules.count) dynamic rules of statement \(index) matches, so the URL stays in the browser")
    }

    static func glob(_ pattern: String) -> Glob { Glob(pattern, substitutions: false) }

    /// The characters of every dynamic-rule pattern the file holds, added up: what a decision
    /// may try on each character of a URL.
    public var patternSize: Int {
        statements.reduce(0) { total, statement in
            total + (statement.dynamicRules?.rules ?? []).reduce(0) { sum, rule in
                sum + (rule.path?.utf8.count ?? 0) + (rule.fragment?.utf8.count ?? 0)
                    + rule.query.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count }
            }
        }
    }

    /// Why deciding `url` would take more work than ``Glob/maximumWork`` allows (the file's
    /// patterns times the URL's length), or nil when it would not.
    public func workProblem(_ url: String) -> String? {
        Glob.workProblem(size: patternSize, url: url)
    }

    /// `text` percent-decoded (and `+` as a space in query parts); as written when it does not decode.
    static func decoded(_ text: String, plus: Bool) -> String {
        let spaced = plus ? text.replacingOccurrences(of: "+", with: " ") : text
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// Answers Android decision cases given as JSON, one at a time: what
/// `switchyard assetlinks decide --jsonl` reads. A case is
/// `{"id": …, "assetlinks": [ …statements… ], "package": "com.example.app", "url": "https://…"}`
/// (`assetlinks` may also be the file's text, `domain` may name the host the file is served from); the answer is `{"id": …, "decision": D}` with D one
/// of ``AssetLinks/Decision``, or `{"id": …, "error": {"code", "message"}}`.
public struct AndroidDecisionCases: Sendable {
    private var files: [String: AssetLinks] = [:]

    /// Cases with no file read yet.
    public init() {}

    /// The answer to the case in `line` (JSON text).
    public mutating func answer(_ line: String) -> JSONValue {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch {
            return DecisionCases.failure(.null, .jsonSyntax, "the line is not JSON: \(error)")
        }
        return answer(value)
    }

    /// The answer to the case `value`.
    public mutating func answer(_ value: JSONValue) -> JSONValue {
        let (id, broken) = DecisionCases.check(value, strings: ["url", "package"], others: ["id", "assetlinks", "domain"])
        if let broken { return broken }
        let url = value["url"]?.stringValue ?? "", package = value["package"]?.stringValue ?? ""
        // Without "domain" (or with null) the URL's own host is the domain, as for iOS cases.
        let domain: String?
        switch value["domain"] {
        case nil, .null?: domain = nil
        case .string(let d)?: domain = d
        case let other?: return DecisionCases.failure(id, .wrongType, "\"domain\" must be a string when given, found \(other.typeName)")
        }
        if let problem = URLInput.problem(url) { return DecisionCases.failure(id, .invalidURL, "\"url\": \(problem)") }
        guard var document = value["assetlinks"] else {
            return DecisionCases.failure(id, .missingKey, "\"assetlinks\" is missing: the file's statements, as a list or as its text")
        }
        if case .string(let text) = document {
            do { document = try JSONParser.parse(text) } catch { return DecisionCases.failure(id, .jsonSyntax, "\"assetlinks\" text is not JSON: \(error)") }
        }
        let key = JSONWriter.compact(document)
        let links: AssetLinks
        if let known = files[key] { links = known } else {
            let (parsed, findings) = AssetLinks.read(document)
            guard let read = parsed else { return DecisionCases.failure(id, .invalidAssetLinks, findings.first?.message ?? "unreadable") }
            if files.count > 256 { files.removeAll() }
            files[key] = read
            links = read
        }
        if let problem = links.workProblem(url) { return DecisionCases.failure(id, .tooMuchWork, problem) }
        return .object([("id", id), ("decision", .string(links.decide(url, package: package, domain: domain).rawValue))])
    }
}
