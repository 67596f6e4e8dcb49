#if canImport(Darwin)
import Darwin
import Foundation

// On Apple platforms the inbox lives in an App Group container and the sender posts a Darwin
// notification; the same durable-write primitives apply.
enum FileSystem {
    static func errorText() -> String { String(cString: strerror(errno)) }

    static func writeDurably(_ path: String, _ bytes: [UInt8]) throws(RelayError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot create: \(errorText())") }
        defer { close(fd) }
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw RelayError(.io, "\(path): write failed: \(errorText())") }
        guard fcntl(fd, F_FULLFSYNC) == 0 || fsync(fd) == 0 else { throw RelayError(.io, "\(path): fsync failed: \(errorText())") }
    }

    static func syncDirectory(_ path: String) throws(RelayError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot open directory: \(errorText())") }
        defer { close(fd) }
        _ = fsync(fd)
    }

    static func rename(_ from: String, _ to: String) throws(RelayError) {
        guard Darwin.rename(from, to) == 0 else { throw RelayError(.io, "rename \(from) → \(to): \(errorText())") }
    }

    static func remove(_ path: String) throws(RelayError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw RelayError(.io, "\(path): cannot remove: \(errorText())") }
    }

    static func appendDurably(_ path: String, _ line: String) throws(RelayError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot open: \(errorText())") }
        defer { close(fd) }
        let bytes = Array(line.utf8)
        guard bytes.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == bytes.count, fsync(fd) == 0 else {
            throw RelayError(.io, "\(path): append failed: \(errorText())")
        }
    }

    static func lock(_ path: String) throws(RelayError) -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RelayError(.io, "\(path): cannot open: \(errorText())") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { close(fd); throw RelayError(.locked, "\(path): another drainer holds the inbox") }
        return fd
    }

    static func unlock(_ fd: Int32) { close(fd) }
}

/// Wake-up on Apple platforms: a Darwin notification named after the inbox, posted by the
/// sender; the drainer also polls, so a missed notification only delays a request.
final class DirectoryWatch: @unchecked Sendable {
    private let name: String
    private let semaphore = DispatchSemaphore(value: 0)
    private var token: Int32 = 0

    init(_ directory: String) throws(RelayError) {
        name = "switchyard.relay." + directory
        let semaphore = self.semaphore
        notify_register_dispatch(name, &token, DispatchQueue.global()) { _ in semaphore.signal() }
    }

    deinit { notify_cancel(token) }

    func wait(timeout: Double) -> Bool { semaphore.wait(timeout: .now() + timeout) == .success }

    static func post(_ directory: String) { notify_post("switchyard.relay." + directory) }
}
#endif
