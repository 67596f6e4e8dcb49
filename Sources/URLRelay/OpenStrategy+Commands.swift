#if os(macOS) || os(Linux)
import Foundation

// Strategies that run another program. `Process` exists on macOS and Linux only, so on iOS
// (an app or its extensions) these two are absent and the relay is the way to open a URL.

/// Runs a command with the URL as its last argument (`xdg-open` by default); exit status 0 is success.
public struct CommandOpen: URLOpenStrategy {
    /// The program and its leading arguments; the URL is added as the last argument.
    public var command: [String]
    /// Seconds the command may run; then it and everything it started are stopped (SIGTERM, and
    /// SIGKILL 2 s later) and the attempt fails, so a handler that hangs cannot stall a drain.
    public var timeLimit: Double
    /// `command(PROGRAM)`, for logs and reports.
    public var name: String { "command(\(command.first ?? ""))" }

    /// Runs `command` (`xdg-open` by default) with a time limit of `timeLimit` seconds (30 by default).
    public init(command: [String] = ["xdg-open"], timeLimit: Double = 30) {
        self.command = command
        self.timeLimit = timeLimit
    }

    /// Runs the command with the request's URL, passing its id and source in the environment as
    /// `SWITCHYARD_REQUEST_ID` and `SWITCHYARD_REQUEST_SOURCE`; `.opened` when it exits with 0.
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
    /// The program and arguments that activate the app; no URL is added.
    public var command: [String]
    /// `nudge(PROGRAM)`, for logs and reports.
    public var name: String { "nudge(\(command.first ?? ""))" }
    /// Nudges the app by running `command`.
    public init(command: [String]) { self.command = command }

    /// Runs the command without the URL, under `CommandOpen`'s
    /// default time limit; `.opened` when it exits with status 0.
    public func open(_ request: RelayRequest) async -> OpenOutcome {
        // The command gets no URL: only the app is activated.
        await CommandOpen(command: command).run(arguments: [], request: request)
    }
}
#endif
