import SwitchyardCore

/// Android 15 Dynamic App Links: a statement's
/// `relation_extensions` → `delegate_permission/common.handle_all_urls` →
/// `dynamic_app_link_components`, an ordered list of rules that Android (API 35+, with Google
/// services) merges with the app's intent filters.
///
/// As Google's "configure assetlinks" guide describes them: the rules are tried in order and the
/// first that matches decides; a URL no rule matches does not open the app; `/` matches the path,
/// `#` the fragment, `?` is an object of query parameter name → value pattern (each must match,
/// in any order, other parameters allowed), `exclude: true` keeps matching URLs out of the app;
/// in patterns `*` is zero or more characters, `?` one, `?*` one or more. A malformed or empty
/// field makes Android discard every dynamic rule of the statement, and the manifest decides.
extension AssetLinks {
    /// The relation whose extension carries dynamic rules.
    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"

    /// One rule of `dynamic_app_link_components`.
    public struct DynamicRule: Sendable, Equatable {
        /// One `?` entry: a query parameter's name and the pattern its value must match.
        public struct QueryPattern: Sendable, Equatable {
            /// The parameter's name (compared exactly).
            public var name: String
            /// The pattern its (decoded) value must match.
            public var value: String
            /// A query entry: `name` must be present with a value matching `value`.
            public init(name: String, value: String) { (self.name, self.value) = (name, value) }
        }

        /// The path pattern (`/`); nil matches any path.
        public var path: String?
        /// The fragment pattern (`#`); nil matches any fragment (or none).
        public var fragment: String?
        /// The query patterns (`?`), every one required; empty matches any query.
        public var query: [QueryPattern]
        /// Whether a match keeps the URL out of the app (`exclude`).
        public var exclude: Bool

        /// A rule; with no pattern at all it matches every URL.
        public init(path: String? = nil, fragment: String? = nil, query: [QueryPattern] = [], exclude: Bool = false) {
            (self.path, self.fragment, self.query, self.exclude) = (path, fragment, query, exclude)
        }

        /// True when the rule matches every URL: no fragment or query pattern, and no path
        /// pattern or `*`.
        public var matchesEverything: Bool { (path == nil || path == "*") && fragment == nil && query.isEmpty }

        /// The rule as it is written in the file.
        public var json: JSONValue {
            var members: [(key: String, value: JSONValue)] = []
            if let path { members.append(("/", .string(path))) }
            if !query.isEmpty { members.append(("?", .object(query.map { ($0.name, .string($0.value)) }))) }
            if let fragment { members.append(("#", .string(fragment))) }
            if exclude { members.append(("exclude", .bool(true))) }
            return .object(members)
        }
    }

    /// A statement's dynamic rules as read: the rules Android would use, or none when any field
    /// is malformed (Android then discards them all and the manifest's intent filters decide).
    public struct DynamicRules: Sendable, Equatable {
        /// The rules, in file order (those that could be read, when `usable` is false).
        public var rules: [DynamicRule]
        /// False when a field is malformed or empty: Android uses none of the rules.
        public var usable: Bool

        /// Rules as read; `usable` false when Android would discard them.
        public init(rules: [DynamicRule], usable: Bool = true) { (self.rules, self.usable) = (rules, usable) }
    }

    /// The keys a rule may have.
    static let ruleKeys = ["/", "?", "#", "exclude"]
    /// Keys people write for a rule's fields, and the key Android reads instead.
    static let ruleKeyHints = ["path": "/", "paths": "/", "query": "?", "fragment": "#", "excluded": "exclude", "exclusion": "exclude"]

    /// Reads the `relation_extensions` of statement `path` (a target of `package`), adding its
    /// findings; nil when it declares no dynamic rules.
    static func dynamicRules(_ extensions: JSONValue, _ path: String, findings: inout [Finding]) -> DynamicRules? {
        let at = "\(path).relation_extensions"
        guard case .object(let members) = extensions else {
            findings.append(Finding(.error, .wrongType, at: at, "relation_extensions must be an object keyed by relation, found \(extensions.typeName)"))
            return nil
        }
        var found: DynamicRules?
        for (relation, value) in members {
            let relationPath = "\(at)[\(JSONWriter.quote(relation))]"
            guard relation == handleAllURLs else {
                let hint = relation.contains("handle_all") ? " (did you mean \(handleAllURLs)?)" : ""
                findings.append(Finding(.warning, .unknownRelation, at: relationPath, "Android reads extensions of \(handleAllURLs) only; this one is ignored\(hint)"))
                continue
            }
            guard case .object(let fields) = value else {
                findings.append(Finding(.error, .wrongType, at: relationPath, "expected an object holding dynamic_app_link_components, found \(value.typeName)"))
                continue
            }
            for (key, _) in fields where key != "dynamic_app_link_components" {
                let hint = DocumentShape.suggestion(for: key, among: ["dynamic_app_link_components"]).map { " (did you mean \($0)?)" } ?? ""
                findings.append(Finding(.warning, .ignoredKey, at: "\(relationPath).\(key)", "unknown key \(JSONWriter.quote(key)), ignored\(hint)"))
            }
            guard let list = value["dynamic_app_link_components"] else { continue }
            found = rules(list, "\(relationPath).dynamic_app_link_components", findings: &findings)
        }
        return found
    }

