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
    public static var describesWithCode: Bool { false }
}

/// The plain shape most of Switchyard's errors have: a code, a message, where, and the error
/// underneath. `RelayError`, `CallbackError`, `StoreError`, `FetchError` and `ScriptError` are
/// this type for their own ``ErrorDomain``.
public struct DomainError<Domain: ErrorDomain>: SwitchyardError {
    public var code: ErrorCode
    public var message: String
    public var location: SourceLocation?
    public var cause: (any Error)?

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
