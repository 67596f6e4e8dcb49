/// A stable, machine-readable error code: a short kebab-case name (`script-timeout`,
/// `not-found`) that does not change once released. It is what JSON output, HTTP error bodies
/// and logs carry, and what code switches on.
///
/// Each module declares the codes it uses as constants, and callers compare with those:
///
/// ```swift
/// extension ErrorCode {
///     public static let scriptTimeout = ErrorCode("script-timeout")
/// }
/// if error.code == .scriptTimeout { … }
/// ```
///
/// Being a struct rather than an enum, a code added in a later release never breaks a
/// caller's `switch`.
public struct ErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The code as written in output: `script-timeout`.
    public let name: String

    /// A code with this name. Declare it once, as a static constant of `ErrorCode`.
    public init(_ name: String) { self.name = name }

    /// The code's name, as written in output.
    public var description: String { name }
}

extension ErrorCode {
    /// Reading or writing a file or a socket failed.
    public static let io = ErrorCode("io")
    /// A file or resource another process holds.
    public static let locked = ErrorCode("locked")
    /// A JSON document is not well formed.
    public static let jsonSyntax = ErrorCode("json-syntax")
    /// A key that appears more than once in one JSON object (only the last is used).
    public static let duplicateKey = ErrorCode("duplicate-key")
    /// A value has the wrong type or shape (a string where a number belongs, an unknown key).
    public static let invalidValue = ErrorCode("invalid-value")
    /// A URL that is not one, or not one that may be used here.
    public static let invalidURL = ErrorCode("invalid-url")
    /// A date-time that is not RFC 3339, or not a real date.
    public static let invalidTimestamp = ErrorCode("invalid-timestamp")
    /// A date-time of the right form that names no real time (30 February, a 99-hour offset).
    public static let noSuchTime = ErrorCode("no-such-time")
    /// A document (or request body) is not a JSON object where one is required.
    public static let notAnObject = ErrorCode("not-an-object")
    /// A required key is missing.
    public static let missingKey = ErrorCode("missing-key")
    /// A value of the wrong JSON type.
    public static let wrongType = ErrorCode("wrong-type")
    /// An input line over the length the reader keeps: it was not read.
    public static let lineTooLong = ErrorCode("line-too-long")
    /// A file over the size the reader accepts.
    public static let fileTooLarge = ErrorCode("file-too-large")
    /// A body or answer over the size the reader accepts.
    public static let bodyTooLarge = ErrorCode("body-too-large")
    /// A token, claim or link past its expiry.
    public static let expired = ErrorCode("expired")
    /// Nothing matched: no route, no visit, no rule.
    public static let noMatch = ErrorCode("no-match")
    /// A deferred deep link's claim token the service does not know.
    public static let claimUnknown = ErrorCode("claim-unknown")
    /// A claim token redeemed already.
    public static let claimUsed = ErrorCode("claim-used")
    /// A claim token past its lifetime.
    public static let claimExpired = ErrorCode("claim-expired")
    /// A claim token whose link has expired since it was issued.
    public static let claimLinkGone = ErrorCode("claim-link-gone")
    /// An app identifier, package or bundle ID that the document or configuration does not know.
    public static let unknownApp = ErrorCode("unknown-app")
}
