import Foundation
/// Durable file operations shared with other modules (the callback store): write-then-rename
/// with fsyncs, and fsynced appends.
public enum DurableFile {
    /// Writes `bytes` to `path` atomically and durably (temporary file, fsync, rename, fsync directory).
    public static func write(_ path: String, _ bytes: [UInt8]) throws(RelayError) {
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let staging = path + ".tmp"
        try FileSystem.remove(staging)
        try FileSystem.writeDurably(staging, bytes)
        try FileSystem.rename(staging, path)
        try FileSystem.syncDirectory(directory.isEmpty ? "." : directory)
    }

    public static func append(_ path: String, _ line: String) throws(RelayError) { try FileSystem.appendDurably(path, line) }

    public static func remove(_ path: String) throws(RelayError) {
        try FileSystem.remove(path)
        let directory = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        try FileSystem.syncDirectory(directory.isEmpty ? "." : directory)
    }

    /// Runs `body` while holding an exclusive lock on `path` (created if missing), waiting for
    /// other processes that hold it.
    public static func withExclusiveLock<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot open the lock file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw RelayError(.io, "\(path): cannot lock: \(String(cString: strerror(errno)))") }
        }
        return try body()
    }
}
