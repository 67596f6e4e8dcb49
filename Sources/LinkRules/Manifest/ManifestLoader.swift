import SwitchyardCore
import Foundation
import PatternMatching

extension Manifest {
    /// Loads a manifest from a file. See `init(data:strict:)`.
    public init(contentsOf path: String, strict: Bool = false) throws(ManifestError) {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
            throw ManifestError(code: .io, message: "cannot read manifest file '\(path)': \(reason)", cause: error)
        }
        defer { try? handle.close() }
        let data: Data
        do { data = try handle.readToEnd() ?? Data() } catch {
            throw ManifestError(code: .io, message: "cannot read manifest file '\(path)'", cause: error)
        }
        do { try self.init(data: Array(data), strict: strict) } catch {
            // Where in the document, now in this file too.
            var located = error
            located.location = (error.location ?? SourceLocation()).in(file: path)
            throw located
        }
    }

    /// Loads a manifest from UTF-8 JSON text.
    public init(json: String, strict: Bool = false) throws(ManifestError) {
        try self.init(data: Array(json.utf8), strict: strict)
    }

    /// Loads a manifest from UTF-8 JSON bytes, as Opener does: an entry that cannot be used (a
    /// regex that does not compile, a format naming no app, a missing key) is skipped and listed
    /// in `skipped` with its JSON path; everything else loads. Only bytes that are not a JSON
    /// object are refused. With `strict`, any skipped entry makes loading fail instead (for
    /// manifest authors).
    public init(data: [UInt8], strict: Bool = false) throws(ManifestError) {
        let (manifest, diagnostics) = try ManifestLoader.load(data: data)
        let errors = diagnostics.filter { $0.severity == .error }
        if let first = errors.first, strict || first.code == .notAnObject {
            throw ManifestError(code: first.code, message: first.message, location: first.location, diagnostics: errors)
        }
        self = manifest
    }
}

