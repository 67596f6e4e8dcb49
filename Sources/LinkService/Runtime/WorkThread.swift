import HTTPTypes
import LinkRequests
import NIOPosix
import SwitchyardCore

/// One thread of its own for one kind of blocking work (drawing QR images, hashing passwords):
/// never an event loop, the database's threads or another kind's thread, so no kind starves
/// another. At most `waiting` requests are inside (running or queued); past that a request is
/// turned away at once with 503 `busy` and `Retry-After: 1`, its queue draining in well under a
/// second.
final class WorkThread: Sendable {
    private let pool: NIOThreadPool
    /// Requests running or waiting to run.
    let admission: AdmissionGate
    private let busy: ErrorCode
    /// What is running, for the busy answer: "QR images are already being drawn".
    private let running: String

    init(waiting: Int, busy: ErrorCode, running: String) {
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        admission = AdmissionGate(limit: waiting)
        self.busy = busy
        self.running = running
    }

    deinit { pool.shutdownGracefully { _ in } }

    /// `work`'s result, run on the thread; 503 `busy` when the queue is full, 503
    /// `shutting-down` once the service stops.
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T {
        try await admission.enter(busy: { others in
            var refusal = APIError(.serviceUnavailable, busy, "\(others) \(running) or waiting (the limit is \(admission.limit)); try again shortly")
            refusal.retryAfter = 1
            return refusal
        }) {
            do { return try await pool.runIfActive(work) } catch {
                throw APIError(.serviceUnavailable, .shuttingDown, "the service is stopping")
            }
        }
    }
}
