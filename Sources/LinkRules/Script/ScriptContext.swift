import SwitchyardCore
#if canImport(JavaScriptCore)
import JavaScriptCore
#else
import CJavaScriptCore
#endif

/// State shared between one script context and its native helper functions. Reached from the
/// (non-capturing) C callbacks through the global object's private pointer.
final class ScriptHost {
    let fetcher: any Fetcher
    var completed = false
    var result: String?
    /// What the script passed to `completionHandler` when it was neither a string nor null
    /// ("a number", "an object", …); such a call gives no result but an error.
    var resultKind: String?
    var terminated = false
    /// The evaluation was stopped because its heap passed `memoryLimit`.
    var memoryExceeded = false
    /// The watchdog: JavaScriptCore calls `ScriptContext.watchdog` after every `tick` seconds of
    /// CPU time an evaluation spends; it stops the evaluation after `timeLimit` in all, or when
    /// the heap of the script's context group passes `memoryLimit`.
    let timeLimit: Double
    let memoryLimit: Double
    let tick: Double
    var ticks = 0
    var residentAtFirstTick: Double?
    var group: JSContextGroupRef?
    /// The first refused network call of the current run (offline, private address, …).
    var networkFailure: FetchError?
    /// A call error that the script may have swallowed; reported if the script then fails.
    var lastNetworkError: FetchError?

    /// Seconds of wall-clock time one evaluation may take, network waits included; past it a
    /// request the script makes is refused with `script-timeout` (which the script cannot hide).
    let wallLimit: Double
    var started = ContinuousClock.now

    init(fetcher: any Fetcher, timeLimit: Double, memoryLimit: Double, wallLimit: Double = .infinity) {
        self.fetcher = fetcher
        self.timeLimit = timeLimit
        self.wallLimit = wallLimit
        self.memoryLimit = memoryLimit
        // With no memory limit there is nothing to watch between ticks: one at the time limit.
        tick = memoryLimit.isFinite ? min(0.01, timeLimit) : timeLimit
    }

    func reset() {
        started = ContinuousClock.now
        completed = false
        result = nil
        resultKind = nil
        terminated = false
        memoryExceeded = false
        ticks = 0
        residentAtFirstTick = nil
        networkFailure = nil
        lastNetworkError = nil
    }
}

/// One JavaScriptCore context (in its own context group) running one `script2` source.
///
/// Not thread-safe: `ScriptRuntime` serialises calls per context. Contexts never share state,
/// because each has its own global object and group.
final class ScriptContext {
    private let group: JSContextGroupRef
    private let context: JSGlobalContextRef
    private let process: JSObjectRef
    private let completion: JSObjectRef
    private let host: ScriptHost
    private var calls = 0

    nonisolated(unsafe) private static let globalClass: JSClassRef = {
        var definition = kJSClassDefinitionEmpty
        return JSClassCreate(&definition)
    }()

    /// Called by JavaScriptCore on the script's thread after every `tick` of CPU time in one
    /// evaluation. Returning false lets the script go on; the limit must then be set again, as
    /// JavaScriptCore does not re-arm it by itself.
    ///
    /// The memory check is cheap until it matters: the process's resident memory (one read of
    /// /proc/self/statm) must have grown by half the limit since the evaluation's first tick
    /// before the script's own heap is measured (a walk of that heap). So an ordinary script —
    /// done in microseconds, never reaching a tick — pays nothing, and a neighbour's growth costs
    /// only the measurement of this script's small heap.
    static let watchdog: JSPlatform.TerminateCallback = { context, info in
        guard let context, let info else { return true }
        let host = Unmanaged<ScriptHost>.fromOpaque(info).takeUnretainedValue()
        host.ticks += 1
        if Double(host.ticks) * host.tick >= host.timeLimit {
            host.terminated = true
            return true
        }
        var measure = true
        if let resident = JSPlatform.residentBytes() {
            let first = host.residentAtFirstTick ?? resident
            host.residentAtFirstTick = first
            measure = resident - first > host.memoryLimit / 2
        }
        if measure, let heap = JSPlatform.heapBytes(context), heap > host.memoryLimit {
            host.memoryExceeded = true
            host.terminated = true
            return true
        }
        if let group = host.group { JSPlatform.setExecutionTimeLimit(group, seconds: host.tick, callback: watchdog, context: info) }
        return false
    }

