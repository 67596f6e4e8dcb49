import Dispatch

/// A serial queue for blocking work — file locks, reads, fsyncs, a wait on a descriptor — so that
/// the task that needs it is suspended, not its thread. In `switchyard` the event loops are Swift
/// Concurrency's executor: a blocked task there would stall every connection on that loop.
///
/// Work runs in order, one item at a time, on a thread Dispatch keeps for the queue; give each
/// kind of work its own queue, so a slow kind (a five-second wait) never holds up another.
public struct BlockingQueue: Sendable {
    private let queue: DispatchQueue

    /// A queue named `label` (shown in debuggers and crash reports).
    public init(label: String) { queue = DispatchQueue(label: label) }

    /// Runs `body` on the queue and returns its result; the calling task waits suspended.
    public func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
            queue.async {
                do throws(E) { continuation.resume(returning: .success(try body())) } catch { continuation.resume(returning: .failure(error)) }
            }
        }
        return try result.get()
    }
}
