#if !canImport(JavaScriptCore)
import SwitchyardCore
import CJavaScriptCore
import CSpawn
import Foundation
import Glibc

/// Linux: Debian's libjavascriptcoregtk exports the watchdog functions; the shim declares them.
enum JSPlatform {
    typealias TerminateCallback = @convention(c) (JSContextRef?, UnsafeMutableRawPointer?) -> Bool

    static func setExecutionTimeLimit(_ group: JSContextGroupRef, seconds: Double, callback: TerminateCallback, context: UnsafeMutableRawPointer?) {
        JSContextGroupSetExecutionTimeLimit(group, seconds, callback, context)
    }

    /// Bytes held by the heap of `context`'s group (capacity plus memory outside the heap that
    /// objects own, such as typed-array buffers). Walks the heap: call it rarely.
    static func heapBytes(_ context: JSContextRef) -> Double? {
        guard let stats = JSGetMemoryUsageStatistics(context) else { return nil }
        return JSText.number(context, stats, "heapCapacity") + JSText.number(context, stats, "extraMemorySize")
    }

    /// Stops JavaScriptCore from taking a native backtrace (and symbolising every frame) each
    /// time an exception leaves an API call: a script whose `httpRequest` is refused (offline)
    /// throws on every call.
    static func skipNativeStacksInExceptions(_ context: JSGlobalContextRef) {
        JSGlobalContextSetIncludesNativeCallStackWhenReportingExceptions(context, false)
    }

    /// A full, synchronous collection of `context`'s heap (exported; its header is not shipped).
    static func collectGarbage(_ context: JSContextRef) {
        JSSynchronousGarbageCollectForDebugging(context)
    }

    /// The process's resident memory in bytes (one small read of /proc/self/statm).
    static func residentBytes(path: String = "/proc/self/statm") -> Double? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return residentBytes(statm: fd)
    }

    /// The resident memory an open statm file reports now (read again from its start).
    static func residentBytes(statm fd: Int32) -> Double? {
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        let fields = buffer[0..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Double(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// JavaScriptCore options, set once before the first context is made. Polling traps make
    /// compiled code check for a stop request itself, so a time limit holds even where JSC's
    /// default (suspending the script's thread with a signal) does not complete under load. A
    /// user's own `JSC_usePollingTraps` wins. Set through JSC's option API, not `setenv`, which
    /// races with threads reading the environment (`Process`, a worker's spawn).
    static let configured: Void = {
        if getenv("JSC_usePollingTraps") == nil { _ = jsc_options_set_boolean("usePollingTraps", 1) }
    }()

    /// Makes the current thread fit to run scripts: JavaScriptCore's collector may suspend a
    /// thread that holds a context with a signal, and a thread inherits its creator's signal
    /// mask (libdispatch and NIO threads block signals), so unblock every signal here.
    static func prepareScriptThread() {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
    }
}

/// Linux: starting and measuring script worker processes.
extension WorkerPlatform {
    /// The `send` flag that keeps a write to a closed socket from raising SIGPIPE.
    static let noSignalFlag = Int32(MSG_NOSIGNAL)

    /// `SOCK_STREAM` as `addrinfo.ai_socktype` takes it.
    static let streamSocketType = Int32(SOCK_STREAM.rawValue)

    /// Starts `executable` with `arguments`, its stdin and stdout one end of a new Unix socket
    /// (stderr shared with this process, every other descriptor closed, signals at their
    /// defaults); the child's pid and this process's end of the socket.
    static func spawn(_ executable: String, arguments: [String]) -> (pid_t, Int32)? {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        switchyard_spawn_add_closefrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        WorkerPlatform.withStartingSignals { all, none in
            posix_spawnattr_setsigdefault(&attributes, all)
            posix_spawnattr_setsigmask(&attributes, none)
        }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        return launch(executable, arguments: arguments, socket: fds) { pid, argv, environment in
            posix_spawn(pid, executable, &actions, &attributes, argv, environment)
        }
    }


    /// CPU time (user + system) process `pid` has used, in seconds (fields 14 and 15 of
    /// /proc/PID/stat, after the command name).
    static func cpuSeconds(of pid: pid_t) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// A descriptor to read process `pid`'s resident memory from, kept open for the worker's
    /// life (one `pread` per look instead of open, read, close), or -1.
    static func openResidentMemory(of pid: pid_t) -> Int32 {
        open("/proc/\(pid)/statm", O_RDONLY | O_CLOEXEC)
    }

    /// Resident memory in bytes, from a descriptor of `openResidentMemory(of:)`.
    static func residentBytes(opened fd: Int32) -> Double? {
        fd >= 0 ? JSPlatform.residentBytes(statm: fd) : nil
    }

}
#endif
