#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Starting, measuring and ending script worker processes. What is the same on every platform is
/// here; `spawn` and `residentBytes(of:)` are in the platform files.
enum WorkerPlatform {
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
