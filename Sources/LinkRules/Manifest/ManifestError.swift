/// Where a problem in a manifest is: a JSON path (`actions[12].formats[1].appId`), or a line and
/// column for syntax errors.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
    public var path: String?
    public var line: Int?
    public var column: Int?

    public init(path: String? = nil, line: Int? = nil, column: Int? = nil) {
        self.path = path
        self.line = line
        self.column = column
    }

    public var description: String {
        if let line, let column { return "line \(line), column \(column)" }
        return path ?? "manifest"
    }
}

/// A problem found while loading or linting a manifest.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }
    public var severity: Severity
    /// Stable machine-readable code, e.g. `regex-invalid`, `unknown-app`.
    public var code: String
    public var location: SourceLocation
    public var message: String

    public init(_ severity: Severity, _ code: String, at location: SourceLocation, _ message: String) {
        self.severity = severity
        self.code = code
        self.location = location
        self.message = message
    }

    public var description: String { "\(location): \(message)" }
}

/// The error thrown when a manifest cannot be used.
public struct ManifestError: Error, Sendable, CustomStringConvertible {
    /// Stable code: `json-syntax`, `io`, or the code of the first error diagnostic.
    public var code: String
    public var message: String
    public var location: SourceLocation?
    /// Every error found, in document order (the first one is repeated in `message`).
    public var diagnostics: [Diagnostic]

    public init(code: String, message: String, location: SourceLocation? = nil, diagnostics: [Diagnostic] = []) {
        self.code = code
        self.message = message
        self.location = location
        self.diagnostics = diagnostics
    }

    public var description: String {
        var text = location.map { "\($0): \(message)" } ?? message
        if diagnostics.count > 1 { text += " (and \(diagnostics.count - 1) more error\(diagnostics.count == 2 ? "" : "s"))" }
        return text
    }
}
