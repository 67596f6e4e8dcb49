import SwitchyardCore
import Foundation

/// A small pool of dedicated threads where the rule engine does its blocking work: matching,
/// JavaScriptCore, and the synchronous network calls a script's `httpRequest` makes.
///
/// Async callers hand work over with `run(_:)` and are resumed when it is done, so no event loop
/// and no thread of Swift's cooperative pool ever waits on a script or a socket. Only these
/// threads may block on an asynchronous fetch (`ScriptExecutor.waitForAsync`); anywhere else
/// that call stops the process with a message that names the mistake, so a blocking network call
/// cannot creep back onto an event loop.
///
/// ```swift
/// let executor = ScriptExecutor(threads: 2)
/// let n = await executor.run { expensiveSynchronousWork() }
/// ```
public final class ScriptExecutor: Sendable {
    private final class Queue: @unchecked Sendable {
        // Guarded by `condition`.
        let condition = NSCondition()
        // Taken jobs are cleared at once: a job holds what it works on (often the engine that
        // owns this pool), and keeping it would keep the pool alive forever.
        var jobs: [(@Sendable () -> Void)?] = []
        var head = 0
        var stopped = false

        func push(_ job: @escaping @Sendable () -> Void) {
            condition.lock()
            jobs.append(job)
            condition.signal()
            condition.unlock()
        }

        /// The next job, or nil once the pool is stopped and the queue is empty.
        func pop() -> (@Sendable () -> Void)? {
            condition.lock()
            defer { condition.unlock() }
            while head == jobs.count {
                if stopped { return nil }
                condition.wait()
            }
            let job = jobs[head]
            jobs[head] = nil
            head += 1
            if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }

        func stop() {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }
    }

    private let queue = Queue()
    /// Number of threads in the pool.
    public let threadCount: Int

    /// Key of the thread-local marker that says "this thread belongs to a script executor": a
    /// pthread key, cheaper than Foundation's thread dictionary (a bridged string key) for a
    /// check made before every script call.
    private static let marker: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-local key left for the script executor")
        return key
    }()

    /// Starts `threads` threads (default: one per active core), each with a stack large enough for
    /// JavaScriptCore.
    public init(threads: Int = ProcessInfo.processInfo.activeProcessorCount) {
        threadCount = max(1, threads)
        for i in 0..<threadCount {
            let queue = self.queue
            let thread = Thread {
                pthread_setspecific(ScriptExecutor.marker, UnsafeRawPointer(bitPattern: 1))
                JSPlatform.prepareScriptThread()
                while let job = queue.pop() { job() }
            }
            thread.name = "switchyard-script-\(i)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    deinit { queue.stop() }

    /// Runs `work` on one of the pool's threads and returns its result.
    public func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            queue.push { continuation.resume(returning: work()) }
        }
    }

    /// True on a thread of any script executor.
    public static var isCurrentThreadInPool: Bool {
        pthread_getspecific(marker) != nil
    }

    /// Waits for `operation` (started as a task) and returns its outcome. Only a script
    /// executor's thread may wait like this: it belongs to no event loop and to no cooperative
    /// pool, so blocking it starves nobody. Called anywhere else it stops the process.
    static func waitForAsync<T: Sendable, E: Error>(_ operation: @escaping @Sendable () async throws(E) -> T) throws(E) -> T {
        precondition(
            isCurrentThreadInPool,
            "a blocking network call was made outside the script executor; use LinkEngine's async API (resolve, apply) instead")
        let inbox = AsyncInbox<Result<T, E>>()
        inbox.start {
            do throws(E) { return .success(try await operation()) } catch { return .failure(error) }
        }
        return try inbox.next().get()
    }
}

/// Operations started from a script executor's thread, each ending on its own, taken back one
/// at a time in the order they end: the thread acts on each as it comes (the next hop of one
/// redirect chain) instead of waiting for the slowest of a group. Only an executor's thread may
/// start or wait, as for ``ScriptExecutor/waitForAsync(_:)``.
final class AsyncInbox<T: Sendable>: Sendable {
    private let arrived = Locked<[T]>([])
    private let ready = DispatchSemaphore(value: 0)

    /// Starts `operation` as a task; its result waits here until ``next()`` takes it.
    func start(_ operation: @escaping @Sendable () async -> T) {
        precondition(ScriptExecutor.isCurrentThreadInPool, "AsyncInbox is for the script executor's threads")
        Task.detached {
            let value = await operation()
            self.arrived.withLock { $0.append(value) }
            self.ready.signal()
        }
    }

    /// Blocks this executor thread until a started operation has ended, and returns its result.
    func next() -> T {
        ready.wait()
        return arrived.withLock { $0.removeFirst() }
    }
}
