#if canImport(Glibc)
import SwitchyardCore
import Glibc
import Foundation

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
