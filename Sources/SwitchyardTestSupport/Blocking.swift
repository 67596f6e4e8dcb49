import SwitchyardCore
import Foundation

/// Runs blocking work (a child process and the wait for it, reading a pipe to its end, sleeping
/// between polls) on a thread of its own and returns its result, so that no thread of Swift's
/// cooperative pool (one per core), which every async test's timers and deadlines need, is held.
///
/// At most `BlockingSlots.shared.count` bodies run at once (the others wait without holding a
/// thread), so tests that start processes do not overload the machine. `limited: false` starts
/// the body at once, outside the slots, for work something else waits on while it runs (a live
/// test server's connection, which the server closes after 75 s idle).
public func blocking<T: Sendable>(limited: Bool = true, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    let slots = limited ? BlockingSlots.shared : nil
    await slots?.acquire()
    return try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            let result = Result { try body() }
            slots?.release()
            continuation.resume(with: result)
        }
    }
}

/// The number of `blocking` bodies that may run at once: `SWITCHYARD_TEST_JOBS`, or one per core.
public final class BlockingSlots: Sendable {
    /// The slots every `blocking` call shares.
    public static let shared = BlockingSlots(count: ProcessInfo.processInfo.environment["SWITCHYARD_TEST_JOBS"].flatMap { Int($0) }
                                              ?? ProcessInfo.processInfo.activeProcessorCount)

    /// How many bodies may run at once.
    public let count: Int
    private let state: Locked<(free: Int, waiting: [CheckedContinuation<Void, Never>])>

    init(count: Int) {
        self.count = max(1, count)
        state = Locked((max(1, count), []))
    }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.free > 0 { state.free -= 1; return true }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty { state.free += 1; return nil }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

extension ChildProcess {
    /// Waits for the child to end without holding a thread of the cooperative pool.
    public func waitForExit() async {
        _ = try? await blocking(limited: false) { [self] in waitUntilExit() }
    }

    /// Sends SIGTERM and reaps the child on a thread of its own, without waiting: for `defer`
    /// blocks, which cannot await.
    public func stopInBackground() {
        terminate()
        Thread.detachNewThread { [self] in waitUntilExit() }
    }
}
