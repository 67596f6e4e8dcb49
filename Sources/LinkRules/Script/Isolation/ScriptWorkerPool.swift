import SwitchyardCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where `script2` sources run.
public enum ScriptIsolation: Sendable, Equatable {
    /// In this process's JavaScriptCore (apps, tests). Time and heap are watched, but a script
    /// that loops through promise jobs, or makes one huge allocation, is not stopped.
    case inProcess
    /// In worker processes started as `executable arguments… --time-limit S --memory-limit-bytes B
    /// --parent PID [--offline]` (`switchyard script-worker`), one call at a time each, at most one per executor thread. The
    /// engine stops a worker that runs past the time limit (with a grace period) or whose resident
    /// memory passes the memory limit, and starts a new one for the next call.
    case workerProcesses(executable: String, arguments: [String])

    /// Workers started from this very executable with `arguments`: on Linux `/proc/self/exe`,
    /// the binary that is running even after it was deleted or replaced on disk (an upgrade in
    /// place must not start workers from a newer build that may speak differently).
    public static func thisExecutable(arguments: [String]) -> ScriptIsolation {
        let own = FileManager.default.fileExists(atPath: "/proc/self/exe") ? "/proc/self/exe" : Bundle.main.executablePath ?? CommandLine.arguments[0]
        return .workerProcesses(executable: own, arguments: arguments)
    }
}

/// The engine side of `ScriptIsolation.workerProcesses`: starts workers, hands them calls,
/// answers their scripts' network requests with the engine's fetcher, and ends the ones that
/// overrun. Runs on the script executor's threads (each call blocks its thread, never an event loop).
final class ScriptWorkerPool: Sendable {
    let executable: String
    let arguments: [String]
    let timeLimit: Double
    let memoryLimit: Double
    let wallLimit: Double
    let fetcher: any Fetcher
    /// Largest answer accepted from a worker.
    static let maximumOutput = 16 << 20
    /// Resident memory a worker may use beyond a script's memory limit (its runtime, the other
    /// scripts' small contexts).
    static let residentHeadroom: Double = 192 * 1_048_576

    final class Worker: @unchecked Sendable {
        // Used by one executor thread at a time: a worker is either idle in the pool or checked out.
        let pid: pid_t
        var socket: FrameSocket
        var knownScripts = Set<Int>()
        /// Where its resident memory is read (kept open: it is read during calls, between batched
        /// calls that took 1 ms or more, and when the worker is handed back).
        let residentMemory: Int32

        init(pid: pid_t, fd: Int32) {
            self.pid = pid
            self.socket = FrameSocket(fd: fd)
            residentMemory = WorkerPlatform.openResidentMemory(of: pid)
        }

        /// Ends the worker (if still running) and collects its exit; a description of how it ended.
        @discardableResult
        func end(kill shouldKill: Bool) -> String {
            close(socket.fd)
            if residentMemory >= 0 { close(residentMemory) }
            if shouldKill { kill(pid, SIGKILL) }
            return WorkerPlatform.reap(pid)
        }
    }

    private let idle = Locked<[Worker]>([])
    private let scriptIDs = Locked<[String: Int]>([:])

    init(executable: String, arguments: [String], timeLimit: Double, memoryLimit: Double, wallLimit: Double, fetcher: any Fetcher) {
        self.executable = executable
        self.arguments = arguments
        self.timeLimit = timeLimit
        self.memoryLimit = memoryLimit
        self.wallLimit = wallLimit
        self.fetcher = fetcher
    }

    deinit {
        for worker in idle.withLock({ $0 }) { worker.end(kill: true) }
    }

    /// Number of worker processes waiting for a call.
    var idleCount: Int { idle.withLock { $0.count } }

    /// Runs `process(input, completionHandler)` of `source` in a worker.
    func run(_ source: String, input: String) -> Result<String?, ScriptError> {
        let id = scriptID(source)
        // An idle worker may have died since its last call (killed from outside): try a new one then.
        for attempt in 0..<2 {
            guard let worker = idle.withLock({ $0.popLast() }) ?? spawn() else {
                return .failure(ScriptError(code: .scriptWorker, message: "could not start a script worker process (\(executable)): \(String(cString: strerror(errno)))"))
            }
            let known = worker.knownScripts.contains(id)
            guard worker.socket.write(WorkerFrame("R", [String(id), known ? "" : source, input])) else {
                let how = worker.end(kill: true)
                if attempt == 0 { continue }
                return .failure(ScriptError(code: .scriptWorker, message: "the script worker process \(how) before it took the call"))
            }
            worker.knownScripts.insert(id)
            let (result, keep) = converse(worker)
            if keep { giveBack(worker) }
            return result
        }
        return .failure(ScriptError(code: .scriptWorker, message: "could not start a script worker process"))
    }

    /// Most bytes of run requests written ahead of their answers: they fit in the socket's
    /// buffer, so the engine never blocks writing while the worker blocks writing its answers.
    static let maximumPipelinedBytes = 64 << 10

