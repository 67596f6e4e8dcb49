import Foundation
import SwitchyardCore

/// The error thrown when a manifest cannot be used at all: it is not JSON, not an object, or
/// (with `strict`) an entry had to be skipped. Entries that are merely odd are skipped with a
/// `Diagnostic` instead (``Manifest/skipped``).
public struct ManifestError: SwitchyardError, Equatable {
    /// `json-syntax`, `io`, `not-an-object`, or the code of the first error diagnostic.
    public var code: ErrorCode
    /// What is wrong, for people (the first error, when there are several).
    public var message: String
    /// Where the (first) problem is, when known.
    public var location: SourceLocation?
    /// Every error found, in document order (the first one is repeated in `message`).
    public var diagnostics: [Diagnostic]
    /// The error underneath (the file system's, when the file cannot be read), if any.
    public var cause: (any Error)?

    /// An error with `code` and `message`, and where it is, every error found and the error
    /// underneath, when known.
    public init(code: ErrorCode, message: String, location: SourceLocation? = nil, diagnostics: [Diagnostic] = [], cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.location = location
        self.diagnostics = diagnostics
        self.cause = cause
    }

    /// The message after the location, saying how many more errors there are when there are several.
    public var description: String {
        var text = location.map { "\($0): \(message)" } ?? message
        if diagnostics.count > 1 { text += " (and \(diagnostics.count - 1) more error\(diagnostics.count == 2 ? "" : "s"))" }
        return text
    }

    /// Equal when code, message, location and diagnostics are (the cause is not compared).
    public static func == (a: ManifestError, b: ManifestError) -> Bool {
        a.code == b.code && a.message == b.message && a.location == b.location && a.diagnostics == b.diagnostics
    }
}
