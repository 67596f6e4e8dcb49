import SwitchyardCore

/// The error thrown when a manifest cannot be used at all: it is not JSON, not an object, or
/// (with `strict`) an entry had to be skipped. Entries that are merely odd are skipped with a
/// ``Diagnostic`` instead (``Manifest/skipped``).
public struct ManifestError: SwitchyardError, Equatable {
    /// `json-syntax`, `io`, `not-an-object`, or the code of the first error diagnostic.
    public var code: ErrorCode
    public var message: String
    public var location: SourceLocation?
    /// Every error found, in document order (the first one is repeated in `message`).
    public var diagnostics: [Diagnostic]
    public var cause: (any Error)? { nil }

    public init(code: ErrorCode, message: String, location: SourceLocation? = nil, diagnostics: [Diagnostic] = []) {
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

    public static func == (a: ManifestError, b: ManifestError) -> Bool {
        a.code == b.code && a.message == b.message && a.location == b.location && a.diagnostics == b.diagnostics
    }
}
