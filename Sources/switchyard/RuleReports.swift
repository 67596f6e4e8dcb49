import LinkRules
import SwitchyardCore

// How `switchyard resolve` and `switchyard manifest` put the rule engine's results into words and
// JSON lines. The engine returns values; only the command line renders them.

extension Manifest {
    /// What loading left out, as lines for stderr: how many values of the wrong type were
    /// ignored or defaulted (the first named; `manifest lint` lists them all), then each skipped
    /// entry with its location and why, and a summary. With `strict` the skipped entries are
    /// errors. `source` names the manifest. Empty when nothing was left out. Escape the lines
    /// before they reach a terminal.
    func loadingReport(source: String, strict: Bool) -> [String] {
        var lines: [String] = []
        if let first = warnings.first {
            let n = warnings.count
            lines.append("warning: \(source): \(n) value\(n == 1 ? "" : "s") ignored or defaulted (first: \(first.location): \(first.message)); `switchyard manifest lint` lists \(n == 1 ? "it" : "them all")")
        }
        guard !skipped.isEmpty else { return lines }
        let label = strict ? "error" : "warning"
        lines += skipped.map { "\(label): \(source): \($0.location): \($0.message) [\($0.code)]" }
        let n = skipped.count
        lines.append("\(label): \(source): \(n) entr\(n == 1 ? "y" : "ies") skipped; \(actions.count) actions, "
            + "\(browsers.count) browsers, \(redirects.count) redirect rules loaded" + (strict ? " (--strict refuses the manifest)" : ""))
        return lines
    }
}

extension ManifestTestRunner.Outcome {
    /// A failed test in words: where, the input, the reason, what was expected and what came.
    /// Escape the lines before they reach a terminal.
    var failureLines: [String] {
        ["FAIL \(location)", "  input:    \(input)"] + (reason.map { ["  reason:   \($0)"] } ?? [])
            + ["  expected: \(expected ?? "null")", "  got:      \(got ?? "null")"]
    }
}

extension ManifestTestRunner.Summary {
    /// The totals as `{"summary":{"passed":N,"failed":N,"skipped":N}}`, the last line of `--json`.
    var json: JSONValue {
        .object([("summary", .object([("passed", .int(passed)), ("failed", .int(failed)), ("skipped", .int(skipped))]))])
    }
}

extension ManifestLinter {
    /// A finding as `manifest lint --json` writes it: the path is null where the finding is about
    /// the text (a line and column) rather than an entry.
    static func json(_ finding: Diagnostic) -> JSONValue {
        .object([
            ("severity", .string(finding.severity.rawValue)), ("code", .string(finding.code.name)),
            ("path", finding.location.path.map(JSONValue.string) ?? .null),
            ("line", finding.location.line.map(JSONValue.int) ?? .null), ("column", finding.location.column.map(JSONValue.int) ?? .null),
            ("message", .string(finding.message)),
        ])
    }

    /// The findings in words, then `FILE: 1 error, 2 warnings`. Escape the lines before they
    /// reach a terminal.
    static func lines(_ findings: [Diagnostic], file: String) -> [String] {
        let errors = findings.filter { $0.severity == .error }.count, warnings = findings.count - errors
        return findings.map { "\($0.severity.rawValue): \($0.location): \($0.message) [\($0.code)]" }
            + ["\(file): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"]
    }
}

extension Resolution {
    /// The resolution in words, as `switchyard resolve` prints it: where the link was unwrapped
    /// to, then each app (and with `browsers`, each browser) with its URL or error; with `batch`,
    /// the input first and the rest indented. Names come from `manifest`. The lines quote
    /// manifests, scripts and servers as they are: escape them before they reach a terminal.
    func lines(manifest: Manifest, browsers showBrowsers: Bool, batch: Bool) -> [String] {
        var lines: [String] = batch ? [input] : []
        let indent = batch ? "  " : ""
        if let unwrapped {
            lines.append("\(indent)(unwrapped to \(unwrapped)\(unwrapStopped.map { "; redirects not followed to the end: \($0)" } ?? ""))")
        } else if let unwrapStopped {
            lines.append("\(indent)(redirects not followed: \(unwrapStopped))")
        }
        if actions.isEmpty { lines.append("\(indent)no app handles this link") }
        func described(_ url: String?, _ error: ScriptError?) -> String { url ?? error.map { "error: \($0)" } ?? "(no link)" }
        for a in actions { lines.append("\(indent)\(manifest.app(a.appId)?.name ?? a.appId) → \(described(a.url, a.error))") }
        for b in browsers where showBrowsers {
            let name = manifest.browsers.first { $0.index == b.browser }?.name ?? b.appId
            lines.append("\(indent)\(name) (browser) → \(described(b.url, b.error))")
        }
        return lines
    }
}

/// What `switchyard resolve` writes for each input: with `json`, one JSON line (an input that is
/// no URL gets its error object); else the resolution's lines (``Resolution/lines(manifest:browsers:batch:)``),
/// escaped for the terminal, and for an input that is no URL its reason on stderr (and, in a
/// `batch`, on stdout too, so output lines keep following input lines).
struct ResolutionOutput: Sendable {
    /// One input's answer.
    struct Answer: Sendable {
        /// For stdout.
        var lines: [String]
        /// For stderr.
        var message: String?
        /// True when the input gave no app link (the exit status is 1).
        var failed: Bool
    }

    let manifest: Manifest
    let json: Bool
    let browsers: Bool
    let batch: Bool

    init(manifest: Manifest, json: Bool, browsers: Bool, batch: Bool) {
        (self.manifest, self.json, self.browsers, self.batch) = (manifest, json, browsers, batch)
    }

    /// The answer to an input that is no URL, or a line over the limit.
    func refused(_ input: String, _ problem: (code: ErrorCode, message: String)) -> Answer {
        if json { return Answer(lines: [JSONWriter.compact(InputLines.refusal(input, problem))], failed: true) }
        let shown = InputLines.shown(input)
        return Answer(lines: batch ? [shown, "  error: \(problem.message)"] : [], message: "error: \(shown): \(problem.message)", failed: true)
    }

    /// The answer to a resolved input.
    func resolved(_ r: Resolution) -> Answer {
        let failed = !r.actions.contains { $0.url != nil }
        if json { return Answer(lines: [r.jsonLine], failed: failed) }
        return Answer(lines: r.lines(manifest: manifest, browsers: browsers, batch: batch).map(\.terminalEscaped), failed: failed)
    }
}
