import SwitchyardCore

/// The error and finding codes CallbackURL uses. Compare with these constants, never with string literals.
extension ErrorCode {
    public static let alreadyAnswered = ErrorCode("already-answered")
    public static let badSignature = ErrorCode("bad-signature")
    public static let malformed = ErrorCode("malformed")
    public static let notAllowed = ErrorCode("not-allowed")
    public static let replayed = ErrorCode("replayed")
    public static let unknownKey = ErrorCode("unknown-key")
    public static let unknownRequest = ErrorCode("unknown-request")
    public static let unsigned = ErrorCode("unsigned")
}
