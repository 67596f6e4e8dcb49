import SwitchyardCore

/// The error and finding codes URLRelay uses. Compare with these constants, never with string literals.
extension ErrorCode {
    /// A relay record that does not decode (JSON, version, id,
    /// time, source, url or metadata), or an empty batch to send.
    public static let badRecord = ErrorCode("bad-record")
    /// `send` refused a request: the open policy denies its
    /// URL, or its source or metadata break the inbox's limits.
    public static let denied = ErrorCode("denied")
}
