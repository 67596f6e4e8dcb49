/// One problem found in an association file, with where it is and what to do about it.
public struct Finding: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable, Comparable {
        case error, warning
        public static func < (a: Severity, b: Severity) -> Bool { a == .error && b == .warning }
    }
    public var severity: Severity
    /// Stable machine-readable code, e.g. `placeholder-team-id`.
    public var code: String
    /// JSON path (`applinks.details[0].appIDs[1]`), or "$" for the whole file.
    public var path: String
    public var line: Int?
    public var column: Int?
    /// What is wrong and what to do, in words a person can act on.
    public var message: String

    public init(_ severity: Severity, _ code: String, at path: String, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.severity = severity
        self.code = code
        self.path = path
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String {
        let location = line.map { "line \($0), column \(column ?? 0)" } ?? path
        return "\(severity.rawValue): \(location): \(message) [\(code)]"
    }
}
