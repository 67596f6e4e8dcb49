import SwitchyardCore

extension Manifest {
    /// What loading left out, as lines for stderr: how many values of the wrong type were
    /// ignored or defaulted (the first named; `manifest lint` lists them all), then each skipped
    /// entry with its location and why, and a summary. With `strict` the skipped entries are
    /// errors. `source` names the manifest. Empty when nothing was left out. Escape the lines
    /// before they reach a terminal.
    public func loadingReport(source: String, strict: Bool) -> [String] {
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
    public var failureLines: [String] {
        ["FAIL \(location)", "  input:    \(input)"] + (reason.map { ["  reason:   \($0)"] } ?? [])
            + ["  expected: \(expected ?? "null")", "  got:      \(got ?? "null")"]
    }
}

extension ManifestTestRunner.Summary {
    /// The totals as `{"summary":{"passed":N,"failed":N,"skipped":N}}`, the last line of `--json`.
    public var json: JSONValue {
        .object([("summary", .object([("passed", .int(passed)), ("failed", .int(failed)), ("skipped", .int(skipped))]))])
    }
}

extension ManifestLinter {
    /// A finding as `manifest lint --json` writes it: the path is null where the finding is about
    /// the text (a line and column) rather than an entry.
    public static func json(_ finding: Diagnostic) -> JSONValue {
        .object([
            ("severity", .string(finding.severity.rawValue)), ("code", .string(finding.code.name)),
            ("path", finding.location.path.map(JSONValue.string) ?? .null),
            ("line", finding.location.line.map(JSONValue.int) ?? .null), ("column", finding.location.column.map(JSONValue.int) ?? .null),
            ("message", .string(finding.message)),
        ])
    }

    /// The findings in words, then `FILE: 1 error, 2 warnings`. Escape the lines before they
    /// reach a terminal.
    public static func lines(_ findings: [Diagnostic], file: String) -> [String] {
        let errors = findings.filter { $0.severity == .error }.count, warnings = findings.count - errors
        return findings.map { "\($0.severity.rawValue): \($0.location): \($0.message) [\($0.code)]" }
            + ["\(file): \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"]
    }
}