    /// Reads one `dynamic_app_link_components` list at `path`.
    static func rules(_ list: JSONValue, _ path: String, findings: inout [Finding]) -> DynamicRules {
        var usable = true
        var broken: [Finding] = []
        func malformed(_ at: String, _ message: String) {
            usable = false
            broken.append(Finding(.error, .malformedDynamicRule, at: at, message))
        }
        guard case .array(let items) = list else {
            malformed(path, "dynamic_app_link_components must be a list of rule objects, found \(list.typeName)")
            findings += broken + [discardNote(path)]
            return DynamicRules(rules: [], usable: false)
        }
        if items.isEmpty { malformed(path, "the list is empty") }
        var rules: [DynamicRule] = []
        for (i, item) in items.enumerated() {
            let at = "\(path)[\(i)]"
            guard case .object(let members) = item else {
                malformed(at, "a rule must be an object, found \(item.typeName)")
                continue
            }
            var rule = DynamicRule()
            for (key, value) in members {
                let keyPath = "\(at)[\(JSONWriter.quote(key))]"
                switch key {
                case "/", "#":
                    guard case .string(let pattern) = value else {
                        malformed(keyPath, "\(key == "/" ? "the path" : "the fragment") pattern must be a string, found \(value.typeName)")
                        continue
                    }
                    if pattern.isEmpty { malformed(keyPath, "the pattern is empty (use \"*\" to match anything)") }
                    if key == "/" { rule.path = pattern } else { rule.fragment = pattern }
                case "?":
                    guard case .object(let entries) = value else {
                        malformed(keyPath, "\"?\" must be an object of query parameter name → value pattern (such as {\"ref\": \"*\"}), found \(value.typeName)")
                        continue
                    }
                    if entries.isEmpty { malformed(keyPath, "the query object is empty") }
                    for (name, pattern) in entries {
                        guard case .string(let text) = pattern else {
                            malformed("\(keyPath)[\(JSONWriter.quote(name))]", "a query value pattern must be a string, found \(pattern.typeName)")
                            continue
                        }
                        if name.isEmpty { malformed(keyPath, "a query parameter name is empty") }
                        if text.isEmpty { malformed("\(keyPath)[\(JSONWriter.quote(name))]", "the value pattern is empty (use \"*\" for any value)") }
                        rule.query.append(DynamicRule.QueryPattern(name: name, value: text))
                    }
                case "exclude":
                    guard case .bool(let flag) = value else {
                        malformed(keyPath, "exclude must be true or false, found \(value.typeName)")
                        continue
                    }
                    rule.exclude = flag
                default:
                    let suggestion = ruleKeyHints[key.lowercased()] ?? DocumentShape.suggestion(for: key, among: ruleKeys)
                    let hint = suggestion.map { " — did you mean \(JSONWriter.quote($0))?" } ?? ""
                    let effect = suggestion == "exclude" ? "; as written the rule lets in what it matches" : ""
                    findings.append(Finding(.warning, .unknownRuleKey, at: keyPath,
                                            "unknown key \(JSONWriter.quote(key)), ignored by Android (a rule has \"/\", \"?\", \"#\" and \"exclude\")\(effect)\(hint)"))
                }
            }
            if members.isEmpty { findings.append(Finding(.warning, .emptyRule, at: at, "the rule has no pattern, so it matches every URL")) }
            rules.append(rule)
        }
        findings += broken
        if !usable {
            findings.append(discardNote(path))
            return DynamicRules(rules: rules, usable: false)
        }
        if !rules.isEmpty && rules.allSatisfy(\.exclude) {
            findings.append(Finding(.error, .onlyExclusions, at: path,
                                    "every rule excludes: on Android 15 and later a URL no rule matches stays in the browser, so no URL of this site opens the app; end the list with {\"/\": \"*\"} to let the rest in"))
        }
        if let catchAll = rules.firstIndex(where: \.matchesEverything), catchAll < rules.count - 1 {
            findings.append(Finding(.warning, .unreachableRule, at: "\(path)[\(catchAll + 1)]",
                                    "rule \(catchAll) matches every URL, so \(rules.count - catchAll - 1 == 1 ? "this rule is" : "this rule and the \(rules.count - catchAll - 2) after it are") never reached"))
        }
        return DynamicRules(rules: rules, usable: true)
    }

    static func discardNote(_ path: String) -> Finding {
        Finding(.warning, .dynamicRulesDiscarded, at: path,
                "with a malformed or empty field Android discards every dynamic rule of this statement, and the app's intent filters alone decide")
    }
}
