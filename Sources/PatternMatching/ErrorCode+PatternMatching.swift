import SwitchyardCore

/// The error code PatternMatching uses. Compare with this constant, never with a string literal.
extension ErrorCode {
    /// A regex evaluation that ran past its time budget and was stopped.
    public static let regexTimeout = ErrorCode("regex-timeout")
}
