import SwitchyardCore
import Foundation

/// Runs `script2` sources in JavaScriptCore.
///
/// Each distinct script gets its own context (and context group), created on first use and
/// reused afterwards, since a fresh context costs far more than a call on a reused one. Scripts
/// never share globals. In process, calls to the same script are serialised and different
/// scripts run in parallel; with worker processes every call may run in parallel (each worker
/// keeps its own context per script). Every evaluation happens on the runtime's `executor`, so a
/// script (and the network calls it waits for) never holds an event loop or a cooperative thread.
///
/// ```swift
/// let runtime = ScriptRuntime(fetcher: OfflineFetcher(), timeLimit: 15)
/// let out = await runtime.run(script, input: "https://example.com/x")   // Result<String?, ScriptError>
/// ```
public final class ScriptRuntime: Sendable {
    /// Seconds a single evaluation may run before it is stopped (`while(true){}` included).
    public let timeLimit: Double
    /// Bytes the heap of one script may hold; past it the evaluation stops with `script-memory`
    /// and the script's context is dropped (a new one is made for the next call). `.infinity`
    /// turns the watch off (the benchmark's baseline).
    public let memoryLimit: Double
    /// The default heap limit of one script: 256 MiB, in bytes.
    public static let defaultMemoryLimit: Double = 256 * 1_048_576
    /// Seconds of wall-clock time one call may take, network waits included (a script that loops
    /// over slow requests uses little CPU time); its requests are refused past it.
    public let wallLimit: Double
    /// How scripts' network helpers reach the network.
    public let fetcher: any Fetcher
    /// The threads scripts run on.
    public let executor: ScriptExecutor

    private final class Slot: @unchecked Sendable {
        // Guarded by `lock`; a context is only touched while holding it.
        let lock = NSLock()
        var context: ScriptContext?
        var loadError: ScriptError?
    }

    private let slots = Locked<[String: Slot]>([:])

    /// Where the scripts run: in this process, or in worker processes.
    public let isolation: ScriptIsolation
    private let workers: ScriptWorkerPool?

    /// A runtime whose scripts run on `executor` (a new pool with one thread per core by default),
    /// in process or, with `isolation: .workerProcesses(…)`, in worker processes that the engine
    /// ends when a script overruns.
    public init(
        fetcher: any Fetcher, timeLimit: Double = 15, memoryLimit: Double = ScriptRuntime.defaultMemoryLimit, executor: ScriptExecutor? = nil,
        isolation: ScriptIsolation = .inProcess, wallLimit: Double? = nil
    ) {
        self.fetcher = fetcher
        self.timeLimit = timeLimit
        let wallLimit = wallLimit ?? 2 * timeLimit + 10
        self.wallLimit = wallLimit
        self.memoryLimit = memoryLimit
        self.executor = executor ?? ScriptExecutor()
        self.isolation = isolation
        if case .workerProcesses(let executable, let arguments) = isolation {
            workers = ScriptWorkerPool(executable: executable, arguments: arguments, timeLimit: timeLimit, memoryLimit: memoryLimit, wallLimit: wallLimit,
                                       fetcher: fetcher)
        } else {
            workers = nil
        }
    }

    /// Runs `process(input, completionHandler)` of `source` on the executor; the result is the
    /// completion's argument (nil when the script passes null), or the reason it produced none.
    public func run(_ source: String, input: String) async -> Result<String?, ScriptError> {
        await executor.run { self.runOnExecutor(source, input: input) }
    }

    /// `run` for code that is already on one of the executor's threads.
    func runOnExecutor(_ source: String, input: String) -> Result<String?, ScriptError> {
        precondition(ScriptExecutor.isCurrentThreadInPool, "scripts run only on the script executor")
        if let workers { return workers.run(source, input: input) }
        let slot = slots.withLock { slots in
            if let s = slots[source] { return s }
            let s = Slot()
            slots[source] = s
            return s
        }
        slot.lock.lock()
        defer { slot.lock.unlock() }
        if let error = slot.loadError { return .failure(error) }
        if slot.context == nil {
            do {
                slot.context = try ScriptContext(source: source, fetcher: fetcher, timeLimit: timeLimit, memoryLimit: memoryLimit, wallLimit: wallLimit)
            } catch {
                // A script whose top level timed out or ran out of memory may succeed later (it
                // may depend on the network); syntax errors are remembered.
                if error.code != .scriptTimeout && error.code != .scriptMemory { slot.loadError = error }
                return .failure(error)
            }
        }
        let result = slot.context!.run(input)
        if slot.context!.isSpent { slot.context = nil }
        return result
    }

    /// `runOnExecutor` for several calls, results in the same order. With worker processes the
    /// calls go to one worker together (one round trip instead of one per call: what one URL's
    /// browsers and formats need); in process they simply run in turn.
    func runManyOnExecutor(_ calls: [(source: String, input: String)]) -> [Result<String?, ScriptError>] {
        if calls.count > 1, let workers {
            precondition(ScriptExecutor.isCurrentThreadInPool, "scripts run only on the script executor")
            return workers.runMany(calls)
        }
        return calls.map { runOnExecutor($0.source, input: $0.input) }
    }

    /// Number of script contexts created so far in this process.
    public var contextCount: Int { slots.withLock { $0.values.filter { $0.context != nil }.count } }

    /// Number of worker processes waiting for a call (0 in process).
    public var idleWorkerCount: Int { workers?.idleCount ?? 0 }
}
