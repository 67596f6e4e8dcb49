import SwitchyardCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The worker side of process isolation: `switchyard script-worker` calls `ScriptWorker.serve`,
/// which answers run requests from the engine on stdin/stdout (a Unix socket the engine made)
/// until the engine closes it.
///
/// Scripts run here exactly as in process — one context per script, the same time and memory
/// watch — with one difference: a script's `httpRequest` is sent back to the engine, which makes
/// it with its own fetcher and address policy. The worker itself opens no connection.
public enum ScriptWorker {
    /// Largest frame the worker accepts (a script source and its input, or a fetched body).
    static let maximumFrame = 160 << 20  // an input line may be 64 MiB (`--max-line-bytes`), plus the source

    /// Whether standard input is a socket, as it is when the engine started this process (a
    /// person running `script-worker` by hand has a terminal or a pipe there).
    public static var startedByEngine: Bool {
        var info = stat()
        return fstat(0, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK
    }

    /// Serves requests on file descriptors 0 and 1 until the engine goes away; the exit status to use.
    /// With `offline`, scripts' requests fail with `network-disabled` here, as the engine's would.
    /// `parent`: the engine's process id; the worker ends when that process does.
    public static func serve(timeLimit: Double, memoryLimit: Double, wallLimit: Double, offline: Bool = false, parent: Int32) async -> Int32 {
        WorkerPlatform.endWithParent(parent)
        let connection = Connection(socket: FrameSocket(fd: 0), output: FrameSocket(fd: 1))
        let executor = ScriptExecutor(threads: 1)
        let fetcher: any Fetcher = offline ? OfflineFetcher() : connection
        let runtime = ScriptRuntime(fetcher: fetcher, timeLimit: timeLimit, memoryLimit: memoryLimit, executor: executor, wallLimit: wallLimit)
        return await executor.run { connection.loop(runtime) }
    }

    /// The socket to the engine; also the scripts' fetcher (its requests go back to the engine).
    final class Connection: BlockingFetcher, @unchecked Sendable {
        // Only the worker's single script thread touches these.
        var socket: FrameSocket
        let output: FrameSocket
        var sources: [String: String] = [:]
        /// Run requests that arrived while a script waited for a fetch (the engine writes several
        /// calls ahead); served before reading the socket again.
        var queued: [WorkerFrame] = []
        /// Answers on their way back.
        let outbox: Outbox

        init(socket: FrameSocket, output: FrameSocket) {
            self.socket = socket
            self.output = output
            outbox = Outbox(output: output)
        }

        func loop(_ runtime: ScriptRuntime) -> Int32 {
            while true {
                let frame: WorkerFrame?
                if !queued.isEmpty { frame = queued.removeFirst() } else {
                    do { frame = try socket.next(maximum: ScriptWorker.maximumFrame) } catch { return 3 }
                }
                guard let frame else { return 0 }
                guard frame.kind == UInt8(ascii: "R"), frame.fields.count == 3 else { return 3 }
                let id = frame.text(0)
                if !frame.fields[1].isEmpty { sources[id] = frame.text(1) }
                let reply: WorkerFrame
                if let source = sources[id] {
                    switch runtime.runOnExecutor(source, input: frame.text(2)) {
                    case .success(let value?): reply = WorkerFrame("V", [value])
                    case .success(nil): reply = WorkerFrame("N")
                    case .failure(let error): reply = WorkerFrame("X", [error.code.name, error.message])
                    }
                } else {
                    reply = WorkerFrame("X", [ErrorCode.scriptWorker.name, "the worker was asked to run script \(id) it was never given"])
                }
                // Answers to quick calls the engine wrote ahead go back together (one wake-up for
                // it), but none waits more than a millisecond: the engine watches each call's time
                // and memory until its answer comes, so an answer held while a long call runs
                // would put that call's cost on the wrong one.
                guard outbox.add(reply.encoded, sendNow: queued.isEmpty && !socket.hasWholeFrame) else { return 0 }
            }
        }

        func fetchBlocking(_ request: FetchRequest) throws(FetchError) -> FetchResponse {
            // Answers held back go first: the engine reads them in order before this request.
            // The engine makes the request: it is told how long the script may still wait for it.
            let left = request.deadline.map { String(max(0, ($0 - ContinuousClock.now) / .seconds(1))) } ?? ""
            guard outbox.add(WorkerFrame("F", [request.url, left]).encoded, sendNow: true) else {
                throw FetchError(code: .networkError, message: "the engine that asked for this script is gone")
            }
            while true {
                let reply: WorkerFrame?
                do { reply = try socket.next(maximum: ScriptWorker.maximumFrame) } catch { reply = nil }
                guard let reply else { exit(0) }
                switch reply.kind {
                case UInt8(ascii: "f"): return FetchResponse(status: 200, body: reply.fields.first ?? [], url: request.url)
                case UInt8(ascii: "e"): throw FetchError(code: ErrorCode(reply.text(0)), message: reply.text(1))
                case UInt8(ascii: "R"): queued.append(reply)
                default: exit(3)
                }
            }
        }

        func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
            try fetchBlocking(request)
        }
    }
}

/// Answers on their way from a worker to its engine. The script thread adds them; those not sent
/// at once (more calls were already waiting) go out together from a thread of their own once the
/// first has waited a millisecond, so a long call never holds back the answers before it.
final class Outbox: @unchecked Sendable {
    // `pending`, `since` and `broken` under `condition`'s lock; writes to `output` too.
    private let condition = NSCondition()
    private var pending: [UInt8] = []
    private var since: ContinuousClock.Instant?
    private var broken = false
    private let output: FrameSocket

    init(output: FrameSocket) {
        self.output = output
        let thread = Thread { [self] in flushLoop() }
        thread.name = "switchyard-worker-outbox"
        thread.start()
    }

    /// Adds `bytes` (whole frames) after the answers already waiting; sends them all now when
    /// `sendNow`. False once the engine is gone.
    func add(_ bytes: [UInt8], sendNow: Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        pending += bytes
        if sendNow { return sendLocked() }
        if since == nil {
            since = .now
            condition.signal()
        }
        return !broken
    }

    private func sendLocked() -> Bool {
        since = nil
        if !pending.isEmpty, !broken {
            broken = !output.write(bytes: pending)
            pending.removeAll(keepingCapacity: true)
        }
        return !broken
    }

    private func flushLoop() {
        condition.lock()
        while !broken {
            guard let since else {
                condition.wait()
                continue
            }
            let due = since + .milliseconds(1)
            if ContinuousClock.now >= due {
                _ = sendLocked()
            } else {
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.001))
            }
        }
        condition.unlock()
    }
}

/// A fetcher that may be called directly from a script's thread: it blocks that thread itself
/// instead of waiting for an asynchronous fetch (the script worker's connection to its engine).
protocol BlockingFetcher: Fetcher {
    func fetchBlocking(_ request: FetchRequest) throws(FetchError) -> FetchResponse
}
