#if !canImport(JavaScriptCore)
import CJavaScriptCore
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

    /// A full, synchronous collection of `context`'s heap (exported; its header is not shipped).
    static func collectGarbage(_ context: JSContextRef) {
        JSSynchronousGarbageCollectForDebugging(context)
    }

    /// The process's resident memory in bytes (one small read of /proc/self/statm).
    static func residentBytes() -> Double? {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let fields = buffer[0..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 1, let pages = Double(String(decoding: fields[1], as: UTF8.self)) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// JavaScriptCore options, set once before the first context is made. By default JSC stops a
    /// script that ran past its time limit by suspending the script's thread with a signal; that
    /// handshake sometimes never completes when scripts move between threads under load, and
    /// optimised `while (true) {}` code then runs forever (seen in about one run in five of the
    /// script tests on a loaded machine). Polling traps make compiled code check for the stop
    /// request itself: no signal, and every time limit holds. A user's own `JSC_usePollingTraps`
    /// setting wins.
    static let configured: Void = {
        setenv("JSC_usePollingTraps", "1", 0)
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
#endif
