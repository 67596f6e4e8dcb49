/// A file operation that failed: `io` (with the system's reason) or `locked` (another process
/// holds the lock).
public struct FileError: SwitchyardError, Equatable {
    public var code: ErrorCode
    public var message: String
    /// The file the operation was on.
    public var path: String
    /// The system's error number, when the system gave one.
    public var errno: Int32?

    public init(_ code: ErrorCode, path: String, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.errno = errno
    }

    public var location: SourceLocation? { SourceLocation(file: path) }
    /// The message, which names the file already.
    public var description: String { message }
}
