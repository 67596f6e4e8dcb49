#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system calls the inbox needs, with errno turned into messages. The few calls that differ
/// between Linux and Apple platforms come from `Platform` (Platform+Linux.swift, Platform+Apple.swift).
enum FileSystem {
    static func errorText() -> String { String(cString: strerror(errno)) }

    /// Writes `bytes` to a new file and syncs it to disk.
    static func writeDurably(_ path: String, _ bytes: [UInt8]) throws(RelayError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot create: \(errorText())") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RelayError(.io, "\(path): write failed: \(errorText())")
            }
            offset += n
        }
        guard Platform.syncFile(fd) else { throw RelayError(.io, "\(path): fsync failed: \(errorText())") }
    }

    /// Syncs a directory, so that a rename or unlink in it is durable.
    static func syncDirectory(_ path: String) throws(RelayError) {
        let fd = open(path, O_RDONLY | Platform.directoryFlag | O_CLOEXEC)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot open directory: \(errorText())") }
        defer { close(fd) }
        guard Platform.syncDirectory(fd) else { throw RelayError(.io, "\(path): fsync failed: \(errorText())") }
    }

    static func rename(_ from: String, _ to: String) throws(RelayError) {
        guard Platform.rename(from, to) == 0 else { throw RelayError(.io, "rename \(from) → \(to): \(errorText())") }
    }

    static func remove(_ path: String) throws(RelayError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw RelayError(.io, "\(path): cannot remove: \(errorText())") }
    }

    /// Appends a line and syncs it (the drainer's journal).
    static func appendDurably(_ path: String, _ line: String) throws(RelayError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot open: \(errorText())") }
        defer { close(fd) }
        let bytes = Array(line.utf8)
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw RelayError(.io, "\(path): append failed: \(errorText())") }
        guard Platform.syncFile(fd) else { throw RelayError(.io, "\(path): fsync failed: \(errorText())") }
    }

    /// An exclusive, non-blocking lock held until the returned descriptor is closed (or the
    /// process dies, which the kernel handles).
    static func lock(_ path: String) throws(RelayError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot open: \(errorText())") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw RelayError(.locked, "\(path): another drainer holds the inbox")
        }
        return fd
    }

    static func unlock(_ fd: Int32) { close(fd) }
}
