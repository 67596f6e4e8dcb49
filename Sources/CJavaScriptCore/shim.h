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

#endif
