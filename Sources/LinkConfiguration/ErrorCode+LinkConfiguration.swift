import SwitchyardCore

/// The error code LinkConfiguration uses. Compare with this constant, never with a string literal.
extension ErrorCode {
    /// A service configuration that cannot be used (see ``ConfigurationError``).
    public static let invalidConfiguration = ErrorCode("invalid-configuration")
}
