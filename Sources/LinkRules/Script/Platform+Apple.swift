#if canImport(JavaScriptCore)
import SwitchyardCore
import Darwin
import Foundation
import JavaScriptCore

/// Apple platforms. JavaScriptCore.framework's public API has no watchdog, no heap statistics
/// and no switch for the native backtraces of exceptions; the framework exports functions for
/// them that only its private headers declare. Looking those up (`dlsym`) is an App Review risk,
/// so it happens only in builds with the package trait `PrivateJavaScriptCore`
/// (`swift build --traits PrivateJavaScriptCore`, or the trait enabled on the dependency).
/// Without it, the default:
/// - no CPU-time limit in process: a script that loops forever holds its thread (the wall-clock
///   limit still refuses its further network requests; worker processes, macOS only, are ended);
/// - no heap limit in process;
/// - exceptions carry native backtraces (slower when a script throws often);
/// - garbage collection through the public `JSGarbageCollect`.
enum JSPlatform {
    typealias TerminateCallback = @convention(c) (JSContextRef?, UnsafeMutableRawPointer?) -> Bool
    private typealias SetLimit = @convention(c) (JSContextGroupRef, Double, TerminateCallback?, UnsafeMutableRawPointer?) -> Void

    static func setExecutionTimeLimit(_ group: JSContextGroupRef, seconds: Double, callback: TerminateCallback, context: UnsafeMutableRawPointer?) {
        #if PrivateJavaScriptCore
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "JSContextGroupSetExecutionTimeLimit") else { return }
        unsafeBitCast(symbol, to: SetLimit.self)(group, seconds, callback, context)
        #endif
    }

    private typealias MemoryStatistics = @convention(c) (JSContextRef) -> JSObjectRef?

    /// Bytes held by the heap of `context`'s group (`JSGetMemoryUsageStatistics`, exported
    /// but private, so looked up by name). Walks the heap: call it rarely.
    static func heapBytes(_ context: JSContextRef) -> Double? {
        #if PrivateJavaScriptCore
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "JSGetMemoryUsageStatistics"),
              let stats = unsafeBitCast(symbol, to: MemoryStatistics.self)(context) else { return nil }
        return JSText.number(context, stats, "heapCapacity") + JSText.number(context, stats, "extraMemorySize")
        #else
        return nil
        #endif
    }

    private typealias SetIncludesNativeStack = @convention(c) (JSGlobalContextRef, Bool) -> Void

    /// Stops JavaScriptCore from taking a native backtrace each time an exception leaves an API
    /// call (private in JavaScriptCore.framework, so looked up by name; nothing when absent).
    static func skipNativeStacksInExceptions(_ context: JSGlobalContextRef) {
        #if PrivateJavaScriptCore
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "JSGlobalContextSetIncludesNativeCallStackWhenReportingExceptions") else { return }
        unsafeBitCast(symbol, to: SetIncludesNativeStack.self)(context, false)
        #endif
    }

    private typealias Collect = @convention(c) (JSContextRef) -> Void

    /// A full, synchronous collection (private in JavaScriptCore.framework, so looked up by
    /// name); the public `JSGarbageCollect` when it is not there.
    static func collectGarbage(_ context: JSContextRef) {
        #if PrivateJavaScriptCore
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "JSSynchronousGarbageCollectForDebugging") {
            unsafeBitCast(symbol, to: Collect.self)(context)
            return
        }
        #endif
        JSGarbageCollect(context)
    }

    /// Not read on Apple platforms: the heap is checked directly instead.
    static func residentBytes() -> Double? { nil }

    /// Nothing to configure on Apple platforms: JavaScriptCore interrupts scripts without signals there.
    static let configured: Void = ()

    /// Nothing to do on Apple platforms.
    static func prepareScriptThread() {}
}

/// Apple platforms: script worker processes (macOS only; apps run scripts in process).
extension WorkerPlatform {
    /// No `send` flag: Darwin has no MSG_NOSIGNAL; SO_NOSIGPIPE is set on the socket instead.
    static let noSignalFlag: Int32 = 0

    /// `SOCK_STREAM` as `addrinfo.ai_socktype` takes it.
    static let streamSocketType = SOCK_STREAM

    static func spawn(_ executable: String, arguments: [String]) -> (pid_t, Int32)? {
        #if os(macOS)
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, SOCK_STREAM, 0, &fds) == 0 else { return nil }
        var on: Int32 = 1
        setsockopt(fds[0], SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        var actions: posix_spawn_file_actions_t?
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, 2, 2)
        var attributes: posix_spawnattr_t?
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        WorkerPlatform.withStartingSignals { all, none in
            posix_spawnattr_setsigdefault(&attributes, all)
            posix_spawnattr_setsigmask(&attributes, none)
        }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_CLOEXEC_DEFAULT))
        return launch(executable, arguments: arguments, socket: fds) { pid, argv, environment in
            posix_spawn(pid, executable, &actions, &attributes, argv, environment)
        }
        #else
        errno = ENOTSUP
        return nil
        #endif
    }


    /// Not read on Apple platforms: the engine counts wall-clock time instead.
    static func cpuSeconds(of pid: pid_t) -> Double? { nil }

    /// Not measured from outside on Apple platforms: the worker's own heap watch applies.
    static func openResidentMemory(of pid: pid_t) -> Int32 { -1 }

    static func residentBytes(opened fd: Int32) -> Double? { nil }

}
#endif
