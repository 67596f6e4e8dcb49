import SwitchyardCore
import Foundation

/// Runs blocking work (a child process and the wait for it, reading a pipe to its end, sleeping
/// between polls) on a thread of its own and returns its result.
///
/// Swift's cooperative pool has one thread per core — two on the CI machine — and every async
/// test, the tested code's timers and deadlines among them, needs one of them to resume. A test
/// that waits for a process on a pool thread holds it for the whole wait; two such tests at once
/// stopped every other test of the suite for about a minute, and the timeouts those tests check
/// then measured the stall instead of the code.
///
/// At most `BlockingSlots.shared.count` bodies run at once (the others wait without holding a
/// thread): with nothing to hold them back, every test that starts a process started it at once
/// and the machine's load went past 25 on two cores, so that nothing could keep a deadline.
///
/// `limited: false` starts the body at once, outside the slots: for work that something else
/// is waiting on while it runs (a live test server's connection, which the server closes after
/// 75 s idle, must not sit through a queue).
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
/// (Two per core let a 10,000-request relay crash test, the durability script and the batches
/// fsync at once with the in-process services' databases: their requests took 20 s.)
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
