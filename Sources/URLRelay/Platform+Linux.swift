#if canImport(Glibc)
import Glibc
import Foundation

/// File-system calls the inbox needs, with errno turned into messages.
enum FileSystem {
    static func errorText() -> String { String(cString: strerror(errno)) }

    /// Writes `bytes` to a new file and fsyncs it.
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
        guard fsync(fd) == 0 else { throw RelayError(.io, "\(path): fsync failed: \(errorText())") }
    }

    /// fsync on a directory, so that a rename or unlink in it is durable.
    static func syncDirectory(_ path: String) throws(RelayError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot open directory: \(errorText())") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw RelayError(.io, "\(path): fsync failed: \(errorText())") }
    }

    static func rename(_ from: String, _ to: String) throws(RelayError) {
        guard Glibc.rename(from, to) == 0 else { throw RelayError(.io, "rename \(from) → \(to): \(errorText())") }
    }

    static func remove(_ path: String) throws(RelayError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw RelayError(.io, "\(path): cannot remove: \(errorText())") }
    }

    /// Appends a line and fsyncs (the drainer's journal).
    static func appendDurably(_ path: String, _ line: String) throws(RelayError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot open: \(errorText())") }
        defer { close(fd) }
        let bytes = Array(line.utf8)
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw RelayError(.io, "\(path): append failed: \(errorText())") }
        guard fsync(fd) == 0 else { throw RelayError(.io, "\(path): fsync failed: \(errorText())") }
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

/// Wake-up on Linux: inotify on the inbox's `requests/` directory (a rename into it is a new request).
final class DirectoryWatch: @unchecked Sendable {
    private let fd: Int32

    init(_ directory: String) throws(RelayError) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw RelayError(.io, "inotify_init1: \(FileSystem.errorText())") }
        guard inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0 else {
            close(fd)
            throw RelayError(.io, "\(directory): inotify_add_watch: \(FileSystem.errorText())")
        }
    }

    deinit { close(fd) }

    /// Blocks until something arrives or `timeout` seconds pass; true when woken by an event.
    func wait(timeout: Double) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let r = poll(&p, 1, Int32(timeout * 1000))
        guard r > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
        return true
    }
}
#endif
