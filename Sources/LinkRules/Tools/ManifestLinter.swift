import SwitchyardCore
import PatternMatching
/// Checks a manifest for mistakes an author can fix: regexes that do not compile, formats
/// naming unknown apps, `testResults` whose length differs from `testInputs`, `format` and
/// `script2` together, duplicate identifiers, scripts that do not load or define no `process`
/// (and, as warnings, scripts that do not finish on an empty input), test inputs their own action
/// does not match.
public enum ManifestLinter {
    /// Codes that are errors in lint even if loading only warns about them.
    static let errorCodes: Set<ErrorCode> = [.formatAndScript2, .testCountMismatch, .scriptWithoutProcess]

    /// All findings, errors first in document order, then warnings. Scripts are loaded and run
    /// once where `isolation` says: a manifest from someone else should be linted with worker
    /// processes, which are ended when a script overruns (a microtask loop is not stopped in process).
    public static func lint(data: [UInt8], isolation: ScriptIsolation = .inProcess) async -> [Diagnostic] {
        let manifest: Manifest
        var diagnostics: [Diagnostic]
        do {
            (manifest, diagnostics) = try ManifestLoader.load(data: data)
        } catch {
            return [Diagnostic(.error, error.code, at: error.location ?? SourceLocation(), error.message)]
        }
        diagnostics = diagnostics.map { d in
            var d = d
            if errorCodes.contains(d.code) { d.severity = .error }
            return d
        }
        // A key twice in one object: the loader reads the last; the author may have meant the first.
        if let document = try? JSONParser.parse(bytes: data) {
            for (path, key, count) in document.repeatedKeys() {
                diagnostics.append(Diagnostic(.warning, .duplicateKey, at: SourceLocation(path: path),
                                              "the key \(JSONWriter.quote(key)) appears \(count) times in one object; only the last is used"))
            }
        }
        // Load every script for real (offline, short limit): syntax errors, missing process().
        let runtime = ScriptRuntime(fetcher: OfflineFetcher(), timeLimit: 2, isolation: isolation)
        var checked: Set<String> = []
        func checkScript(_ t: Manifest.Transform, _ path: String) async {
            guard case .script(let source) = t, checked.insert(source).inserted else { return }
            guard case .failure(let e) = await runtime.run(source, input: "") else { return }
            if e.code == .scriptSyntax || e.code == .scriptWithoutProcess {
                if !diagnostics.contains(where: { $0.location.path == path && $0.code == .scriptWithoutProcess }) {
                    diagnostics.append(Diagnostic(.error, e.code, at: SourceLocation(path: path), e.message))
                }
            } else if e.code == .scriptTimeout || e.code == .scriptMemory {
                // It may finish on a real input, so a warning: but every link it is given may
                // wait out the limit.
                diagnostics.append(Diagnostic(.warning, e.code, at: SourceLocation(path: path), "run once on an empty input, the script did not finish: \(e.message)"))
            }
        }
        for a in manifest.actions {
            for f in a.formats { await checkScript(f.transform, "actions[\(a.index)].formats[\(f.index)].script2") }
            if !a.includeHeaders {
                // An input the regex does not match can only yield null; flag it when a template
                // format expects a link for it.
                let templated = a.formats.filter { if case .template = $0.transform { return true } else { return false } }
                for (i, input) in a.testInputs.enumerated() where a.pattern.regex != nil && !a.pattern.matches(input)
                    && templated.contains(where: { ($0.testResults?.count ?? 0) > i && $0.testResults?[i] != nil }) {
                    diagnostics.append(Diagnostic(.warning, .testInputUnmatched, at: SourceLocation(path: "actions[\(a.index)].testInputs[\(i)]"), "the action's regex does not match this test input"))
                }
            }
            for f in a.formats where f.transform == .legacyScript {
                diagnostics.append(Diagnostic(.warning, .legacyScript, at: SourceLocation(path: "actions[\(a.index)].formats[\(f.index)]"), "only a legacy \"script\"; it will be reported as unsupported"))
            }
        }
        for b in manifest.browsers { await checkScript(b.transform, "browsers[\(b.index)].script2") }
        // Regexes that can backtrack catastrophically (each distinct source once).
        var shapes: [String: String?] = [:]
        func checkShape(_ pattern: Pattern, _ path: String) {
            let problem = shapes[pattern.source] ?? Pattern.catastrophicShape(pattern.source)
            shapes[pattern.source] = problem
            if let problem { diagnostics.append(Diagnostic(.warning, .regexCatastrophic, at: SourceLocation(path: path), problem)) }
        }
        for a in manifest.actions { checkShape(a.pattern, "actions[\(a.index)].regex") }
        for b in manifest.browsers { checkShape(b.pattern, "browsers[\(b.index)].regex") }
        for p in manifest.previews { checkShape(p.pattern, "previews[\(p.index)].regex") }
        for (i, r) in manifest.redirects.enumerated() { checkShape(r.pattern, "redirects[\(i)]") }
        for p in manifest.previews { await checkScript(p.transform, "previews[\(p.index)].script2") }
        return diagnostics.filter { $0.severity == .error } + diagnostics.filter { $0.severity == .warning }
    }
}
