#ifndef SWITCHYARD_CJAVASCRIPTCORE_SHIM_H
#define SWITCHYARD_CJAVASCRIPTCORE_SHIM_H

#include <stdbool.h>
#include <JavaScriptCore/JavaScript.h>

// Debian's libjavascriptcoregtk-4.1 exports the execution time limit functions, but the header
// declaring them (JSContextRefPrivate.h) is not shipped. Declared here with their exported ABI.
typedef bool (*JSShouldTerminateCallback)(JSContextRef ctx, void *context);

JS_EXPORT void JSContextGroupSetExecutionTimeLimit(JSContextGroupRef group, double limit,
                                                   JSShouldTerminateCallback callback,
                                                   void *context);
JS_EXPORT void JSContextGroupClearExecutionTimeLimit(JSContextGroupRef group);

// Also exported without its header (JSBasePrivate.h): an object describing the heap of the
// context's group (heapSize, heapCapacity, extraMemorySize, objectCount, ...). Its cost grows
// with the number of live objects.
JS_EXPORT JSObjectRef JSGetMemoryUsageStatistics(JSContextRef ctx);
// A full collection now (JSGarbageCollect only hints that one would be welcome).
JS_EXPORT void JSSynchronousGarbageCollectForDebugging(JSContextRef ctx);

// Also exported without its header (JSContextRefPrivate.h): whether an exception that leaves an
// API call gets the native call stack appended for the inspector. On by default, and then every
// such exception costs a native backtrace with a dladdr lookup per frame.
JS_EXPORT void JSGlobalContextSetIncludesNativeCallStackWhenReportingExceptions(JSGlobalContextRef ctx, bool includesNativeCallStack);

// The GLib API's option setter (jsc/jsc-options.h, which needs GLib's headers), declared with
// its ABI (gboolean is int): sets a JavaScriptCore option in this process without touching the
// environment. Effective only before the first virtual machine is made.
int jsc_options_set_boolean(const char *option, int value);
int jsc_options_get_boolean(const char *option, int *value);

#endif
