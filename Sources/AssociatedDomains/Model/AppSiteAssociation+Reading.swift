import Foundation
import SwitchyardCore

/// Why an association file could not be read at all.
public struct AssociationError: SwitchyardError, Equatable {
    /// Every finding; at least one is an error.
    public var findings: [Finding]

    /// An error carrying the findings of a failed read.
    public init(findings: [Finding]) { self.findings = findings }

    private var first: Finding? { findings.first(where: { $0.severity == .error }) }
    /// The first error finding's code.
    public var code: ErrorCode { first?.code ?? .invalidValue }
    /// The first error finding's message, or a generic one when there is none.
    public var message: String { first?.message ?? "invalid association file" }
    /// Where the first error finding points, if anywhere.
    public var location: SourceLocation? { first?.location }
    /// The first error finding as one line (`error: path: message [code]`), or a generic text.
    public var description: String { first.map(\.description) ?? "invalid association file" }
}

extension AppSiteAssociation {
    /// Apple's limit on the size of an apple-app-site-association file.
    public static let maximumBytes = 128 * 1024

    /// Reads a file strictly: any error finding throws.
    public init(json: String) throws(AssociationError) {
        try self.init(bytes: Array(json.utf8))
    }

    /// Reads a file's raw bytes strictly: throws when it is not
    /// JSON or has any error finding; warnings are dropped.
    public init(bytes: [UInt8]) throws(AssociationError) {
        let (value, findings) = Self.read(bytes: bytes)
        guard let value, !findings.contains(where: { $0.severity == .error }) else { throw AssociationError(findings: findings) }
        self = value
    }

