import Foundation

/// The one shape of every error Switchyard's modules throw: a stable ``ErrorCode`` to switch on,
/// a human ``message``, where the problem is (``location``: a file, a line and column, a JSON or
/// YAML key path) and what caused it (``cause``: the underlying error, when there was one).
///
/// Each module has its own error type (`ManifestError`, `StoreError`, `RelayError`, …) so that
/// functions can declare what they throw, and every one of them has this shape:
///
/// ```swift
/// do {
///     let manifest = try Manifest(contentsOf: "manifest.json")   // throws(ManifestError)
///     print(manifest.actions.count)
/// } catch {
///     // `error` is a ManifestError: its code, message and location are at hand.
///     if error.code == .jsonSyntax, let place = error.location { print("syntax error at \(place)") }
///     print(error)   // "manifest.json: line 12, column 7: invalid JSON: …"
/// }
/// ```
///
/// It is a `LocalizedError` too: `error.localizedDescription` (what SwiftUI's alerts and most
/// app code show) is ``description``, not Foundation's generic text.
///
/// Codes are compared with their constants (`.scriptTimeout`, `.notFound`), never with string
/// literals; a new code never breaks a caller, because ``ErrorCode`` is a struct, not an enum.
public protocol SwitchyardError: LocalizedError, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases: switch on it.
    var code: ErrorCode { get }
    /// What went wrong and why, for people.
    var message: String { get }
    /// Where the problem is, when it is in a document or file.
    var location: SourceLocation? { get }
    /// The error underneath (a database driver's, the file system's, the network's), if any.
    var cause: (any Error)? { get }
}

extension SwitchyardError {
    /// No location, unless the error type has one.
    public var location: SourceLocation? { nil }
    /// No underlying error, unless the error type has one.
    public var cause: (any Error)? { nil }

    /// The message, after the location when there is one: `manifest.json:12:7: expected ','`.
    public var description: String {
        guard let location, !location.isEmpty else { return message }
        return "\(location): \(message)"
    }

    /// The ``description``: what `localizedDescription` shows.
    public var errorDescription: String? { description }

    /// The chain of causes, this error first: for logs that want every layer.
    public var causes: [any Error] {
        var chain: [any Error] = [self]
        var next = cause
        while let error = next, chain.count < 16 {
            chain.append(error)
            next = (error as? any SwitchyardError)?.cause
        }
        return chain
    }
}

extension Error {
    /// True when this error is a task's cancellation, or reports one as its cause (a store
    /// error whose driver was stopped with the service), however deep.
    public var isCancellation: Bool {
        var error: (any Error)? = self
        for _ in 0..<8 {
            guard let current = error else { return false }
            if current is CancellationError { return true }
            error = (current as? any SwitchyardError)?.cause
        }
        return false
    }
}