    /// True once the context must not be used again (its heap passed the memory limit); the
    /// runtime then drops it, which frees that heap, and makes a new one on the next call.
    private(set) var isSpent = false

    init(source: String, fetcher: any Fetcher, timeLimit: Double, memoryLimit: Double = ScriptRuntime.defaultMemoryLimit,
         wallLimit: Double = .infinity) throws(ScriptError) {
        _ = JSPlatform.configured
        let host = ScriptHost(fetcher: fetcher, timeLimit: timeLimit, memoryLimit: memoryLimit, wallLimit: wallLimit)
        let group = JSContextGroupCreate()!
        host.group = group
        let context = JSGlobalContextCreateInGroup(group, ScriptContext.globalClass)!
        JSPlatform.skipNativeStacksInExceptions(context)
        let global = JSContextGetGlobalObject(context)
        JSObjectSetPrivate(global, Unmanaged.passUnretained(host).toOpaque())
        JSPlatform.setExecutionTimeLimit(group, seconds: host.tick, callback: ScriptContext.watchdog, context: Unmanaged.passUnretained(host).toOpaque())
        func fail(_ error: ScriptError) -> ScriptError {
            JSGlobalContextRelease(context)
            JSContextGroupRelease(group)
            return error
        }

        for (name, fn) in [
            ("httpRequest", ScriptContext.httpRequest), ("jsonRequest", ScriptContext.jsonRequest), ("btoa", ScriptContext.btoa),
            ("atob", ScriptContext.atob), ("base64DigitsToBase10String", ScriptContext.base64DigitsToBase10String),
        ] {
            _ = ScriptContext.install(name, fn, in: context)
        }
        let completion = ScriptContext.install("__switchyardComplete", ScriptContext.complete, in: context)

        var exception: JSValueRef?
        let script = JSText.makeString(source)
        defer { JSStringRelease(script) }
        _ = JSEvaluateScript(context, script, nil, nil, 1, &exception)
        if host.memoryExceeded {
            throw fail(ScriptContext.memoryError(memoryLimit))
        }
        if host.terminated {
            throw fail(ScriptError(code: .scriptTimeout, message: "the script's top level ran past the \(timeLimit) s time limit"))
        }
        if let exception {
            throw fail(ScriptError(code: .scriptSyntax, message: "the script failed to load: \(JSText.describe(context, exception))"))
        }
        let processName = JSStringCreateWithUTF8CString("process")
        defer { JSStringRelease(processName) }
        let value = JSObjectGetProperty(context, global, processName, nil)
        guard let value, JSValueIsObject(context, value), let object = JSValueToObject(context, value, nil),
              JSObjectIsFunction(context, object)
        else {
            throw fail(ScriptError(code: .scriptWithoutProcess, message: "the script defines no function process(url, completionHandler)"))
        }
        JSValueProtect(context, object)
        JSValueProtect(context, completion)
        self.host = host
        self.group = group
        self.context = context
        self.process = object
        self.completion = completion
    }

    private static func install(_ name: String, _ fn: JSObjectCallAsFunctionCallback, in context: JSGlobalContextRef) -> JSObjectRef {
        let jsName = JSStringCreateWithUTF8CString(name)
        defer { JSStringRelease(jsName) }
        let function = JSObjectMakeFunctionWithCallback(context, jsName, fn)!
        JSObjectSetProperty(context, JSContextGetGlobalObject(context), jsName, function, JSPropertyAttributes(kJSPropertyAttributeDontEnum), nil)
        return function
    }

    deinit {
        JSValueUnprotect(context, process)
        JSValueUnprotect(context, completion)
        JSGlobalContextRelease(context)
        JSContextGroupRelease(group)
    }

