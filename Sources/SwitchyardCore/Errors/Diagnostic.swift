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
