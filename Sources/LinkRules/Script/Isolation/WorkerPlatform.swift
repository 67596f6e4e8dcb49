import SwitchyardCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Starting, measuring and ending script worker processes. What is the same on every platform is
/// here; `spawn`, `cpuSeconds(of:)` and the resident-memory reading are in the platform files.
enum WorkerPlatform {
    /// Runs `spawn` (the platform's `posix_spawn` with its file actions and attributes) with the
    /// worker's argument vector and environment, then keeps this process's end of `socket`
    /// (`socket[0]`) and closes the child's; the child's pid and our end, or nil with `errno` set.
    static func launch(_ executable: String, arguments: [String], socket fds: [Int32],
                       spawn: (UnsafeMutablePointer<pid_t>, [UnsafeMutablePointer<CChar>?], [UnsafeMutablePointer<CChar>?]) -> Int32) -> (pid_t, Int32)? {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let environment = WorkerPlatform.environment()
        defer { for p in environment { free(p) } }
        var pid: pid_t = 0
        let rc = spawn(&pid, argv, environment)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0])
            errno = rc
            return nil
        }
        return (pid, fds[0])
    }

    /// The signal sets a worker starts with, for its spawn attributes: every signal at its
    /// default action (`all`), none blocked (`none`).
    static func withStartingSignals(_ body: (UnsafePointer<sigset_t>, UnsafePointer<sigset_t>) -> Void) {
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        body(&all, &none)
    }

    /// This process's environment for a worker, with Swift's crash backtracer off: a worker that
    /// crashes must end at once (the engine then reports `script-crashed`), not wait in the
    /// backtracer, which also outlives it holding the engine's stderr. NULL-terminated; free each.
    static func environment() -> [UnsafeMutablePointer<CChar>?] {
        var entries = ProcessInfo.processInfo.environment.filter { $0.key != "SWIFT_BACKTRACE" }.map { "\($0.key)=\($0.value)" }
        entries.append("SWIFT_BACKTRACE=enable=no")
        return entries.map { strdup($0) } + [nil]
    }

    /// Waits for `pid` to end; how it ended, in words.
    static func reap(_ pid: pid_t) -> String {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return "ended" }
        }
        let signal = status & 0x7f
        if signal != 0 { return "was killed by signal \(signal)" }
        return "exited with status \((status >> 8) & 0xff)"
    }

    /// Makes the worker end when `parent` (the engine's process, given on the command line) is
    /// no longer its parent — at once if it died before the worker got here — even while a script
    /// holds the script thread: a thread that looks at the parent process id every second.
    static func endWithParent(_ parent: pid_t) {
        if getppid() != parent { _exit(0) }
        let thread = Thread {
            while true {
                sleep(1)
                if getppid() != parent { _exit(0) }
            }
        }
        thread.name = "switchyard-worker-parent-watch"
        thread.start()
    }
}
