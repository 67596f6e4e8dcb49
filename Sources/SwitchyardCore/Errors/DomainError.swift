import Foundation

/// Marks the errors of one module apart from another's, for ``DomainError``: a module declares
/// an empty enum conforming to this and names its error type after it
/// (`public typealias RelayError = DomainError<RelayErrors>`), so that a function says which
/// module's errors it throws.
public protocol ErrorDomain: Sendable {
    /// Whether ``DomainError/description`` starts with the code (`bad-signature: …`), for
    /// errors people compare by code when they read them; by default only the message is shown.
    static var describesWithCode: Bool { get }
}

extension ErrorDomain {
    /// By default a description shows the message without the code.
    public static var describesWithCode: Bool { false }
}

/// A domain whose errors all have the same code (a route table's are all `invalid-route-table`):
/// its ``DomainError`` is made from a message alone.
public protocol SingleCodeErrorDomain: ErrorDomain {
    /// The code of every error of the domain.
    static var code: ErrorCode { get }
}

/// The plain shape most of Switchyard's errors have: a code, a message, where, and the error
/// underneath. `RelayError`, `CallbackError`, `StoreError`, `FetchError`, `ScriptError`,
/// `DocumentError`, `RouteTableError`, `ConfigurationError` and `PageError` are this type for
/// their own ``ErrorDomain``.
public struct DomainError<Domain: ErrorDomain>: SwitchyardError {
    /// What went wrong, stable across releases: compare it with the `ErrorCode` constants.
    public var code: ErrorCode
    /// What went wrong and why, for people.
    public var message: String
    /// Where the problem is (file, line and column, key path); nil when it is not in a document.
    public var location: SourceLocation?
    /// The underlying error this one reports (a driver's, the file system's, the network's), if any.
    public var cause: (any Error)?

    /// An error with `code` and `message`, and where it happened and the error underneath when known.
    public init(_ code: ErrorCode, _ message: String, location: SourceLocation? = nil, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.location = location
        self.cause = cause
    }

    /// The same, with labels: `FetchError(code: .networkError, message: "…")`.
    public init(code: ErrorCode, message: String, location: SourceLocation? = nil, cause: (any Error)? = nil) {
        self.init(code, message, location: location, cause: cause)
    }

    /// The message (after `code: ` when the domain asks for it), after the location when there is one.
    public var description: String {
        let text = Domain.describesWithCode ? "\(code): \(message)" : message
        guard let location, !location.isEmpty else { return text }
        return "\(location): \(text)"
    }
}

extension DomainError: Equatable {
    /// Equal when code, message and location are (the cause is not compared).
    public static func == (a: DomainError, b: DomainError) -> Bool {
        a.code == b.code && a.message == b.message && a.location == b.location
    }
}

extension DomainError where Domain: SingleCodeErrorDomain {
    /// An error of the domain's one code: `RouteTableError("routes[0]: route a needs a pattern")`.
    public init(_ message: String, location: SourceLocation? = nil, cause: (any Error)? = nil) {
        self.init(Domain.code, message, location: location, cause: cause)
    }
}
