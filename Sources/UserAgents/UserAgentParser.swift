import Foundation
import PatternMatching
import SwitchyardCore
import SwitchyardDocuments

/// Browser, operating system and device from a User-Agent, by ua-parser's specification
/// (uap-core's `docs/specification.md`) over its `regexes.yaml`: each of the three lists is tried
/// in order and the first regex that matches decides, its groups filling the fields unless the
/// rule's `*_replacement` (with `$1`…`$9`) says otherwise; no match is `Other`.
///
/// The regexes are filed by the literal text each requires (`PatternIndex`), so a User-Agent is
/// tried only against the rules it can match; the answer is the one the list in order gives.
///
/// ```swift
/// let parser = try UserAgentParser(contentsOf: "/usr/share/uap-core/regexes.yaml")
/// let parsed = parser.parse("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) …")
/// parsed.os.family      // "iOS"
/// parsed.device.brand   // "Apple"
/// ```
public struct UserAgentParser: Sendable {
    /// A browser or operating system: its family and version parts, nil where the string has none.
    public struct Software: Sendable, Equatable, Encodable {
        /// The browser or system (`Chrome Mobile`, `iOS`); `Other` when no rule matched.
        public var family: String
        /// The first part of the version.
        public var major: String?
        /// The second part of the version.
        public var minor: String?
        /// The third part of the version.
        public var patch: String?
        /// The fourth part of the version (`patch_minor` in JSON).
        public var patchMinor: String?

        /// `family` with no version.
        public init(family: String, major: String? = nil, minor: String? = nil, patch: String? = nil, patchMinor: String? = nil) {
            (self.family, self.major, self.minor, self.patch, self.patchMinor) = (family, major, minor, patch, patchMinor)
        }

        enum CodingKeys: String, CodingKey { case family, major, minor, patch, patchMinor = "patch_minor" }

