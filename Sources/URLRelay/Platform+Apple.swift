#if canImport(Darwin)
import SwitchyardCore
import Darwin
import Foundation

// On Apple platforms the inbox lives in an App Group container and the sender posts a Darwin
// notification; the durable writes are the core's DurableFile (with F_FULLFSYNC).

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

    /// Ends a `wait` in progress (or the next one) at once.
    func interrupt() { semaphore.signal() }

    static func post(_ directory: String) { notify_post("switchyard.relay." + directory) }
}

#if os(macOS)
/// macOS: the spawn attribute types as Darwin declares them (opaque pointers, nil until initialised).
enum HandlerSpawnTypes {
    typealias Actions = posix_spawn_file_actions_t?
    typealias Attributes = posix_spawnattr_t?
    static func actions() -> Actions { nil }
    static func attributes() -> Attributes { nil }

    /// Whether `pid`, a child, has exited (or is no child of ours); it stays unreaped.
    static func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        let r = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
        if r < 0 { return errno == ECHILD }
        return info.si_pid == pid
    }
}
#endif
#endif
