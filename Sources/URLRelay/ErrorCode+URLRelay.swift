import SwitchyardCore

/// The error and finding codes URLRelay uses. Compare with these constants, never with string literals.
extension ErrorCode {
    public static let badRecord = ErrorCode("bad-record")
    public static let denied = ErrorCode("denied")
    public static let tooLong = ErrorCode("too-long")
}