/// Reads a manifest leniently: every problem becomes a `Diagnostic` and loading goes on, so that
/// `manifest lint` can report all of them at once. An `.error` diagnostic means exactly one entry
/// (an app, action, format, browser, preview or redirect rule) was skipped; a `.warning` means a
/// value was ignored or defaulted and the entry kept.
public enum ManifestLoader {
    /// Parses and checks `data`; throws only when the bytes are not JSON.
    public static func load(data: [UInt8]) throws(ManifestError) -> (Manifest, [Diagnostic]) {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes: data)
        } catch {
            throw ManifestError(
                code: .jsonSyntax, message: "invalid JSON: \(error.reason)",
                location: SourceLocation(line: error.line, column: error.column))
        }
        var reader = Reader()
        let manifest = reader.read(document)
        return (manifest, reader.diagnostics)
    }

    struct Reader {
        var diagnostics: [Diagnostic] = []
        var patterns: [String: Pattern] = [:]

        /// Records why the entry at `path` is skipped (one error per skipped entry).
        mutating func skip(_ code: ErrorCode, _ path: String, _ message: String) {
            diagnostics.append(Diagnostic(.error, code, at: SourceLocation(path: path), message + "; entry skipped"))
        }

        mutating func warning(_ code: ErrorCode, _ path: String, _ message: String) {
            diagnostics.append(Diagnostic(.warning, code, at: SourceLocation(path: path), message))
        }

        /// The first present key among `names` (newer name first).
        func member(_ object: JSONValue, _ names: [String]) -> (name: String, value: JSONValue)? {
            for name in names { if let v = object[name] { return (name, v) } }
            return nil
        }

        /// A required string: nil (and the entry skipped) when missing or not a string.
        mutating func required(_ object: JSONValue, _ names: [String], _ path: String) -> String? {
            guard let (name, value) = member(object, names) else {
                skip(.missingKey, path, "missing required key \"\(names[0])\"")
                return nil
            }
            if case .string(let s) = value { return s }
            skip(.wrongType, "\(path).\(name)", "expected a string, found \(value.typeName)")
            return nil
        }

        /// An optional string: null counts as absent; another type is ignored with a warning.
        mutating func optional(_ object: JSONValue, _ names: [String], _ path: String) -> String? {
            guard let (name, value) = member(object, names) else { return nil }
            switch value {
            case .string(let s): return s
            case .null: return nil
            default:
                warning(.wrongType, "\(path).\(name)", "expected a string, found \(value.typeName); ignored")
                return nil
            }
        }

        /// `storeId` may be a number or a string.
        mutating func storeID(_ object: JSONValue, _ path: String) -> String? {
            guard let (name, value) = member(object, ["storeId", "storeIdentifier"]) else { return nil }
            switch value {
            case .string(let s): return s
            case .number(_, let text): return text
            case .null: return nil
            default:
                warning(.wrongType, "\(path).\(name)", "expected a number or string, found \(value.typeName); ignored")
                return nil
            }
        }

        /// The entry's compiled regex, or nil (entry skipped) when it is missing or does not compile.
        mutating func pattern(_ object: JSONValue, _ path: String) -> (String, Pattern)? {
            guard let regex = required(object, ["regex"], path) else { return nil }
            guard let p = compile(regex, "\(path).regex") else { return nil }
            return (regex, p)
        }

        /// `regex` compiled (once per distinct source), or nil with the entry at `path` skipped:
        /// longer than `Pattern.maximumLength` (not compiled, not diagnosed: either would cost
        /// memory in proportion), or not compiling.
        mutating func compile(_ regex: String, _ path: String) -> Pattern? {
            if let cached = patterns[regex] { return cached }
            let length = regex.utf8.count
            if length > Pattern.maximumLength {
                skip(.regexTooLong, path, "the regex is \(length) bytes; the limit is \(Pattern.maximumLength)")
                return nil
            }
            do {
                let p = try Pattern(regex)
                patterns[regex] = p
                return p
            } catch {
                skip(.regexInvalid, path, "regex does not compile: \(Pattern.diagnose(regex))")
                return nil
            }
        }

        /// The items of an array member with their paths; another type is ignored with a warning.
        mutating func array(_ object: JSONValue, _ names: [String], _ path: String) -> [(String, JSONValue)] {
            guard let (name, value) = member(object, names) else { return [] }
            guard case .array(let items) = value else {
                if value != .null { warning(.wrongType, "\(path.isEmpty ? "" : path + ".")\(name)", "expected an array, found \(value.typeName); ignored") }
                return []
            }
            return items.enumerated().map { ("\(path.isEmpty ? "" : path + ".")\(name)[\($0.offset)]", $0.element) }
        }

        /// `testInputs`: when an item is not a string the entry's tests are ignored (results
        /// are matched to inputs by position), the entry is kept.
        mutating func testInputs(_ object: JSONValue, _ path: String) -> [String]? {
            var out: [String] = []
            for (p, v) in array(object, ["testInputs"], path) {
                guard case .string(let s) = v else {
                    warning(.wrongType, p, "expected a string, found \(v.typeName); the entry's tests are ignored")
                    return nil
                }
                out.append(s)
            }
            return out
        }

        mutating func resultList(_ object: JSONValue, _ path: String) -> [String?]? {
            guard let value = object["testResults"], value != .null else { return nil }
            var out: [String?] = []
            for (p, v) in array(object, ["testResults"], path) {
                switch v {
                case .string(let s): out.append(s)
                case .null: out.append(nil)
                default:
                    warning(.wrongType, p, "expected a string or null, found \(v.typeName); these tests are ignored")
                    return nil
                }
            }
            return out
        }

        /// The transform of a format, browser or preview; nil (entry skipped) when there is none.
        mutating func transform(_ object: JSONValue, _ path: String, _ kind: String) -> Manifest.Transform? {
            let format = optional(object, ["format"], path)
            let script2 = optional(object, ["script2"], path)
            if format != nil && script2 != nil {
                warning(.formatAndScript2, path, "has both \"format\" and \"script2\"; \"script2\" is used")
            }
            if let script2 {
                if !script2.contains("process") {
                    warning(.scriptWithoutProcess, "\(path).script2", "script2 does not define a process(url, completionHandler) function; it will fail when run")
                }
                return .script(script2)
            }
            if let format { return .template(format) }
            if object["script"] != nil { return .legacyScript }
            skip(.missingKey, path, "\(kind) needs \"format\" or \"script2\"")
            return nil
        }

        /// An app object (from `apps`, or defined inline by a format); nil when it is skipped.
        mutating func app(_ v: JSONValue, _ p: String) -> Manifest.App? {
            guard case .object = v else {
                skip(.wrongType, p, "expected an object, found \(v.typeName)")
                return nil
            }
            guard let identifier = required(v, ["identifier", "appIdentifier", "appId"], p) else { return nil }
            if identifier.isEmpty {
                skip(.emptyIdentifier, "\(p).identifier", "the identifier is empty")
                return nil
            }
            var name = optional(v, ["name", "displayName"], p)
            if name == nil {
                warning(.missingKey, p, "no \"name\"; the identifier \"\(identifier)\" is shown instead")
                name = identifier
            }
            var scheme = optional(v, ["scheme"], p) ?? ""
            if scheme.hasSuffix("://") { scheme.removeLast(3) }
            return Manifest.App(
                identifier: identifier, name: name!, storeId: storeID(v, p), scheme: scheme,
                platform: optional(v, ["platform"], p), country: optional(v, ["country"], p))
        }

        mutating func read(_ document: JSONValue) -> Manifest {
            guard case .object = document else {
                diagnostics.append(Diagnostic(.error, .notAnObject, at: SourceLocation(path: "$"), "the manifest must be a JSON object, found \(document.typeName)"))
                return Manifest(apps: [], actions: [], browsers: [], previews: [], redirects: [], document: document, warnings: [], skipped: [], appsByID: [:])
            }
            var apps: [Manifest.App] = []
            var appsByID: [String: Manifest.App] = [:]
            for (p, v) in array(document, ["apps"], "") {
                guard let app = app(v, p) else { continue }
                if appsByID[app.identifier] != nil {
                    skip(.duplicateIdentifier, "\(p).identifier", "identifier \"\(app.identifier)\" is used by an earlier app")
                    continue
                }
                appsByID[app.identifier] = app
                apps.append(app)
            }

            var actions: [Manifest.Action] = []
            // Apps defined inline, by id: where each was first defined.
            var inlineApps: [String: String] = [:]
            for (i, (p, v)) in array(document, ["actions"], "").enumerated() {
                guard case .object = v else { skip(.wrongType, p, "expected an object, found \(v.typeName)"); continue }
                guard let (regex, pattern) = self.pattern(v, p) else { continue }
                let title = optional(v, ["title"], p) ?? ""
                let headers = member(v, ["includeHeaders", "headers"])?.value.isTruthy ?? false
                let inputs = testInputs(v, p)
                var formats: [Manifest.Format] = []
                for (j, (fp, fv)) in array(v, ["formats"], p).enumerated() {
                    guard case .object = fv else { skip(.wrongType, fp, "expected an object, found \(fv.typeName)"); continue }
                    let appId: String
                    if let (key, inline) = member(fv, ["app", "appId", "appIdentifier"]), case .object = inline {
                        // An app defined inline where an identifier is expected.
                        guard let app = app(inline, "\(fp).\(key)") else { continue }
                        if let known = appsByID[app.identifier] {
                            if known != app {
                                let first = inlineApps[app.identifier].map { "its first inline definition (\($0))" } ?? "the one in apps"
                                warning(.inlineAppDiffers, "\(fp).\(key)", "inline app \"\(app.identifier)\" differs from \(first); that one is used")
                            }
                        } else {
                            appsByID[app.identifier] = app
                            apps.append(app)
                            inlineApps[app.identifier] = "\(fp).\(key)"
                        }
                        appId = app.identifier
                    } else {
                        guard let id = required(fv, ["appId", "appIdentifier"], fp) else { continue }
                        guard appsByID[id] != nil else {
                            let key = fv["appId"] != nil ? "appId" : "appIdentifier"
                            skip(.unknownApp, "\(fp).\(key)", "\(JSONWriter.quote(id)) names no app")
                            continue
                        }
                        appId = id
                    }
                    guard let t = transform(fv, fp, "a format") else { continue }
                    var results = inputs == nil ? nil : resultList(fv, fp)
                    if let r = results, r.count != inputs?.count ?? 0 {
                        warning(.testCountMismatch, "\(fp).testResults", "has \(r.count) results for \(inputs?.count ?? 0) testInputs; these tests are ignored")
                        results = nil
                    }
                    formats.append(Manifest.Format(index: j, appId: appId, transform: t, testResults: results))
                }
                actions.append(Manifest.Action(index: i, title: title, regex: regex, pattern: pattern, includeHeaders: headers, testInputs: inputs ?? [], formats: formats))
            }

            var browsers: [Manifest.Browser] = []
            var browserIDs: Set<String> = []
            for (i, (p, v)) in array(document, ["browsers"], "").enumerated() {
                guard case .object = v else { skip(.wrongType, p, "expected an object, found \(v.typeName)"); continue }
                guard let identifier = required(v, ["identifier", "appIdentifier"], p) else { continue }
                guard browserIDs.insert(identifier).inserted else {
                    skip(.duplicateIdentifier, "\(p).identifier", "identifier \"\(identifier)\" is used by an earlier browser")
                    continue
                }
                guard let (regex, pattern) = self.pattern(v, p), let t = transform(v, p, "a browser") else { continue }
                var scheme = optional(v, ["scheme"], p) ?? ""
                if scheme.hasSuffix("://") { scheme.removeLast(3) }
                let inputs = testInputs(v, p)
                var results = inputs == nil ? nil : resultList(v, p)
                if let r = results, r.count != inputs?.count ?? 0 {
                    warning(.testCountMismatch, "\(p).testResults", "has \(r.count) results for \(inputs?.count ?? 0) testInputs; these tests are ignored")
                    results = nil
                }
                browsers.append(Manifest.Browser(
                    index: i, identifier: identifier, name: optional(v, ["name", "displayName"], p) ?? identifier,
                    storeId: storeID(v, p), scheme: scheme, regex: regex, pattern: pattern, transform: t, testInputs: inputs ?? [], testResults: results))
            }

            var previews: [Manifest.Preview] = []
            for (i, (p, v)) in array(document, ["previews"], "").enumerated() {
                guard case .object = v else { skip(.wrongType, p, "expected an object, found \(v.typeName)"); continue }
                guard let (regex, pattern) = self.pattern(v, p), let t = transform(v, p, "a preview") else { continue }
                previews.append(Manifest.Preview(index: i, regex: regex, pattern: pattern, transform: t, canSave: v["canSave"]?.isTruthy ?? false))
            }

            let redirects = readRedirects(document)
            return Manifest(
                apps: apps, actions: actions, browsers: browsers, previews: previews, redirects: redirects,
                document: document, warnings: diagnostics.filter { $0.severity == .warning },
                skipped: diagnostics.filter { $0.severity == .error }, appsByID: appsByID)
        }

        /// `redirects` (v4) or `redirectRules`: an object from regex to rule, in file order; an
        /// array of rules with a `regex` key is accepted too.
        mutating func readRedirects(_ document: JSONValue) -> [Manifest.RedirectRule] {
            guard let (name, value) = member(document, ["redirects", "redirectRules"]) else { return [] }
            var entries: [(path: String, regex: String, rule: JSONValue)] = []
            switch value {
            case .object(let members):
                for m in members {
                    // A key (a regex) too long to load is named by its start, so its message stays one readable line.
                    let key = m.key.utf8.count > Pattern.maximumLength ? String(m.key.prefix(40)) + "…" : m.key
                    entries.append(("\(name)[\(JSONWriter.quote(key))]", m.key, m.value))
                }
            case .array(let items):
                for (i, item) in items.enumerated() {
                    let p = "\(name)[\(i)]"
                    guard case .object = item else { skip(.wrongType, p, "expected an object, found \(item.typeName)"); continue }
                    guard let regex = required(item, ["regex"], p) else { continue }
                    entries.append((p, regex, item))
                }
            case .null:
                return []
            default:
                warning(.wrongType, name, "expected an object, found \(value.typeName); no redirect rules loaded")
                return []
            }
            var rules: [Manifest.RedirectRule] = []
            for (i, e) in entries.enumerated() {
                guard case .object = e.rule else { skip(.wrongType, e.path, "expected an object, found \(e.rule.typeName)"); continue }
                guard let pattern = compile(e.regex, e.path) else { continue }
                let output: Manifest.RedirectRule.Output
                if let param = optional(e.rule, ["param"], e.path) {
                    output = .param(param)
                } else if let format = optional(e.rule, ["format"], e.path) {
                    output = .template(format)
                } else {
                    skip(.missingKey, e.path, "a redirect rule needs \"param\" or \"format\"")
                    continue
                }
                var tests: [(String, String)] = []
                if let (tname, tv) = member(e.rule, ["tests", "test"]) {
                    if let members = tv.objectMembers {
                        for m in members {
                            if case .string(let expected) = m.value { tests.append((m.key, expected)) } else {
                                warning(.wrongType, "\(e.path).\(tname)[\(JSONWriter.quote(m.key))]", "expected a string, found \(m.value.typeName); test ignored")
                            }
                        }
                    } else if tv != .null {
                        warning(.wrongType, "\(e.path).\(tname)", "expected an object, found \(tv.typeName); tests ignored")
                    }
                }
                rules.append(Manifest.RedirectRule(index: i, regex: e.regex, pattern: pattern, output: output, tests: tests))
            }
            return rules
        }
    }
}
