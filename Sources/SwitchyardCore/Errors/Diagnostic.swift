/// One problem found in a document — a manifest entry, an association file, a configuration —
/// with how bad it is, a stable code, where it is and what to do about it. Loaders that go on
/// after a problem (lenient reading, linting, validation) collect these; an error that stops
/// them carries them in its own ``SwitchyardError/location`` and message.
///
/// ```swift
/// for finding in findings where finding.severity == .error {
///     print(finding)   // "error: applinks.details[0].appIDs[1]: "ABCDE12345.com.example" … [placeholder-app-id]"
/// }
/// ```
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How bad it is: an `error` makes the document unusable (or the entry skipped), a
    /// `warning` is worth fixing but changes nothing.
    public enum Severity: String, Sendable, Comparable {
        case error, warning

        /// Errors sort before warnings.
        public static func < (a: Severity, b: Severity) -> Bool { a == .error && b == .warning }
    }

    /// Whether the problem makes the document or entry unusable (`error`) or is only worth fixing (`warning`).
    public var severity: Severity
    /// Stable machine-readable code: `placeholder-team-id`, `regex-invalid`.
    public var code: ErrorCode
    /// Where: a JSON path (`actions[12].formats[1].appId`), or a line and column.
    public var location: SourceLocation
    /// What is wrong and what to do, in words a person can act on.
    public var message: String

    /// A finding of `severity` and `code` at `location`, with a message a person can act on.
    public init(_ severity: Severity, _ code: ErrorCode, at location: SourceLocation, _ message: String) {
        self.severity = severity
        self.code = code
        self.location = location
        self.message = message
    }

    /// A finding at a JSON path (`"$"` for the whole document), with a line and column when
    /// the problem is in the text itself.
    public init(_ severity: Severity, _ code: ErrorCode, at path: String, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.init(severity, code, at: SourceLocation(line: line, column: column, path: path), message)
    }

    /// The JSON path, `"$"` for the whole document.
    public var path: String { location.path ?? "$" }
    /// The 1-based line of the problem in the text, when known.
    public var line: Int? { location.line }
    /// The 1-based column of the problem in the text, when known.
    public var column: Int? { location.column }

    /// `error: applinks.details[0]: message [code]`; a line and column stand for the path when known.
    public var description: String {
        let place = line.map { "line \($0), column \(column ?? 0)" } ?? path
        return "\(severity.rawValue): \(place): \(message) [\(code)]"
    }
}

extension Diagnostic {
    /// The finding as one JSON object: severity, code, path, line, column (null when unknown) and message.
    public var json: JSONValue {
        .object([
            ("severity", .string(severity.rawValue)), ("code", .string(code.name)), ("path", .string(path)),
            ("line", line.map(JSONValue.int) ?? .null), ("column", column.map(JSONValue.int) ?? .null), ("message", .string(message)),
        ])
    }

    /// The finding after the file it is about: `error: FILE: line 3, column 7: message [code]`.
    public func described(in file: String) -> String {
        "\(severity.rawValue): \(file): \(line.map { "line \($0), column \(column ?? 0)" } ?? path): \(message) [\(code)]"
    }

    /// Findings about `subject` as one JSON object: whether it is valid (no errors), the counts
    /// and every finding.
    public static func report(_ findings: [Diagnostic], subject: String) -> JSONValue {
        let errors = findings.filter { $0.severity == .error }.count
        return .object([
            ("file", .string(subject)), ("valid", .bool(errors == 0)), ("errors", .int(errors)), ("warnings", .int(findings.count - errors)),
            ("findings", .array(findings.map(\.json))),
        ])
    }

    /// Findings about `subject` in words: each finding, then `SUBJECT: valid, 0 errors, 1 warning`.
    /// Findings quote what a file or a server holds: escape the lines before they reach a terminal.
    public static func reportLines(_ findings: [Diagnostic], subject: String) -> [String] {
        let errors = findings.filter { $0.severity == .error }.count, warnings = findings.count - errors
        return findings.map(\.description) + ["\(subject): \(errors == 0 ? "valid" : "invalid"), \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"]
    }
}
