#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

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
}

/// The engine side of `ScriptIsolation.workerProcesses`: starts workers, hands them calls,
/// answers their scripts' network requests with the engine's fetcher, and ends the ones that
/// overrun. Runs on the script executor's threads (each call blocks its thread, never an event loop).
final class ScriptWorkerPool: Sendable {
    let executable: String
    let arguments: [String]
    let timeLimit: Double
    let memoryLimit: Double
    let fetcher: any Fetcher
    /// Largest answer accepted from a worker.
    static let maximumOutput = 16 << 20
    /// Resident memory a worker may use beyond a script's memory limit (its runtime, the other
    /// scripts' small contexts). Measured: about 60 MB after every script of the manifest ran.
    static let residentHeadroom: Double = 192 * 1_048_576

    final class Worker: @unchecked Sendable {
        // Used by one executor thread at a time: a worker is either idle in the pool or checked out.
        let pid: pid_t
        var socket: FrameSocket
        var knownScripts = Set<Int>()

        init(pid: pid_t, fd: Int32) {
            self.pid = pid
            self.socket = FrameSocket(fd: fd)
        }

        /// Ends the worker (if still running) and collects its exit; a description of how it ended.
        @discardableResult
        func end(kill shouldKill: Bool) -> String {
            close(socket.fd)
            if shouldKill { kill(pid, SIGKILL) }
            return WorkerPlatform.reap(pid)
        }
    }

    private let idle = Mutex<[Worker]>([])
    private let scriptIDs = Mutex<[String: Int]>([:])

    init(executable: String, arguments: [String], timeLimit: Double, memoryLimit: Double, fetcher: any Fetcher) {
        self.executable = executable
        self.arguments = arguments
        self.timeLimit = timeLimit
        self.memoryLimit = memoryLimit
        self.fetcher = fetcher
    }

    deinit {
        for worker in idle.withLock({ $0 }) { worker.end(kill: true) }
    }

    /// Number of worker processes waiting for a call.
    var idleCount: Int { idle.withLock { $0.count } }

    /// Runs `process(input, completionHandler)` of `source` in a worker.
    func run(_ source: String, input: String) -> Result<String?, ScriptError> {
        let id = scriptIDs.withLock { ids in
            if let id = ids[source] { return id }
            let id = ids.count + 1
            ids[source] = id
            return id
        }
        // An idle worker may have died since its last call (killed from outside): try a new one then.
        for attempt in 0..<2 {
            guard let worker = idle.withLock({ $0.popLast() }) ?? spawn() else {
                return .failure(ScriptError(code: "script-worker", message: "could not start a script worker process (\(executable)): \(String(cString: strerror(errno)))"))
            }
            let known = worker.knownScripts.contains(id)
            guard worker.socket.write(WorkerFrame("R", [String(id), known ? "" : source, input])) else {
                let how = worker.end(kill: true)
                if attempt == 0 { continue }
                return .failure(ScriptError(code: "script-worker", message: "the script worker process \(how) before it took the call"))
            }
            worker.knownScripts.insert(id)
            let (result, keep) = converse(worker)
            if keep { idle.withLock { $0.append(worker) } }
            return result
        }
        return .failure(ScriptError(code: "script-worker", message: "could not start a script worker process"))
    }

    private func spawn() -> Worker? {
        // An offline engine's answer to every fetch is known: the worker gives it without asking.
        let args = arguments + ["--time-limit", String(timeLimit), "--memory-limit-bytes", memoryLimit.isFinite ? String(Int(memoryLimit)) : "0"]
            + ["--parent", String(getpid())] + (fetcher is OfflineFetcher ? ["--offline"] : [])
        guard let (pid, fd) = WorkerPlatform.spawn(executable, arguments: args) else { return nil }
        return Worker(pid: pid, fd: fd)
    }

    /// Serves the worker's requests until it answers; whether it may take another call.
    private func converse(_ worker: Worker) -> (Result<String?, ScriptError>, keep: Bool) {
        // The worker stops a plain `while (true)` itself at the time limit (and stays usable);
        // this deadline is for what it cannot stop (promise-job loops, a wedged runtime).
        var deadline = ContinuousClock.now + .seconds(timeLimit * 1.5 + 1)
        let residentLimit = memoryLimit.isFinite ? memoryLimit + ScriptWorkerPool.residentHeadroom : .infinity
        var lastCheck = ContinuousClock.now
        while true {
            let frame: WorkerFrame
            do {
                guard let next = try worker.socket.take(maximum: ScriptWorkerPool.maximumOutput) else {
                    let now = ContinuousClock.now
                    if now >= deadline {
                        worker.end(kill: true)
                        return (.failure(ScriptError(code: "script-timeout", message: "the script was stopped after running past its \(timeLimit) s time limit; its worker process was ended")), false)
                    }
                    if residentLimit.isFinite && now - lastCheck >= .milliseconds(10) {
                        lastCheck = now
                        if let resident = WorkerPlatform.residentBytes(of: worker.pid), resident > residentLimit {
                            worker.end(kill: true)
                            return (.failure(ScriptError(code: "script-memory", message: "the script was stopped after its worker process passed the \(Int(memoryLimit / 1_048_576)) MB memory limit (\(Int(residentLimit / 1_048_576)) MB resident: \(Int(ScriptWorkerPool.residentHeadroom / 1_048_576)) MB more for the runtime); the worker was ended")), false)
                        }
                    }
                    let readiness = worker.socket.wait(upTo: min(0.01, (deadline - now).seconds))
                    if readiness == .timedOut || (readiness == .readable && worker.socket.fill()) { continue }
                    let how = worker.end(kill: false)
                    return (.failure(ScriptError(code: "script-crashed", message: "the script's worker process \(how) during the call")), false)
                }
                frame = next
            } catch {
                worker.end(kill: true)
                return (.failure(ScriptError(code: "script-output-too-large", message: "the script's answer is larger than \(ScriptWorkerPool.maximumOutput >> 20) MB")), false)
            }
            switch frame.kind {
            case UInt8(ascii: "V"): return (.success(frame.text(0)), true)
            case UInt8(ascii: "N"): return (.success(nil), true)
            case UInt8(ascii: "X"): return (.failure(ScriptError(code: frame.text(0), message: frame.text(1))), true)
            case UInt8(ascii: "F"):
                let started = ContinuousClock.now
                let fetcher = self.fetcher
                let request = FetchRequest(url: frame.text(0), method: .get)
                let reply: WorkerFrame
                do {
                    let response = try ScriptExecutor.waitForAsync { () async throws(FetchError) -> FetchResponse in try await fetcher.fetch(request) }
                    reply = WorkerFrame(kind: UInt8(ascii: "f"), fields: [response.body])
                } catch {
                    reply = WorkerFrame("e", [error.code, error.message])
                }
                // Time spent waiting for the network is the network timeout's business.
                deadline = deadline + (ContinuousClock.now - started)
                guard worker.socket.write(reply) else {
                    let how = worker.end(kill: true)
                    return (.failure(ScriptError(code: "script-crashed", message: "the script's worker process \(how) during the call")), false)
                }
            default:
                worker.end(kill: true)
                return (.failure(ScriptError(code: "script-worker", message: "the script worker sent an unknown message")), false)
            }
        }
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
