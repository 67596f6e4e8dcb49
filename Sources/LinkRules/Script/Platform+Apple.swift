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

    /// Nothing to configure on Apple platforms: JavaScriptCore interrupts scripts without signals there.
    static let configured: Void = ()

    /// Nothing to do on Apple platforms.
    static func prepareScriptThread() {}
}
#endif
