import SwitchyardCore

/// The error codes of the pages (``PageError``). Compare with these constants, never with string literals.
extension ErrorCode {
    /// A page template that cannot be read or parsed, or that names a value its page does not have.
    package static let invalidTemplate = ErrorCode("invalid-template")
}