        /// Every field, null where there is none.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(family, forKey: .family)
            try c.encode(major, forKey: .major)
            try c.encode(minor, forKey: .minor)
            try c.encode(patch, forKey: .patch)
            try c.encode(patchMinor, forKey: .patchMinor)
        }
    }

    /// The device: its family, and its maker and model where the rule names them.
    public struct Device: Sendable, Equatable, Encodable {
        /// The device (`iPhone`, `Pixel 8`, `Spider`); `Other` when no rule matched.
        public var family: String
        /// Its maker (`Apple`, `Google`).
        public var brand: String?
        /// Its model (`iPhone`, `Pixel 8`).
        public var model: String?

        /// A device of `family`, with its maker and model when known.
        public init(family: String, brand: String? = nil, model: String? = nil) { (self.family, self.brand, self.model) = (family, brand, model) }

        /// Every field, null where there is none.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(family, forKey: .family)
            try c.encode(brand, forKey: .brand)
            try c.encode(model, forKey: .model)
        }

        enum CodingKeys: String, CodingKey { case family, brand, model }
    }

    /// What one User-Agent says.
    public struct Parsed: Sendable, Equatable, Encodable {
        /// The User-Agent as given.
        public var ua: String
        /// The browser or app (`user_agent` in JSON).
        public var userAgent: Software
        /// The operating system.
        public var os: Software
        /// The device.
        public var device: Device

        enum CodingKeys: String, CodingKey { case ua, userAgent = "user_agent", os, device }
    }

    /// One rule of a list: the regex and the replacements its entry names.
    struct Rule: Sendable {
        var replacements: [String: String]
    }

    struct RuleList: Sendable {
        var rules: [Rule]
        var index: PatternIndex

        /// The first rule matching `text`, with its groups.
        func first(_ input: PatternInput, budget: Double, linear: Bool) -> (rule: Rule, groups: [String?])? {
            index.firstMatch(input, budget: budget, linear: linear).map { (rules[$0.index], $0.groups) }
        }
    }

    let userAgents: RuleList
    let systems: RuleList
    let devices: RuleList
    /// Seconds one regex may run on one User-Agent before it counts as not matching.
    public var budget = Pattern.defaultTimeLimit

    /// Rules in all three lists.
    public var ruleCount: Int { userAgents.rules.count + systems.rules.count + devices.rules.count }

    /// Reads `regexes.yaml` at `path`; throws a ``UserAgentRulesError`` naming the file and the
    /// entry that cannot be used.
    public init(contentsOf path: String) throws(UserAgentRulesError) {
        let document: JSONValue
        do { document = try StructuredDocument.read(contentsOf: path) } catch {
            // A file that cannot be read is named in the message already.
            throw UserAgentRulesError(.invalidRules, error.message, location: error.code == .io ? nil : error.location ?? SourceLocation(file: path), cause: error)
        }
        try self.init(document, source: path)
    }

    /// Reads the rules from a parsed `regexes.yaml`.
    public init(_ document: JSONValue, source: String? = nil) throws(UserAgentRulesError) {
        func list(_ key: String, _ replacements: [String]) throws(UserAgentRulesError) -> RuleList {
            guard let entries = document[key]?.arrayValue else {
                throw UserAgentRulesError(.invalidRules, "\(key) is missing or not a list; is this uap-core's regexes.yaml?", location: SourceLocation(file: source, path: key))
            }
            var rules: [Rule] = [], patterns: [Pattern] = []
            for (i, entry) in entries.enumerated() {
                let place = SourceLocation(file: source, path: "\(key)[\(i)]")
                guard let regex = entry["regex"]?.stringValue else { throw UserAgentRulesError(.invalidRules, "an entry has no regex", location: place) }
                var named: [String: String] = [:]
                for name in replacements {
                    switch entry[name] {
                    case nil, .null?: break
                    case .string(let s)?: named[name] = s
                    case .number(_, let text)?: named[name] = text
                    case let other?: throw UserAgentRulesError(.invalidRules, "\(name) is \(other.typeName), not text", location: place)
                    }
                }
                let flag = entry["regex_flag"]?.stringValue
                guard flag == nil || flag == "i" else { throw UserAgentRulesError(.invalidRules, "regex_flag \(JSONWriter.quote(flag ?? "")) is not i", location: place) }
                // A rule file is the operator's, not a visitor's: its regexes run unwatched (a
                // watched evaluation costs more than the match) unless their shape could
                // backtrack without bound.
                let source = (flag == "i" ? "(?i)" : "") + regex
                do { patterns.append(try Pattern(source, watched: Pattern.catastrophicShape(source) != nil)) } catch {
                    throw UserAgentRulesError(.invalidRules, "the regex does not compile: \(error)", location: place)
                }
                rules.append(Rule(replacements: named))
            }
            return RuleList(rules: rules, index: PatternIndex(patterns: patterns))
        }
        userAgents = try list("user_agent_parsers", ["family_replacement", "v1_replacement", "v2_replacement", "v3_replacement", "v4_replacement"])
        systems = try list("os_parsers", ["os_replacement", "os_v1_replacement", "os_v2_replacement", "os_v3_replacement", "os_v4_replacement"])
        devices = try list("device_parsers", ["device_replacement", "brand_replacement", "model_replacement"])
    }

    /// Browser, operating system and device of `userAgent`. `linear` tries every rule in order
    /// instead of the indexed candidates (the reference, for tests and benchmarks).
    public func parse(_ userAgent: String, linear: Bool = false) -> Parsed {
        // Prepared once for the three lists.
        let input = PatternInput(userAgent)
        return Parsed(ua: userAgent, userAgent: browser(input, linear: linear), os: system(input, linear: linear), device: device(input, linear: linear))
    }

    /// The browser: `family_replacement` (its `$1` the first group) or the first group, then the
    /// version parts from `v1_replacement`… or groups 2–5.
    public func browser(_ userAgent: String, linear: Bool = false) -> Software { browser(PatternInput(userAgent), linear: linear) }

    func browser(_ input: PatternInput, linear: Bool) -> Software {
        guard let (rule, groups) = userAgents.first(input, budget: budget, linear: linear) else { return Software(family: "Other") }
        return software(rule, groups, names: ["family_replacement", "v1_replacement", "v2_replacement", "v3_replacement", "v4_replacement"])
    }

    /// The operating system, as ``browser(_:linear:)`` with the `os_*` replacements.
    public func system(_ userAgent: String, linear: Bool = false) -> Software { system(PatternInput(userAgent), linear: linear) }

    func system(_ input: PatternInput, linear: Bool) -> Software {
        guard let (rule, groups) = systems.first(input, budget: budget, linear: linear) else { return Software(family: "Other") }
        return software(rule, groups, names: ["os_replacement", "os_v1_replacement", "os_v2_replacement", "os_v3_replacement", "os_v4_replacement"])
    }

    func software(_ rule: Rule, _ groups: [String?], names: [String]) -> Software {
        // Field k is the replacement (its $1…$9 filled), else group k+1; empty is none.
        let parts = names.enumerated().map { k, name -> String? in
            if let replacement = rule.replacements[name] { return Self.filled(replacement, groups) }
            return Self.group(groups, k + 1)
        }
        return Software(family: parts[0] ?? "Other", major: parts[1], minor: parts[2], patch: parts[3], patchMinor: parts[4])
    }

    /// The device: `device_replacement` or the first group as the family, `brand_replacement`,
    /// and `model_replacement` or the first group as the model; each trimmed, empty is none.
    public func device(_ userAgent: String, linear: Bool = false) -> Device { device(PatternInput(userAgent), linear: linear) }

    func device(_ input: PatternInput, linear: Bool) -> Device {
        guard let (rule, groups) = devices.first(input, budget: budget, linear: linear) else { return Device(family: "Other") }
        let family = rule.replacements["device_replacement"].map { Self.filled($0, groups) } ?? Self.group(groups, 1)
        let brand = rule.replacements["brand_replacement"].flatMap { Self.filled($0, groups) }
        let model = rule.replacements["model_replacement"].map { Self.filled($0, groups) } ?? Self.group(groups, 1)
        return Device(family: family ?? "Other", brand: brand, model: model)
    }

    /// Group `n` trimmed, or nil when it did not take part or is empty.
    static func group(_ groups: [String?], _ n: Int) -> String? {
        guard n < groups.count, let text = groups[n] else { return nil }
        let trimmed = text.trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// `replacement` with each `$1`…`$9` replaced by that group (empty when it has none),
    /// trimmed; nil when nothing is left.
    static func filled(_ replacement: String, _ groups: [String?]) -> String? {
        var out = ""
        var scalars = replacement.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar?
        while let c = pending ?? scalars.next() {
            pending = nil
            guard c == "$" else { out.unicodeScalars.append(c); continue }
            guard let next = scalars.next() else { out.unicodeScalars.append(c); break }
            if let digit = Int(String(next)), (1...9).contains(digit) {
                out += digit < groups.count ? groups[digit] ?? "" : ""
            } else {
                out.unicodeScalars.append(c)
                pending = next
            }
        }
        let trimmed = out.trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }
}

/// A `regexes.yaml` that cannot be used: `invalid-rules`, with the file and the entry.
public typealias UserAgentRulesError = DomainError<UserAgentRulesErrors>

/// The domain of ``UserAgentRulesError``.
public enum UserAgentRulesErrors: ErrorDomain {}

extension ErrorCode {
    /// A `regexes.yaml` that is not ua-parser's rules, or an entry that cannot be used.
    public static let invalidRules = ErrorCode("invalid-rules")
}