    /// Largest answer a script may give (an app link; anything near this is a mistake or an attack).
    static let maximumResultBytes = 8 << 20
    /// Longest URL a script may request.
    static let maximumRequestURLBytes = 64 << 10

    static func memoryError(_ limit: Double) -> ScriptError {
        ScriptError(code: .scriptMemory, message: "the script was stopped after its heap passed the \(Int(limit / 1_048_576)) MB memory limit")
    }

    /// Calls `process(input, completionHandler)`; the completion's argument is the result.
    func run(_ input: String) -> Result<String?, ScriptError> {
        host.reset()
        let inputString = JSText.makeString(input)
        defer { JSStringRelease(inputString) }
        let arguments: [JSValueRef?] = [JSValueMakeString(context, inputString), completion]
        var exception: JSValueRef?
        _ = arguments.withUnsafeBufferPointer { buffer in
            JSObjectCallAsFunction(context, process, nil, 2, buffer.baseAddress, &exception)
        }
        calls += 1
        if calls % 256 == 0 {
            // A full, synchronous collection: `JSGarbageCollect` is only a hint, under which the
            // heaps of a long batch keep growing.
            JSPlatform.collectGarbage(context)
            // What a script keeps between calls (globals) grows without any single evaluation
            // running long: measured here, after the collection.
            if let heap = JSPlatform.heapBytes(context), heap > host.memoryLimit {
                isSpent = true
                return .failure(ScriptContext.memoryError(host.memoryLimit))
            }
        }
        if host.memoryExceeded {
            isSpent = true
            return .failure(ScriptContext.memoryError(host.memoryLimit))
        }
        if host.terminated && host.networkFailure?.code != .scriptTimeout {
            return .failure(ScriptError(code: .scriptTimeout, message: "the script was stopped after running past its time limit"))
        }
        if let failure = host.networkFailure {
            return .failure(ScriptError(code: failure.code, message: failure.message))
        }
        if let exception {
            var message = "the script threw: " + JSText.describe(context, exception)
            if let network = host.lastNetworkError { message += " (after a failed request: \(network.message))" }
            return .failure(ScriptError(code: .scriptException, message: message))
        }
        guard host.completed else {
            return .failure(ScriptError(code: .completionNotCalled, message: "process() returned without calling completionHandler"))
        }
        if let kind = host.resultKind {
            return .failure(ScriptError(code: .invalidResult, message: "the script passed \(kind) to completionHandler; it takes a URL string or null"))
        }
        if let result = host.result, result.utf8.count > ScriptContext.maximumResultBytes {
            return .failure(ScriptError(code: .scriptOutputTooLarge, message: "the script's answer is larger than \(ScriptContext.maximumResultBytes >> 20) MB"))
        }
        return .success(host.result)
    }

    // MARK: Native helpers (non-capturing C callbacks)

    private static func host(_ ctx: JSContextRef?) -> ScriptHost? {
        guard let ctx, let global = JSContextGetGlobalObject(ctx), let raw = JSObjectGetPrivate(global) else { return nil }
        return Unmanaged<ScriptHost>.fromOpaque(raw).takeUnretainedValue()
    }

    private static func argument(_ ctx: JSContextRef?, _ count: Int, _ args: UnsafePointer<JSValueRef?>?, _ i: Int) -> JSValueRef? {
        guard i < count, let args else { return nil }
        return args[i]
    }

    private static func throwError(_ ctx: JSContextRef?, _ exception: UnsafeMutablePointer<JSValueRef?>?, _ message: String) -> JSValueRef? {
        let text = JSText.makeString(message)
        defer { JSStringRelease(text) }
        var args: [JSValueRef?] = [JSValueMakeString(ctx, text)]
        let error = args.withUnsafeMutableBufferPointer { JSObjectMakeError(ctx, 1, $0.baseAddress, nil) }
        exception?.pointee = error
        return JSValueMakeUndefined(ctx)
    }