    /// Several calls on one worker, written ahead and answered in order (one round trip). When
    /// the worker is ended during one of them, the rest run one by one on a fresh worker.
    func runMany(_ calls: [(source: String, input: String)]) -> [Result<String?, ScriptError>] {
        guard let worker = idle.withLock({ $0.popLast() }) ?? spawn() else { return calls.map { run($0.source, input: $0.input) } }
        var sent = 0
        var bytes: [UInt8] = []
        var introduced: [Int] = []
        for call in calls {
            let id = scriptID(call.source)
            let known = worker.knownScripts.contains(id) || introduced.contains(id)
            let frame = WorkerFrame("R", [String(id), known ? "" : call.source, call.input]).encoded
            guard sent == 0 || bytes.count + frame.count <= ScriptWorkerPool.maximumPipelinedBytes else { break }
            bytes += frame
            if !known { introduced.append(id) }
            sent += 1
        }
        if worker.socket.write(bytes: bytes) { worker.knownScripts.formUnion(introduced) } else { sent = 0 }
        var results: [Result<String?, ScriptError>] = []
        var answered = ContinuousClock.now
        for _ in 0..<sent {
            let (result, keep) = converse(worker, behind: sent - results.count - 1)
            let previous = answered
            answered = ContinuousClock.now
            results.append(result)
            if !keep {
                // The worker is gone, and the calls written after this one with it.
                return results + calls[results.count...].map { run($0.source, input: $0.input) }
            }
            // Memory a call left behind (a script stopped at its heap limit leaves the worker
            // large) must not be blamed on the next call: such a worker is ended between calls,
            // and the calls written after this one go to a fresh worker. Looked at only after a
            // call that took a millisecond or more (no script grows by a hundred megabytes in
            // less), not after every answer.
            if results.count < sent, answered - previous >= .milliseconds(1), memoryProblem(worker) != nil {
                worker.end(kill: true)
                return results + runMany(Array(calls[results.count...]))
            }
        }
        if sent == 0 {
            worker.end(kill: true)
            return calls.map { run($0.source, input: $0.input) }
        }
        giveBack(worker)
        return results + (sent < calls.count ? runMany(Array(calls[sent...])) : [])
    }

    private func scriptID(_ source: String) -> Int {
        scriptIDs.withLock { ids in
            if let id = ids[source] { return id }
            let id = ids.count + 1
            ids[source] = id
            return id
        }
    }

    private func spawn() -> Worker? {
        // An offline engine's answer to every fetch is known: the worker gives it without asking.
        let args = arguments + ["--time-limit", String(timeLimit), "--memory-limit-bytes", memoryLimit.isFinite ? String(Int(memoryLimit)) : "0",
                                "--wall-limit", String(wallLimit)]
            + ["--parent", String(getpid())] + (fetcher is OfflineFetcher ? ["--offline"] : [])
        guard let (pid, fd) = WorkerPlatform.spawn(executable, arguments: args) else { return nil }
        return Worker(pid: pid, fd: fd)
    }