    /// Reads as much as possible; never throws, never traps. Type and shape problems become findings.
    public static func read(bytes: [UInt8]) -> (AppSiteAssociation?, [Finding]) {
        var reader = Reader()
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes: bytes)
        } catch {
            var message = "invalid JSON: \(error.reason)"
            let text = String(decoding: bytes, as: UTF8.self)
            if text.contains("\u{201C}") || text.contains("\u{201D}") {
                message += " (the file uses typographic quotes “ ”; JSON needs straight quotes \")"
            }
            return (nil, [Finding(.error, .jsonSyntax, at: "$", message, line: error.line, column: error.column)])
        }
        // (App IDs repeated in a legacy details dictionary are said as duplicate-app-id.)
        for (path, key, count) in document.repeatedKeys() where !path.hasPrefix("applinks.details[\"") {
            reader.warning(.duplicateKey, path, "the key \(JSONWriter.quote(key)) appears \(count) times in one object; only the last is read (another reader may take the first)")
        }
        let value = reader.read(document)
        return (value, reader.findings)
    }

    /// Reads a value already parsed (for the JSONL `decide` input).
    public static func read(_ document: JSONValue) -> (AppSiteAssociation?, [Finding]) {
        var reader = Reader()
        let value = reader.read(document)
        return (value, reader.findings)
    }

    struct Reader {
        var findings: [Finding] = []

        mutating func error(_ code: ErrorCode, _ path: String, _ message: String) { findings.append(Finding(.error, code, at: path, message)) }
        mutating func warning(_ code: ErrorCode, _ path: String, _ message: String) { findings.append(Finding(.warning, code, at: path, message)) }

        /// A warning for each key of the object `value` that iOS does not read at `path`, with the
        /// known key it is closest to; a service section nested here is told to move up.
        mutating func unknownKeys(_ value: JSONValue, _ known: [String], _ path: String) {
            guard let members = value.objectMembers else { return }
            let services = ["applinks", "webcredentials", "appclips", "activitycontinuation"]
            for (key, _) in members where !known.contains(key) {
                let at = path.isEmpty ? key : "\(path).\(key)"
                if services.contains(key) && path != "" {
                    warning(.unknownKey, at, "\"\(key)\" is a section of its own: iOS reads it only at the top level of the file, not inside \(path)")
                } else if let suggestion = DocumentShape.suggestion(for: key, among: known) {
                    warning(.unknownKey, at, "unknown key \(JSONWriter.quote(key)), ignored by iOS — did you mean \(JSONWriter.quote(suggestion))?"
                        + (suggestion == "exclude" ? " As written the component opens what it matches." : ""))
                } else if path != "" {
                    warning(.unknownKey, at, "unknown key \(JSONWriter.quote(key)), ignored by iOS (known here: \(known.joined(separator: ", ")))")
                }
            }
        }

        mutating func strings(_ value: JSONValue?, _ path: String) -> [String]? {
            guard let value else { return nil }
            guard case .array(let items) = value else {
                error(.wrongType, path, "expected an array of strings, found \(value.typeName)")
                return nil
            }
            var out: [String] = []
            for (i, item) in items.enumerated() {
                if case .string(let s) = item { out.append(s) } else { error(.wrongType, "\(path)[\(i)]", "expected a string, found \(item.typeName)") }
            }
            return out
        }

        mutating func bool(_ value: JSONValue?, _ path: String) -> Bool? {
            guard let value else { return nil }
            if case .bool(let b) = value { return b }
            error(.wrongType, path, "expected true or false, found \(value.typeName)")
            return nil
        }

        mutating func string(_ value: JSONValue?, _ path: String) -> String? {
            guard let value else { return nil }
            if case .string(let s) = value { return s }
            error(.wrongType, path, "expected a string, found \(value.typeName)")
            return nil
        }

        /// `defaults` of the domain or a detail: the matching options, and any component key
        /// (`/`, `?`, `#`, `exclude`), which a component that lacks it takes (swcutil: a
        /// `defaults` `"/": "/foo/*"` keeps `{"#": "*"}` from matching `/bar`).
        mutating func defaults(_ value: JSONValue?, _ path: String) -> MatchingDefaults {
            guard let value else { return MatchingDefaults() }
            guard case .object = value else {
                error(.wrongType, path, "expected an object of defaults (caseSensitive, percentEncoded, or a component's \"/\", \"?\", \"#\", exclude), found \(value.typeName)")
                return MatchingDefaults()
            }
            unknownKeys(value, ["caseSensitive", "percentEncoded", "/", "?", "#", "exclude"], path)
            return MatchingDefaults(
                caseSensitive: bool(value["caseSensitive"], "\(path).caseSensitive"), percentEncoded: bool(value["percentEncoded"], "\(path).percentEncoded"),
                path: string(value["/"], "\(path)./"), query: query(value["?"], "\(path).?"), fragment: string(value["#"], "\(path).#"),
                exclude: bool(value["exclude"], "\(path).exclude"))
        }

        /// A `?` value: one pattern for the whole query, or an object of item patterns (voided
        /// when any of them is not a string, as iOS then disregards the whole object).
        mutating func query(_ value: JSONValue?, _ path: String) -> AppLinks.Component.Query? {
            switch value {
            case nil: return nil
            case .string(let s)?: return .whole(s)
            case .object(let members)?:
                var items: [AppLinks.Component.QueryItem] = []
                var voided = false
                for m in members {
                    if case .string(let s) = m.value { items.append(.init(name: m.key, pattern: s)) } else {
                        voided = true
                        error(.queryValueNotString, "\(path).\(m.key)", "query item patterns must be strings, found \(m.value.typeName); iOS then disregards the whole \"?\" dictionary")
                    }
                }
                return voided ? .voided : .items(items)
            case let other?:
                error(.wrongType, path, "expected a string or an object of item patterns, found \(other.typeName)")
                return nil
            }
        }

        mutating func variables(_ value: JSONValue?, _ path: String) -> [String: [String]] {
            guard let value else { return [:] }
            guard let members = value.objectMembers else {
                error(.wrongType, path, "expected an object of name → [values], found \(value.typeName)")
                return [:]
            }
            var out: [String: [String]] = [:]
            for m in members {
                if SubstitutionVariables.builtInNames.contains(m.key) {
                    warning(.variableShadowsBuiltin, "\(path).\(m.key)", "\"\(m.key)\" is a built-in substitution variable; define a different name")
                }
                out[m.key] = strings(m.value, "\(path).\(m.key)") ?? []
            }
            return out
        }

        mutating func apps(_ section: JSONValue?, _ path: String) -> [String]? {
            guard let section else { return nil }
            guard case .object = section else {
                error(.wrongType, path, "expected an object with \"apps\", found \(section.typeName)")
                return nil
            }
            guard let apps = section["apps"] else {
                error(.missingKey, path, "has no \"apps\" array: list the app IDs (TEAMID.bundle.id) it applies to")
                return []
            }
            return strings(apps, "\(path).apps")
        }

        mutating func read(_ document: JSONValue) -> AppSiteAssociation? {
            guard case .object = document else {
                error(.wrongType, "$", "the file must be a JSON object with \"applinks\", found \(document.typeName)"
                    + (document.arrayValue != nil ? " (an array is the assetlinks.json shape, not AASA)" : ""))
                return nil
            }
            // Other top-level keys are other services' (iOS reads each by name); only near-misses are told.
            unknownKeys(document, ["applinks", "webcredentials", "appclips", "activitycontinuation"], "")
            var aasa = AppSiteAssociation()
            aasa.webcredentials = apps(document["webcredentials"], "webcredentials")
            aasa.appclips = apps(document["appclips"], "appclips")
            aasa.activitycontinuation = apps(document["activitycontinuation"], "activitycontinuation")
            if let links = document["applinks"] {
                aasa.applinks = readAppLinks(links)
            }
            return aasa
        }

        mutating func readAppLinks(_ links: JSONValue) -> AppLinks? {
            guard case .object = links else {
                error(.wrongType, "applinks", "expected an object with \"details\", found \(links.typeName)")
                return nil
            }
            unknownKeys(links, ["apps", "details", "defaults", "substitutionVariables"], "applinks")
            let domainDefaults = defaults(links["defaults"], "applinks.defaults")
            let domainVariables = variables(links["substitutionVariables"], "applinks.substitutionVariables")
            var details: [AppLinks.Detail] = []
            var keyed = false
            switch links["details"] {
            case nil:
                error(.missingDetails, "applinks", "has no \"details\": no app is associated, so no link opens an app")
            case .array(let items)?:
                for (i, item) in items.enumerated() {
                    if let d = readDetail(item, i, "applinks.details[\(i)]", keyedBy: nil, domainDefaults, domainVariables) { details.append(d) }
                }
            case .object(let members)?:
                // The iOS 9 form: {"TEAMID.bundle.id": {"paths": [...]}, ...}. iOS still reads it,
                // each key being the app ID. iOS parses it into a dictionary, so a key written
                // twice keeps only its last value; the others keep their file order here (with
                // distinct keys the order never changes a decision, only explanations).
                keyed = true
                warning(.legacyDetailsDictionary, "applinks.details", "\"details\" is a dictionary keyed by app ID, the iOS 9 form; iOS still reads it, but write an array of {\"appIDs\": [\"TEAMID.bundle.id\"], \"components\": [...]} objects")
                var last: [String: Int] = [:]
                for (i, m) in members.enumerated() { last[m.key] = i }
                for (i, m) in members.enumerated() {
                    let location = "applinks.details[\(JSONWriter.quote(m.key))]"
                    guard last[m.key] == i else {
                        warning(.duplicateAppID, location, "the app ID \(JSONWriter.quote(m.key)) is a key again later in \"details\"; iOS keeps only the last one, so this one is ignored")
                        continue
                    }
                    if let d = readDetail(m.value, i, location, keyedBy: m.key, domainDefaults, domainVariables) { details.append(d) }
                }
            case let other?:
                error(.wrongType, "applinks.details", "expected an array of detail objects, found \(other.typeName)")
            }
            return AppLinks(apps: strings(links["apps"], "applinks.apps"), details: details, detailsKeyedByAppID: keyed, defaults: domainDefaults, substitutionVariables: domainVariables)
        }

        /// One detail at `path`: an element of the `details` array, or (with `key`) the value of
        /// the legacy dictionary member whose key is the app ID.
        mutating func readDetail(_ item: JSONValue, _ i: Int, _ path: String, keyedBy key: String?, _ domainDefaults: MatchingDefaults, _ domainVariables: [String: [String]]) -> AppLinks.Detail? {
            guard case .object = item else {
                error(.wrongType, path, "expected a detail object, found \(item.typeName)" + (key != nil ? " (in the legacy dictionary form each value is an object with \"paths\")" : ""))
                return nil
            }
            unknownKeys(item, ["appIDs", "appID", "components", "paths", "defaults", "substitutionVariables", "comment"], path)
            var appIDs: [String]
            if let key {
                appIDs = [key]
                for name in ["appIDs", "appID"] where item[name] != nil {
                    warning(.ignoredKey, "\(path).\(name)", "in the legacy \"details\" dictionary the key is the app ID; \"\(name)\" inside the value is not read")
                }
            } else {
                appIDs = strings(item["appIDs"], "\(path).appIDs") ?? []
                if let single = string(item["appID"], "\(path).appID"), !appIDs.contains(single) { appIDs.append(single) }
            }
            let detailDefaults = defaults(item["defaults"], "\(path).defaults")
            var vars = domainVariables
            for (k, v) in variables(item["substitutionVariables"], "\(path).substitutionVariables") { vars[k] = v }
            var components: [AppLinks.Component]?
            if let value = item["components"] {
                if case .array(let items) = value {
                    components = []
                    for (j, c) in items.enumerated() {
                        if let comp = readComponent(c, "\(path).components[\(j)]", j, inheriting: [detailDefaults, domainDefaults]) { components?.append(comp) }
                    }
                } else {
                    error(.wrongType, "\(path).components", "expected an array of component objects, found \(value.typeName)")
                }
            }
            let paths = strings(item["paths"], "\(path).paths")
            let chain = [detailDefaults, domainDefaults]
            let kind: CompiledDetail.Kind
            if let components {
                let compiled = components.map { CompiledComponent($0, defaults: chain, variables: vars) }
                let forms = Set(compiled.map { "\($0.percentEncoded)\($0.caseSensitive)" })
                let uniform = forms.count == 1 ? compiled.first.map { ($0.percentEncoded, $0.caseSensitive) } : nil
                kind = .components(compiled, uniform: uniform)
            } else if let paths {
                kind = .paths(paths.map { p in
                    let exclude = p.hasPrefix("NOT ")
                    let pattern = exclude ? String(p.dropFirst(4)) : p
                    return (exclude, CompiledComponent.pathAlternatives(pattern).map { Glob($0, variables: vars) })
                })
            } else {
                kind = .nothing
            }
            return AppLinks.Detail(index: i, location: path, appIDs: appIDs, components: components, paths: paths, defaults: detailDefaults, substitutionVariables: vars, compiled: CompiledDetail(kind: kind))
        }

        mutating func readComponent(_ value: JSONValue, _ path: String, _ index: Int, inheriting inherited: [MatchingDefaults]) -> AppLinks.Component? {
            guard case .object = value else {
                error(.wrongType, path, "expected a component object like {\"/\": \"/path/*\"}, found \(value.typeName)"
                    + (value.stringValue.map { " \(JSONWriter.quote($0)); write {\"/\": \(JSONWriter.quote($0))}" } ?? ""))
                return nil
            }
            unknownKeys(value, ["/", "?", "#", "exclude", "caseSensitive", "percentEncoded", "comment"], path)
            // A key the component lacks comes from the detail's defaults, then the domain's.
            return AppLinks.Component(
                index: index,
                path: string(value["/"], "\(path)./") ?? inherited.lazy.compactMap(\.path).first,
                query: query(value["?"], "\(path).?") ?? inherited.lazy.compactMap(\.query).first,
                fragment: string(value["#"], "\(path).#") ?? inherited.lazy.compactMap(\.fragment).first,
                exclude: bool(value["exclude"], "\(path).exclude") ?? inherited.lazy.compactMap(\.exclude).first ?? false,
                caseSensitive: bool(value["caseSensitive"], "\(path).caseSensitive"), percentEncoded: bool(value["percentEncoded"], "\(path).percentEncoded"),
                comment: value["comment"]?.stringValue)
        }
    }
}
