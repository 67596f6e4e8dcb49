import Foundation

/// A file operation that failed: `io` (with the system's reason) or `locked` (another process
/// holds the lock).
public struct FileError: SwitchyardError, Equatable {
    /// `io` (the system refused the operation) or `locked` (another process holds the lock).
    public var code: ErrorCode
    /// What failed, naming the file, with the system's reason for `io`.
    public var message: String
    /// The file the operation was on.
    public var path: String
    /// The system's error number, when the system gave one.
    public var errno: Int32?

    /// A failure of `code` on the file at `path`, with the system's error number when there is one.
    public init(_ code: ErrorCode, path: String, _ message: String, errno: Int32? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.errno = errno
    }

    /// The file, as a location without a line or column.
    public var location: SourceLocation? { SourceLocation(file: path) }
    /// The message, which names the file already.
    public var description: String { message }
}