    private static func fetchBody(_ ctx: JSContextRef?, _ count: Int, _ args: UnsafePointer<JSValueRef?>?, _ exception: UnsafeMutablePointer<JSValueRef?>?) -> String? {
        guard let host = host(ctx) else { return nil }
        guard let value = argument(ctx, count, args, 0), let url = JSText.string(ctx, value) else {
            _ = throwError(ctx, exception, "httpRequest: expected a URL string")
            return nil
        }
        // Network waits are not CPU time, so the watchdog does not see a script that loops over
        // slow requests: the wall-clock limit stops it at its next request.
        func overrun() -> Bool {
            guard (ContinuousClock.now - host.started) > .seconds(host.wallLimit) else { return false }
            if host.networkFailure == nil {
                host.networkFailure = FetchError(code: .scriptTimeout, message: "the script ran past its \(host.wallLimit) s wall-clock limit (its time limit twice, plus the network timeout) and its requests were refused")
            }
            _ = throwError(ctx, exception, "script-timeout: the wall-clock limit has passed")
            return true
        }
        if overrun() { return nil }
        defer { _ = overrun() }
        guard url.utf8.count <= ScriptContext.maximumRequestURLBytes else {
            let error = FetchError(code: .invalidURL, message: "the script asked for a URL longer than \(ScriptContext.maximumRequestURLBytes >> 10) KiB")
            if host.networkFailure == nil { host.networkFailure = error }
            _ = throwError(ctx, exception, "\(error.code): \(error.message)")
            return nil
        }
        do {
            let fetcher = host.fetcher
            // The fetcher ends the request (its redirects included) at the wall-clock limit, so
            // nothing is fetched after it.
            let deadline = host.wallLimit.isFinite && host.wallLimit < 86_400
                ? host.started.advanced(by: .milliseconds(Int64(host.wallLimit * 1000))) : nil
            let request = FetchRequest(url: url, method: .get, deadline: deadline)
            let response: FetchResponse
            if let blocking = fetcher as? any BlockingFetcher {
                response = try blocking.fetchBlocking(request)
            } else {
                response = try ScriptExecutor.waitForAsync { () async throws(FetchError) -> FetchResponse in try await fetcher.fetch(request) }
            }
            return String(decoding: response.body, as: UTF8.self)
        } catch {
            switch error.code {
            case .networkDisabled, .networkUnavailable, .networkRefused, .invalidURL:
                // Policy refusals are never hidden from the caller, even if the script catches them.
                if host.networkFailure == nil { host.networkFailure = error }
                _ = throwError(ctx, exception, "\(error.code): \(error.message)")
            default:
                // Transport failures give null, as Opener's helper does for a failed request.
                host.lastNetworkError = error
            }
            return nil
        }
    }

    private static let httpRequest: JSObjectCallAsFunctionCallback = { ctx, _, _, count, args, exception in
        guard let body = fetchBody(ctx, count, args, exception) else { return JSValueMakeNull(ctx) }
        let s = JSText.makeString(body)
        defer { JSStringRelease(s) }
        return JSValueMakeString(ctx, s)
    }

    private static let jsonRequest: JSObjectCallAsFunctionCallback = { ctx, _, _, count, args, exception in
        guard let body = fetchBody(ctx, count, args, exception) else { return JSValueMakeNull(ctx) }
        let s = JSText.makeString(body)
        defer { JSStringRelease(s) }
        return JSValueMakeFromJSONString(ctx, s) ?? JSValueMakeNull(ctx)
    }

    private static let complete: JSObjectCallAsFunctionCallback = { ctx, _, _, count, args, _ in
        guard let host = host(ctx) else { return JSValueMakeUndefined(ctx) }
        if !host.completed {
            host.completed = true
            if let value = argument(ctx, count, args, 0), !JSValueIsNull(ctx, value), !JSValueIsUndefined(ctx, value) {
                if JSValueIsString(ctx, value) {
                    host.result = JSText.string(ctx, value)
                } else {
                    // A link is a string: `completionHandler(12345)` is a mistake, not the URL "12345".
                    host.resultKind = JSValueIsNumber(ctx, value) ? "a number" : JSValueIsBoolean(ctx, value) ? "a boolean"
                        : JSValueIsObject(ctx, value) ? "an object" : "a value that is not a string"
                }
            }
        }
        return JSValueMakeUndefined(ctx)
    }

