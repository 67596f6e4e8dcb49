#if canImport(Glibc)
import SwitchyardCore
import Glibc
import Foundation

/// Wake-up on Linux: inotify on the inbox's `requests/` directory (a rename into it is a new request).
final class DirectoryWatch: @unchecked Sendable {
    private let fd: Int32
    /// A pipe: `interrupt()` writes a byte to `wakeWrite` to end a `wait` early (the watcher was
    /// cancelled); `wait` drains `wakeRead`.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Nothing to announce on Linux: inotify sees the rename into `requests/` itself.
    static func post(_ directory: String) {}

    init(_ directory: String) throws(RelayError) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw RelayError(.io, "inotify_init1: \(FileSystem.errorText())") }
        guard inotify_add_watch(fd, directory, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE)) >= 0 else {
            close(fd)
            throw RelayError(.io, "\(directory): inotify_add_watch: \(FileSystem.errorText())")
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            close(fd)
            throw RelayError(.io, "pipe: \(FileSystem.errorText())")
        }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        close(fd)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Blocks until something arrives, `interrupt()` is called, or `timeout` seconds pass; true
    /// when woken by an event in the directory.
    func wait(timeout: Double) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        let r = poll(&fds, 2, Int32(min(timeout, 86_400) * 1000))
        guard r > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Both descriptors are non-blocking: read each until it has nothing left.
        func drain(_ descriptor: Int32) { while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {} }
        if fds[1].revents != 0 { drain(wakeRead) }
        guard fds[0].revents != 0 else { return false }
        drain(fd)
        return true
    }

    /// Ends a `wait` in progress (or the next one) at once.
    func interrupt() {
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
    }
}

/// Linux: the spawn attribute types as Glibc declares them (structures, initialised in place).
enum HandlerSpawnTypes {
    typealias Actions = posix_spawn_file_actions_t
    typealias Attributes = posix_spawnattr_t
    static func actions() -> Actions { posix_spawn_file_actions_t() }
    static func attributes() -> Attributes { posix_spawnattr_t() }

    /// Whether `pid`, a child, has exited (or is no child of ours); it stays unreaped.
    static func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        let r = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        if r < 0 { return errno == ECHILD }
        return info._sifields._sigchld.si_pid == pid
    }
}
#endif
