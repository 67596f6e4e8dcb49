#if canImport(JavaScriptCore)
import Darwin
import JavaScriptCore

/// Apple platforms: the watchdog functions are exported by JavaScriptCore.framework but declared
/// only in a private header, so they are looked up by name.
enum JSPlatform {
    typealias TerminateCallback = @convention(c) (JSContextRef?, UnsafeMutableRawPointer?) -> Bool
    private typealias SetLimit = @convention(c) (JSContextGroupRef, Double, TerminateCallback?, UnsafeMutableRawPointer?) -> Void

    static func setExecutionTimeLimit(_ group: JSContextGroupRef, seconds: Double, callback: TerminateCallback, context: UnsafeMutableRawPointer?) {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "JSContextGroupSetExecutionTimeLimit") else { return }
        unsafeBitCast(symbol, to: SetLimit.self)(group, seconds, callback, context)
    }

    private typealias MemoryStatistics = @convention(c) (JSContextRef) -> JSObjectRef?

    /// Bytes held by the heap of `context`'s group (`JSGetMemoryUsageStatistics`, exported
    /// but private, so looked up by name). Walks the heap: call it rarely.
    static func heapBytes(_ context: JSContextRef) -> Double? {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "JSGetMemoryUsageStatistics"),
              let stats = unsafeBitCast(symbol, to: MemoryStatistics.self)(context) else { return nil }
        return JSText.number(context, stats, "heapCapacity") + JSText.number(context, stats, "extraMemorySize")
    }

    private typealias Collect = @convention(c) (JSContextRef) -> Void

    /// A full, synchronous collection (private in JavaScriptCore.framework, so looked up by
    /// name); the public `JSGarbageCollect` when it is not there.
    static func collectGarbage(_ context: JSContextRef) {
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: -2), "JSSynchronousGarbageCollectForDebugging") {
            unsafeBitCast(symbol, to: Collect.self)(context)
        } else {
            JSGarbageCollect(context)
        }
    }

    /// Not read on Apple platforms: the heap is checked directly instead.
    static func residentBytes() -> Double? { nil }

    /// Nothing to configure on Apple platforms: JavaScriptCore interrupts scripts without signals there.
    static let configured: Void = ()

    /// Nothing to do on Apple platforms.
    static func prepareScriptThread() {}
}
#endif
