#if os(macOS) || os(Linux)
import Foundation
import SwitchyardCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Strategies that run another program. `Process` exists on macOS and Linux only, so on iOS
// (an app or its extensions) these two are absent and the relay is the way to open a URL.

/// Runs a command with the URL as its last argument (`xdg-open` by default); exit status 0 is success.
public struct CommandOpen: URLOpenStrategy {
    /// The program and its leading arguments; the URL is added as the last argument.
    public var command: [String]
    /// Seconds the command may run; then its process group (it and everything it started) is
    /// stopped (SIGTERM, and SIGKILL 2 s later) and the attempt fails, so a handler that hangs
    /// cannot stall a drain. A command that exits in time ends the attempt, whatever it left running.
    public var timeLimit: Double
    /// `command(PROGRAM)`, for logs and reports.
    public var name: String { "command(\(command.first ?? ""))" }

    /// Runs `command` (`xdg-open` by default) with a time limit of `timeLimit` seconds (30 by default).
    public init(command: [String] = ["xdg-open"], timeLimit: Double = 30) {
        self.command = command
        self.timeLimit = timeLimit
    }

    /// `line` split into a program and its arguments as a shell splits words: on spaces, tabs
    /// and line breaks, with `'…'` taken as it is, `"…"` with `\"` and `\\` escapes, and `\` escaping the
    /// next character elsewhere; a line that names an executable file as a whole is that one
    /// word (a path with spaces, unquoted). Nil when a quote is left open or there is no command.
    public static func words(_ line: String) -> [String]? {
        if FileManager.default.isExecutableFile(atPath: line) { return [line] }
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for c in line {
            if escaped {
                word.append(c)
                escaped = false
                continue
            }
            switch quote {
            case "'"?:
                if c == "'" { quote = nil } else { word.append(c) }
            case "\""?:
                if c == "\"" { quote = nil } else if c == "\\" { escaped = true } else { word.append(c) }
            default:
                if c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\r\n" {
                    if inWord { words.append(word); word = ""; inWord = false }
                } else if c == "'" || c == "\"" {
                    quote = c
                    inWord = true
                } else if c == "\\" {
                    escaped = true
                    inWord = true
                } else {
                    word.append(c)
                    inWord = true
                }
            }
        }
        guard quote == nil, !escaped else { return nil }
        if inWord { words.append(word) }
        guard let first = words.first, !first.isEmpty else { return nil }
        return words
    }

    /// Whether `program` can be run: a path to an executable file, or a name found in `PATH`.
    public static func canRun(_ program: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> Bool {
        func isProgram(_ file: String) -> Bool {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) && !isDirectory.boolValue && FileManager.default.isExecutableFile(atPath: file)
        }
        if program.contains("/") { return isProgram(program) }
        return (path ?? "").split(separator: ":").contains { isProgram("\($0)/\(program)") }
    }

    /// Runs the command with the request's URL, passing its id and source in the environment as
    /// `SWITCHYARD_REQUEST_ID` and `SWITCHYARD_REQUEST_SOURCE`; `.opened` when it exits with 0.
    public func open(_ request: RelayRequest) async -> OpenOutcome {
        await run(arguments: [request.url], request: request)
    }

    /// Runs the command with `arguments` appended, in a process group of its own. The attempt
    /// ends when the command itself exits, whatever it left running in the background; past
    /// `timeLimit`, or when the calling task is cancelled (the watcher stops), its whole process
    /// group gets SIGTERM and, 2 s later, SIGKILL.
    func run(arguments: [String], request: RelayRequest? = nil) async -> OpenOutcome {
        guard let executable = command.first else { return .failed("no command configured") }
        var environment = ProcessInfo.processInfo.environment
        if let request {
            environment["SWITCHYARD_REQUEST_ID"] = request.id.uuidString.lowercased()
            environment["SWITCHYARD_REQUEST_SOURCE"] = request.source
        }
        let pid: pid_t
        switch HandlerProcess.spawn(command + arguments, environment: environment.map { "\($0.key)=\($0.value)" }) {
        case .success(let started): pid = started
        case .failure(let failure): return .failed("\(executable): \(DurableFile.reason(failure.errno))")
        }
        let deadline = ContinuousClock.now + .milliseconds(Int64((min(timeLimit, 86_400) * 1000).rounded(.up)))
        var pause = Duration.milliseconds(2)
        while true {
            if let status = HandlerProcess.exitStatus(pid) {
                if status.signal == 0 && status.code == 0 { return .opened }
                return .failed(status.signal != 0 ? "\(executable) was killed by signal \(status.signal)" : "\(executable) exited with status \(status.code)")
            }
            if Task.isCancelled {
                await HandlerProcess.end(group: pid)
                return .failed("\(executable) was stopped: the watcher is stopping")
            }
            if ContinuousClock.now >= deadline {
                await HandlerProcess.end(group: pid)
                return .failed("\(executable) did not finish within \(timeLimit) s and was stopped")
            }
            // Polled, not waited for on a thread: a cancelled task or a deadline is seen within 50 ms.
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(50))
        }
    }
}

/// Why a handler could not be started: `posix_spawn`'s error number.
struct SpawnFailure: Error {
    let errno: Int32
}

/// Starting, watching and ending handler processes. Only `HandlerSpawnTypes` differs between
/// platforms (in the platform files).
enum HandlerProcess {
    /// Starts `arguments[0]` (looked up in PATH) with `arguments` and `environment` as the leader
    /// of a new process group, stdin, stdout and stderr on /dev/null, every signal at its default
    /// and none blocked; the pid, or why it could not start.
    static func spawn(_ arguments: [String], environment: [String]) -> Result<pid_t, SpawnFailure> {
        var actions = HandlerSpawnTypes.actions()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for descriptor: Int32 in 0...2 {
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var attributes = HandlerSpawnTypes.attributes()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for p in argv + envp { free(p) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        return rc == 0 ? .success(pid) : .failure(SpawnFailure(errno: rc))
    }

    /// How `pid` ended (its exit code, or the signal that killed it), reaping it; nil while it runs.
    static func exitStatus(_ pid: pid_t) -> (code: Int32, signal: Int32)? {
        var status: Int32 = 0
        var r = waitpid(pid, &status, WNOHANG)
        while r < 0 && errno == EINTR { r = waitpid(pid, &status, WNOHANG) }
        if r == 0 { return nil }
        if r < 0 { return (code: -1, signal: 0) }  // not our child any more: nothing to wait for
        let signal = status & 0x7f
        return signal != 0 ? (code: 0, signal: signal) : (code: (status >> 8) & 0xff, signal: 0)
    }

    /// Ends handler `leader` and its process group: SIGTERM to both, then SIGKILL to both once
    /// the leader has exited or 2 s have passed, then reaps the leader. The leader is signalled
    /// by its pid too, so one that left the group still ends; it is reaped only after the last
    /// signal, so its id cannot have been reused by then. A leader that does not die even then
    /// (an uninterruptible wait) is left after 5 s more, not waited for. Runs in a task of its
    /// own, so a cancelled caller still waits for the end.
    static func end(group leader: pid_t) async {
        await Task.detached {
            kill(-leader, SIGTERM)
            kill(leader, SIGTERM)
            let deadline = ContinuousClock.now + .seconds(2)
            while !HandlerSpawnTypes.hasExited(leader) && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(10))
            }
            kill(-leader, SIGKILL)
            kill(leader, SIGKILL)
            let last = ContinuousClock.now + .seconds(5)
            while exitStatus(leader) == nil && ContinuousClock.now < last { try? await Task.sleep(for: .milliseconds(2)) }
        }.value
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
