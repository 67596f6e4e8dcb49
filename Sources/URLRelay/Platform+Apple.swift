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
#endif
