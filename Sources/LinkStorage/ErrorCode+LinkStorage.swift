import SwitchyardCore

/// The error codes of the link store (``StoreError``). Compare with these constants, never with string literals.
extension ErrorCode {
    /// A name that several active tokens share, given where one token must be named.
    public static let ambiguous = ErrorCode("ambiguous")
    /// A `--database` URL that is neither `sqlite:PATH` nor a complete `postgres://` URL.
    public static let badURL = ErrorCode("bad-url")
    /// A storage insert that broke a primary-key or unique constraint, such as an existing code.
    public static let duplicate = ErrorCode("duplicate")
    /// A database statement failed for a reason other than a duplicate key.
    public static let failed = ErrorCode("failed")
    /// A database a command reads is not there (it makes none).
    public static let missing = ErrorCode("missing")
    /// A database whose schema version is newer than this build knows.
    public static let schemaTooNew = ErrorCode("schema-too-new")
    /// The database cannot be opened or reached (no connection, no directory, no WAL mode).
    public static let unavailable = ErrorCode("unavailable")
}