    private static let btoa: JSObjectCallAsFunctionCallback = { ctx, _, _, count, args, exception in
        let value = argument(ctx, count, args, 0)
        let text = value.flatMap { JSText.string(ctx, $0) } ?? "undefined"
        var bytes: [UInt8] = []
        for unit in text.utf16 {
            guard unit <= 0xFF else { return throwError(ctx, exception, "btoa: the string contains characters outside of the Latin1 range") }
            bytes.append(UInt8(unit))
        }
        let s = JSText.makeString(Base64.encode(bytes))
        defer { JSStringRelease(s) }
        return JSValueMakeString(ctx, s)
    }

    private static let atob: JSObjectCallAsFunctionCallback = { ctx, _, _, count, args, exception in
        let value = argument(ctx, count, args, 0)
        let text = value.flatMap { JSText.string(ctx, $0) } ?? ""
        guard let bytes = Base64.decode(text) else { return throwError(ctx, exception, "atob: the string is not correctly encoded") }
        let s = JSText.makeString(String(decoding: bytes.map { UInt16($0) }, as: UTF16.self))
        defer { JSStringRelease(s) }
        return JSValueMakeString(ctx, s)
    }

    private static let base64DigitsToBase10String: JSObjectCallAsFunctionCallback = { ctx, _, _, count, args, exception in
        guard let value = argument(ctx, count, args, 0), JSValueIsObject(ctx, value), let array = JSValueToObject(ctx, value, nil) else {
            return throwError(ctx, exception, "base64DigitsToBase10String: expected an array of numbers")
        }
        let lengthName = JSStringCreateWithUTF8CString("length")
        defer { JSStringRelease(lengthName) }
        let length = Int(JSValueToNumber(ctx, JSObjectGetProperty(ctx, array, lengthName, nil), nil))
        var digits: [Int] = []
        for i in 0..<max(0, min(length, 4096)) {
            let n = JSValueToNumber(ctx, JSObjectGetPropertyAtIndex(ctx, array, UInt32(i), nil), nil)
            guard n.isFinite, n >= 0, n < 64 else {
                return throwError(ctx, exception, "base64DigitsToBase10String: element \(i) is not a base-64 digit")
            }
            digits.append(Int(n))
        }
        let s = JSText.makeString(BigDecimal.fromBase64Digits(digits))
        defer { JSStringRelease(s) }
        return JSValueMakeString(ctx, s)
    }
}

/// String conversion helpers (JSChar is UInt16 on both platforms).
enum JSText {
    static func makeString(_ s: String) -> JSStringRef {
        let units = Array(s.utf16)
        return units.withUnsafeBufferPointer { JSStringCreateWithCharacters($0.baseAddress, $0.count) }
    }

    static func string(_ ctx: JSContextRef?, _ value: JSValueRef) -> String? {
        guard let js = JSValueToStringCopy(ctx, value, nil) else { return nil }
        defer { JSStringRelease(js) }
        let length = JSStringGetLength(js)
        guard let chars = JSStringGetCharactersPtr(js) else { return "" }
        let units = UnsafeBufferPointer(start: chars, count: length)
        // Answers are app links, nearly always ASCII: copied unit for unit, without transcoding.
        if !units.contains(where: { $0 >= 0x80 }) {
            return String(unsafeUninitializedCapacity: length) { bytes in
                for i in 0..<length { bytes[i] = UInt8(truncatingIfNeeded: units[i]) }
                return length
            }
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// A number property of `object` (0 when absent).
    static func number(_ ctx: JSContextRef, _ object: JSObjectRef, _ name: String) -> Double {
        let key = JSStringCreateWithUTF8CString(name)
        defer { JSStringRelease(key) }
        guard let value = JSObjectGetProperty(ctx, object, key, nil) else { return 0 }
        let n = JSValueToNumber(ctx, value, nil)
        return n.isFinite ? n : 0
    }

    static func describe(_ ctx: JSContextRef?, _ value: JSValueRef) -> String {
        string(ctx, value) ?? "unknown error"
    }
}
