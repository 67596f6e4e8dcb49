import SwitchyardJSON
import Foundation

extension Manifest {
    /// Loads a manifest from a file; throws `ManifestError` with the location of the first error.
    public init(contentsOf path: String) throws(ManifestError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ManifestError(code: "io", message: "cannot read manifest file '\(path)'")
        }
        try self.init(data: Array(data))
    }

    /// Loads a manifest from UTF-8 JSON text.
    public init(json: String) throws(ManifestError) {
        try self.init(data: Array(json.utf8))
    }

    /// Loads a manifest from UTF-8 JSON bytes. Errors (bad types, regexes that do not compile,
    /// formats naming unknown apps) make loading fail; warnings are kept in `warnings`.
    public init(data: [UInt8]) throws(ManifestError) {
        let (manifest, diagnostics) = try ManifestLoader.load(data: data)
        let errors = diagnostics.filter { $0.severity == .error }
        if let first = errors.first {
            throw ManifestError(code: first.code, message: first.message, location: first.location, diagnostics: errors)
        }
        self = manifest
    }
}

/// Reads a manifest leniently: every problem becomes a `Diagnostic` and loading goes on, so that
/// `manifest lint` can report all of them at once. Broken regexes become patterns that never match.
public enum ManifestLoader {
    /// Parses and checks `data`; throws only when the bytes are not JSON.
    public static func load(data: [UInt8]) throws(ManifestError) -> (Manifest, [Diagnostic]) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes: data)
        } catch {
            throw ManifestError(
                code: "json-syntax", message: "invalid JSON: \(error.reason)",
                location: SourceLocation(line: error.line, column: error.column))
        }
        var reader = Reader()
        let manifest = reader.read(document)
        return (manifest, reader.diagnostics)
    }

    struct Reader {
        var diagnostics: [Diagnostic] = []
        var patterns: [String: Pattern] = [:]

        mutating func error(_ code: String, _ path: String, _ message: String) {
            diagnostics.append(Diagnostic(.error, code, at: SourceLocation(path: path), message))
        }

        mutating func warning(_ code: String, _ path: String, _ message: String) {
            diagnostics.append(Diagnostic(.warning, code, at: SourceLocation(path: path), message))
        }

        /// The first present key among `names` (newer name first).
        func member(_ object: JSONValue, _ names: [String]) -> (name: String, value: JSONValue)? {
            for name in names { if let v = object[name] { return (name, v) } }
            return nil
        }

        mutating func string(_ object: JSONValue, _ names: [String], _ path: String, required: Bool) -> String? {
            guard let (name, value) = member(object, names) else {
                if required { error("missing-key", path, "missing required key \"\(names[0])\"") }
                return nil
            }
            if case .string(let s) = value { return s }
            error("wrong-type", "\(path).\(name)", "expected a string, found \(value.typeName)")
            return nil
        }

        /// `storeId` may be a number or a string.
        mutating func storeID(_ object: JSONValue, _ path: String) -> String? {
            guard let (name, value) = member(object, ["storeId", "storeIdentifier"]) else { return nil }
            switch value {
            case .string(let s): return s
            case .number(_, let text): return text
            case .null: return nil
            default:
                error("wrong-type", "\(path).\(name)", "expected a number or string, found \(value.typeName)")
                return nil
            }
        }

        mutating func compile(_ source: String, _ path: String) -> Pattern {
            if let cached = patterns[source] { return cached }
            do {
                let p = try Pattern(source)
                patterns[source] = p
                return p
            } catch {
                self.error("regex-invalid", path, "regex does not compile: \(Pattern.diagnose(source))")
                return .never(source)
            }
        }

        mutating func array(_ object: JSONValue, _ names: [String], _ path: String) -> [(String, JSONValue)] {
            guard let (name, value) = member(object, names) else { return [] }
            guard case .array(let items) = value else {
                if value != .null { error("wrong-type", "\(path).\(name)", "expected an array, found \(value.typeName)") }
                return []
            }
            return items.enumerated().map { ("\(path.isEmpty ? "" : path + ".")\(name)[\($0.offset)]", $0.element) }
        }

        mutating func stringList(_ object: JSONValue, _ names: [String], _ path: String) -> [String] {
            var out: [String] = []
            for (p, v) in array(object, names, path) {
                if case .string(let s) = v { out.append(s) } else { error("wrong-type", p, "expected a string, found \(v.typeName)") }
            }
            return out
        }

        mutating func resultList(_ object: JSONValue, _ path: String) -> [String?]? {
            guard object["testResults"] != nil else { return nil }
            var out: [String?] = []
            for (p, v) in array(object, ["testResults"], path) {
                switch v {
                case .string(let s): out.append(s)
                case .null: out.append(nil)
                default: error("wrong-type", p, "expected a string or null, found \(v.typeName)")
                }
            }
            return out
        }

        mutating func transform(_ object: JSONValue, _ path: String) -> Transform? {
            let format = string(object, ["format"], path, required: false)
            let script2 = string(object, ["script2"], path, required: false)
            if format != nil && script2 != nil {
                warning("format-and-script2", path, "has both \"format\" and \"script2\"; \"script2\" is used")
            }
            if let script2 {
                if !script2.contains("process") {
                    error("script-without-process", "\(path).script2", "script2 does not define a process(url, completionHandler) function")
                }
                return .script(script2)
            }
            if let format { return .template(format) }
            if object["script"] != nil { return .legacyScript }
            return nil
        }

        mutating func read(_ document: JSONValue) -> Manifest {
            guard case .object = document else {
                error("wrong-type", "$", "the manifest must be a JSON object, found \(document.typeName)")
                return Manifest(apps: [], actions: [], browsers: [], previews: [], redirects: [], document: document, warnings: [], appsByID: [:])
            }
            var apps: [App] = []
            var appsByID: [String: App] = [:]
            for (p, v) in array(document, ["apps"], "") {
                guard case .object = v else { error("wrong-type", p, "expected an object, found \(v.typeName)"); continue }
                let identifier = string(v, ["identifier", "appIdentifier"], p, required: true) ?? ""
                let name = string(v, ["name", "displayName"], p, required: true) ?? identifier
                var scheme = string(v, ["scheme"], p, required: false) ?? ""
                if scheme.hasSuffix("://") { scheme.removeLast(3) }
                let app = App(
                    identifier: identifier, name: name, storeId: storeID(v, p), scheme: scheme,
                    platform: string(v, ["platform"], p, required: false), country: string(v, ["country"], p, required: false))
                if appsByID[identifier] != nil {
                    error("duplicate-identifier", "\(p).identifier", "identifier \"\(identifier)\" is used by an earlier app")
                } else if !identifier.isEmpty {
                    appsByID[identifier] = app
                }
                apps.append(app)
            }

            var actions: [Action] = []
            for (i, (p, v)) in array(document, ["actions"], "").enumerated() {
                guard case .object = v else { error("wrong-type", p, "expected an object, found \(v.typeName)"); continue }
                let title = string(v, ["title"], p, required: false) ?? ""
                let regex = string(v, ["regex"], p, required: true) ?? ""
                let pattern = compile(regex, "\(p).regex")
                let headers = member(v, ["includeHeaders", "headers"])?.value.isTruthy ?? false
                let inputs = stringList(v, ["testInputs"], p)
                var formats: [Format] = []
                for (j, (fp, fv)) in array(v, ["formats"], p).enumerated() {
                    guard case .object = fv else { error("wrong-type", fp, "expected an object, found \(fv.typeName)"); continue }
                    let appId = string(fv, ["appId", "appIdentifier"], fp, required: true) ?? ""
                    if !appId.isEmpty && appsByID[appId] == nil {
                        let key = fv["appId"] != nil ? "appId" : "appIdentifier"
                        error("unknown-app", "\(fp).\(key)", "\(JSONWriter.quote(appId)) names no app")
                    }
                    guard let t = transform(fv, fp) else {
                        error("missing-key", fp, "a format needs \"format\" or \"script2\"")
                        continue
                    }
                    let results = resultList(fv, fp)
                    if let results, results.count != inputs.count {
                        error("test-count-mismatch", "\(fp).testResults", "has \(results.count) results for \(inputs.count) testInputs")
                    }
                    formats.append(Format(index: j, appId: appId, transform: t, testResults: results))
                }
                actions.append(Action(index: i, title: title, regex: regex, pattern: pattern, includeHeaders: headers, testInputs: inputs, formats: formats))
            }

            var browsers: [Browser] = []
            var browserIDs: Set<String> = []
            for (i, (p, v)) in array(document, ["browsers"], "").enumerated() {
                guard case .object = v else { error("wrong-type", p, "expected an object, found \(v.typeName)"); continue }
                let identifier = string(v, ["identifier", "appIdentifier"], p, required: true) ?? ""
                if !browserIDs.insert(identifier).inserted {
                    error("duplicate-identifier", "\(p).identifier", "identifier \"\(identifier)\" is used by an earlier browser")
                }
                let regex = string(v, ["regex"], p, required: true) ?? ""
                let pattern = compile(regex, "\(p).regex")
                var scheme = string(v, ["scheme"], p, required: false) ?? ""
                if scheme.hasSuffix("://") { scheme.removeLast(3) }
                guard let t = transform(v, p) else {
                    error("missing-key", p, "a browser needs \"format\" or \"script2\"")
                    continue
                }
                let inputs = stringList(v, ["testInputs"], p)
                let results = resultList(v, p)
                if let results, results.count != inputs.count {
                    error("test-count-mismatch", "\(p).testResults", "has \(results.count) results for \(inputs.count) testInputs")
                }
                browsers.append(Browser(
                    index: i, identifier: identifier, name: string(v, ["name", "displayName"], p, required: false) ?? identifier,
                    storeId: storeID(v, p), scheme: scheme, regex: regex, pattern: pattern, transform: t, testInputs: inputs, testResults: results))
            }

            var previews: [Preview] = []
            for (i, (p, v)) in array(document, ["previews"], "").enumerated() {
                guard case .object = v else { error("wrong-type", p, "expected an object, found \(v.typeName)"); continue }
                let regex = string(v, ["regex"], p, required: true) ?? ""
                let pattern = compile(regex, "\(p).regex")
                guard let t = transform(v, p) else {
                    error("missing-key", p, "a preview needs \"format\" or \"script2\"")
                    continue
                }
                previews.append(Preview(index: i, regex: regex, pattern: pattern, transform: t, canSave: v["canSave"]?.isTruthy ?? false))
            }

            let redirects = readRedirects(document)
            return Manifest(
                apps: apps, actions: actions, browsers: browsers, previews: previews, redirects: redirects,
                document: document, warnings: diagnostics.filter { $0.severity == .warning }, appsByID: appsByID)
        }

        /// `redirects` (v4) or `redirectRules`: an object from regex to rule, in file order; an
        /// array of rules with a `regex` key is accepted too.
        mutating func readRedirects(_ document: JSONValue) -> [RedirectRule] {
            guard let (name, value) = member(document, ["redirects", "redirectRules"]) else { return [] }
            var entries: [(path: String, regex: String, rule: JSONValue)] = []
            switch value {
            case .object(let members):
                for m in members { entries.append(("\(name)[\(JSONWriter.quote(m.key))]", m.key, m.value)) }
            case .array(let items):
                for (i, item) in items.enumerated() {
                    let p = "\(name)[\(i)]"
                    guard let regex = string(item, ["regex"], p, required: true) else { continue }
                    entries.append((p, regex, item))
                }
            case .null:
                return []
            default:
                error("wrong-type", name, "expected an object, found \(value.typeName)")
                return []
            }
            var rules: [RedirectRule] = []
            for (i, e) in entries.enumerated() {
                guard case .object = e.rule else { error("wrong-type", e.path, "expected an object, found \(e.rule.typeName)"); continue }
                let pattern = compile(e.regex, e.path)
                let output: RedirectRule.Output
                if let param = string(e.rule, ["param"], e.path, required: false) {
                    output = .param(param)
                } else if let format = string(e.rule, ["format"], e.path, required: false) {
                    output = .template(format)
                } else {
                    error("missing-key", e.path, "a redirect rule needs \"param\" or \"format\"")
                    continue
                }
                var tests: [(String, String)] = []
                if let (tname, tv) = member(e.rule, ["tests", "test"]) {
                    if let members = tv.objectMembers {
                        for m in members {
                            if case .string(let expected) = m.value { tests.append((m.key, expected)) } else {
                                error("wrong-type", "\(e.path).\(tname)[\(JSONWriter.quote(m.key))]", "expected a string, found \(m.value.typeName)")
                            }
                        }
                    } else {
                        error("wrong-type", "\(e.path).\(tname)", "expected an object, found \(tv.typeName)")
                    }
                }
                rules.append(RedirectRule(index: i, regex: e.regex, pattern: pattern, output: output, tests: tests))
            }
            return rules
        }
    }
}