    /// Serves the worker's requests until it answers; whether it may take another call.
    ///
    /// The worker stops a plain `while (true)` itself at the time limit (and stays usable), and a
    /// script that loops over slow requests at its wall-clock limit. The engine ends the worker for
    /// what it cannot stop: more than 1.5 × the time limit + 1 s of the worker's CPU time in this
    /// call (promise-job loops; CPU time, so a loaded machine does not cut a script short), the
    /// wall-clock limit + 2 s (a wedged runtime), or resident memory past the memory limit +
    /// `residentHeadroom`.
    /// `behind`: calls written to the worker after this one.
    private func converse(_ worker: Worker, behind: Int = 0) -> (Result<String?, ScriptError>, keep: Bool) {
        let start = ContinuousClock.now
        let cpuAllowance = timeLimit * 1.5 + 1
        var longestFetch = Duration.zero
        var cpuAtStart: Double?
        var lastCheck = start
        var suspectSince: ContinuousClock.Instant?
        while true {
            let frame: WorkerFrame
            do {
                guard let next = try worker.socket.take(maximum: ScriptWorkerPool.maximumOutput) else {
                    let now = ContinuousClock.now
                    if now - start >= .seconds(wallLimit + 2) + longestFetch {
                        worker.end(kill: true)
                        return (.failure(ScriptError(code: .scriptTimeout, message: "the script was stopped after running past its \(wallLimit) s wall-clock limit; its worker process was ended")), false)
                    }
                    if now - lastCheck >= .milliseconds(10) {
                        lastCheck = now
                        if let problem = overrun(worker, cpuAtStart: &cpuAtStart, allowance: cpuAllowance, elapsed: (now - start).seconds) {
                            // With calls behind this one the worker may already be on a later
                            // call while this one's answer waits in its outbox (a millisecond
                            // at most): that answer gets time to come before this call is blamed.
                            let since = suspectSince ?? now
                            suspectSince = since
                            if behind == 0 || now - since >= .milliseconds(50) {
                                worker.end(kill: true)
                                return (.failure(problem), false)
                            }
                        }
                    }
                    let readiness = worker.socket.wait(upTo: 0.01)
                    if readiness == .timedOut || (readiness == .readable && worker.socket.fill()) { continue }
                    let how = worker.end(kill: false)
                    return (.failure(ScriptError(code: .scriptCrashed, message: "the script's worker process \(how) during the call")), false)
                }
                frame = next
            } catch {
                worker.end(kill: true)
                return (.failure(ScriptError(code: .scriptOutputTooLarge, message: "the script's worker sent more than \(ScriptWorkerPool.maximumOutput >> 20) MB at once (its answer, or a request URL); the worker was ended")), false)
            }
            switch frame.kind {
            case UInt8(ascii: "V"): return (.success(frame.text(0)), true)
            case UInt8(ascii: "N"): return (.success(nil), true)
            case UInt8(ascii: "X"): return (.failure(ScriptError(code: ErrorCode(frame.text(0)), message: frame.text(1))), true)
            case UInt8(ascii: "F"):
                let started = ContinuousClock.now
                let fetcher = self.fetcher
                // Ended at the script's wall-clock limit (what the worker says is left of it, and
                // never later than this call's own), so nothing is fetched after it.
                var deadline = start.advanced(by: .milliseconds(Int64(min(wallLimit, 86_400) * 1000)))
                if let left = Double(frame.text(1)), left.isFinite, left >= 0 {
                    deadline = min(deadline, started.advanced(by: .milliseconds(Int64(min(left, 86_400) * 1000))))
                }
                let request = FetchRequest(url: frame.text(0), method: .get, deadline: deadline)
                let reply: WorkerFrame
                do {
                    let response = try ScriptExecutor.waitForAsync { () async throws(FetchError) -> FetchResponse in try await fetcher.fetch(request) }
                    reply = WorkerFrame(kind: UInt8(ascii: "f"), fields: [response.body])
                } catch {
                    reply = WorkerFrame("e", [error.code.name, error.message])
                }
                // The worker's wall-clock limit is checked between requests, so one request may end
                // past it: the backstop allows for the longest one.
                longestFetch = max(longestFetch, ContinuousClock.now - started)
                guard worker.socket.write(reply) else {
                    let how = worker.end(kill: true)
                    return (.failure(ScriptError(code: .scriptCrashed, message: "the script's worker process \(how) during the call")), false)
                }
            default:
                worker.end(kill: true)
                return (.failure(ScriptError(code: .scriptWorker, message: "the script worker sent an unknown message")), false)
            }
        }
    }

    /// Resident memory past which a worker is ended.
    var residentLimit: Double { memoryLimit.isFinite ? memoryLimit + ScriptWorkerPool.residentHeadroom : .infinity }

    /// Why a running call must stop (CPU time or memory), or nil. Where the platform cannot read a
    /// worker's CPU time, wall-clock time since the call began stands in for it.
    private func overrun(_ worker: Worker, cpuAtStart: inout Double?, allowance: Double, elapsed: Double) -> ScriptError? {
        let used: Double
        if let cpu = WorkerPlatform.cpuSeconds(of: worker.pid) {
            // First look after 10 ms of the call: count those 10 ms as spent.
            let first = cpuAtStart ?? cpu - 0.01
            cpuAtStart = first
            used = cpu - first
        } else {
            used = elapsed
        }
        if used > allowance {
            return ScriptError(code: .scriptTimeout, message: "the script was stopped after using more than \(allowance) s of CPU time (its \(timeLimit) s time limit, with a margin); its worker process was ended")
        }
        return memoryProblem(worker)
    }

    /// `script-memory` when the worker's resident memory is past `residentLimit`.
    private func memoryProblem(_ worker: Worker) -> ScriptError? {
        guard residentLimit.isFinite, let resident = WorkerPlatform.residentBytes(opened: worker.residentMemory), resident > residentLimit else { return nil }
        return ScriptError(code: .scriptMemory, message: "the script was stopped after its worker process passed the \(Int(memoryLimit / 1_048_576)) MB memory limit (\(Int(residentLimit / 1_048_576)) MB resident: \(Int(ScriptWorkerPool.residentHeadroom / 1_048_576)) MB more for the runtime); the worker was ended")
    }

    /// Puts a worker back after its calls, unless what they left behind (memory kept between
    /// calls, which no single call's watch sees) took it past `residentLimit`: then it is ended
    /// and the next call gets a fresh one.
    private func giveBack(_ worker: Worker) {
        if memoryProblem(worker) != nil { worker.end(kill: true) } else { idle.withLock { $0.append(worker) } }
    }
}

extension FrameSocket {
    enum Readiness { case readable, closed, timedOut }

    /// Waits until the socket can be read, or `seconds` pass.
    func wait(upTo seconds: Double) -> Readiness {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let n = poll(&entry, 1, Int32(max(0, (seconds * 1000).rounded(.up))))
        if n > 0 { return entry.revents & Int16(POLLIN) != 0 ? .readable : .closed }
        return .timedOut
    }

    /// A whole frame already read, if there is one.
    mutating func take(maximum: Int) throws(WorkerFrame.DecodeError) -> WorkerFrame? {
        try WorkerFrame.take(from: buffer, start: &start, maximum: maximum)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
