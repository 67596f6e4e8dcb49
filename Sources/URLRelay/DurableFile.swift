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
}
