#if !canImport(JavaScriptCore)
import CJavaScriptCore

/// Linux: Debian's libjavascriptcoregtk exports the watchdog functions; the shim declares them.
enum JSPlatform {
    typealias TerminateCallback = @convention(c) (JSContextRef?, UnsafeMutableRawPointer?) -> Bool

    static func setExecutionTimeLimit(_ group: JSContextGroupRef, seconds: Double, callback: TerminateCallback, context: UnsafeMutableRawPointer?) {
        JSContextGroupSetExecutionTimeLimit(group, seconds, callback, context)
    }
}
#endif
