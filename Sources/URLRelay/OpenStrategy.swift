import SwitchyardCore
import CoreMetrics
import Foundation

/// What one attempt to open a URL did.
public enum OpenOutcome: Sendable, Equatable {
    case opened
    case failed(String)
}

/// One way to get a URL opened: run a command, drop it into an inbox, nudge the container app.
public protocol URLOpenStrategy: Sendable {
    var name: String { get }
    func open(_ request: RelayRequest) async -> OpenOutcome
}

/// Runs a command with the URL as its last argument (`xdg-open` by default); exit status 0 is success.
public struct CommandOpen: URLOpenStrategy {
    public var command: [String]
    /// Seconds the command may run; then it and everything it started are stopped (SIGTERM, and
    /// SIGKILL 2 s later) and the attempt fails, so a handler that hangs cannot stall a drain.
    public var timeLimit: Double
    public var name: String { "command(\(command.first ?? ""))" }

    public init(command: [String] = ["xdg-open"], timeLimit: Double = 30) {
        self.command = command
        self.timeLimit = timeLimit
    }

    public func open(_ request: RelayRequest) async -> OpenOutcome {
        await run(arguments: [request.url], request: request)
    }

    /// Runs the command with `arguments` appended.
    func run(arguments: [String], request: RelayRequest? = nil) async -> OpenOutcome {
        guard let executable = command.first else { return .failed("no command configured") }
        let process = Process()
        // coreutils' timeout runs the command in a process group of its own and signals the whole
        // group; where it is missing (macOS) the command runs without a limit.
        let timeout = "/usr/bin/timeout"
        let limited = FileManager.default.isExecutableFile(atPath: timeout) && timeLimit.isFinite
        process.executableURL = URL(fileURLWithPath: limited ? timeout : "/usr/bin/env")
        process.arguments = (limited ? ["--kill-after=2", String(format: "%.3f", timeLimit)] : []) + [executable] + command.dropFirst() + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        var env = ProcessInfo.processInfo.environment
        if let request {
            env["SWITCHYARD_REQUEST_ID"] = request.id.uuidString.lowercased()
            env["SWITCHYARD_REQUEST_SOURCE"] = request.source
        }
        process.environment = env
        return await withCheckedContinuation { continuation in
            process.terminationHandler = { p in
                let status = p.terminationStatus
                if status == 0 { continuation.resume(returning: .opened); return }
                // 124: stopped by SIGTERM; a command that ignores it is killed, and timeout with it.
                if limited && (status == 124 || status == 137 || (p.terminationReason == .uncaughtSignal && status == SIGKILL)) {
                    continuation.resume(returning: .failed("\(executable) did not finish within \(timeLimit) s and was stopped"))
                    return
                }
                continuation.resume(returning: .failed("\(executable) exited with status \(status)"))
            }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(returning: .failed("\(executable): \(error.localizedDescription)"))
            }
        }
    }
}

/// Activates the container app (a "nudge") by running a command, e.g. `gtk-launch plur.desktop`
/// or a D-Bus call; the URL itself travels through the relay.
public struct NudgeApp: URLOpenStrategy {
    public var command: [String]
    public var name: String { "nudge(\(command.first ?? ""))" }
    public init(command: [String]) { self.command = command }

    public func open(_ request: RelayRequest) async -> OpenOutcome {
        // The command gets no URL: only the app is activated.
        await CommandOpen(command: command).run(arguments: [], request: request)
    }
}

/// Drops the request into an inbox for the container app to drain.
public struct RelayToInbox: URLOpenStrategy {
    public var inbox: Inbox
    public var name: String { "relay(\(inbox.directory))" }
    public init(inbox: Inbox) { self.inbox = inbox }

    public func open(_ request: RelayRequest) async -> OpenOutcome {
        do { try inbox.send(request); return .opened } catch { return .failed(error.message) }
    }
}

/// A chain of strategies behind a policy. `always` strategies run whatever happened before
/// (the proven design: try to open directly, and always also relay).
public struct URLOpener: Sendable {
    public struct Step: Sendable {
        public var strategy: any URLOpenStrategy
        /// Run even when an earlier step succeeded.
        public var always: Bool
        public init(_ strategy: any URLOpenStrategy, always: Bool = false) { self.strategy = strategy; self.always = always }
    }

    /// One attempt, for logs and metrics.
    public struct Attempt: Sendable, Equatable {
        public var strategy: String
        public var outcome: OpenOutcome
    }

    public var steps: [Step]
    public init(_ steps: [Step]) { self.steps = steps }

    /// The default chain: open directly, and always relay into `inbox`.
    public static func standard(direct: any URLOpenStrategy, inbox: Inbox) -> URLOpener {
        URLOpener([Step(direct), Step(RelayToInbox(inbox: inbox), always: true)])
    }

    /// Runs the chain; the request counts as opened when any step opened it.
    public func open(_ request: RelayRequest, observe: (Attempt) -> Void = { _ in }) async -> (opened: Bool, attempts: [Attempt]) {
        var attempts: [Attempt] = []
        var opened = false
        for step in steps where !opened || step.always {
            let outcome = await step.strategy.open(request)
            let attempt = Attempt(strategy: step.strategy.name, outcome: outcome)
            Counter(label: "switchyard_open_attempts_total",
                    dimensions: [("strategy", step.strategy.name), ("outcome", outcome == .opened ? "opened" : "failed")]).increment()
            observe(attempt)
            attempts.append(attempt)
            if outcome == .opened { opened = true }
        }
        return (opened, attempts)
    }
}
