import SwitchyardCore
import Foundation
import Testing
@testable import LinkRules
#if canImport(CJavaScriptCore)
import CJavaScriptCore
#endif

/// A fetcher that answers from a table and records what it was asked.
final class RecordingFetcher: Fetcher, @unchecked Sendable {
    let lock = NSLock()
    var requests: [String] = []
    let responses: [String: String]

    init(_ responses: [String: String]) { self.responses = responses }

    func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
        lock.withLock { requests.append(request.url) }
        guard let body = responses[request.url] else { throw FetchError(code: ErrorCode("network-error"), message: "no route to \(request.url)") }
        return FetchResponse(status: 200, body: Array(body.utf8), url: request.url)
    }
}

@Suite struct ScriptRuntimeTests {
    let offline = ScriptRuntime(fetcher: OfflineFetcher(), timeLimit: 0.5)

    @Test func returnsTheCompletionValue() async {
        let script = "function process(url, completionHandler) { completionHandler('app://' + url.split('/').pop()); }"
        #expect(await offline.run(script, input: "https://e.example/a/b/42") == .success("app://42"))
        let nullScript = "function process(url, completionHandler) { completionHandler(null); }"
        #expect(await offline.run(nullScript, input: "x") == .success(nil))
    }

    /// `run`, or nil when it has not returned within `seconds` of wall time (a script that is
    /// never stopped would otherwise hang the suite).
    static func run(_ runtime: ScriptRuntime, _ script: String, _ input: String, within seconds: Double) async -> Result<String?, ScriptError>? {
        await withTaskGroup(of: Result<String?, ScriptError>?.self) { group in
            group.addTask { await runtime.run(script, input: input) }
            group.addTask { try? await Task.sleep(for: .seconds(seconds)); return nil }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
    }

    #if canImport(CJavaScriptCore)
    /// Polling traps (see `JSPlatform.configured`) are on once a script ran, and the environment
    /// was left alone: it is set through JavaScriptCore's option API, since changing `environ`
    /// while other threads read it is a data race.
    @Test func pollingTrapsAreOnWithoutTouchingTheEnvironment() async {
        #expect(await offline.run("function process(url, completionHandler) { completionHandler('ok') }", input: "x") == .success("ok"))
        var on: Int32 = 0
        #expect(jsc_options_get_boolean("usePollingTraps", &on) != 0 && on != 0)
        #expect(ProcessInfo.processInfo.environment["JSC_usePollingTraps"] == nil)
    }
    #endif

    @Test func infiniteLoopIsStoppedWithinTheLimitAndTheContextSurvives() async {
        let script = "var calls = 0; function process(url, completionHandler) { calls++; if (url == 'loop') { while (true) {} } completionHandler('ok ' + calls); }"
        let start = Date()
        // The limit counts the script thread's CPU time: alone it stops after about 0.5 s, but
        // while the whole suite (and 100,000-line batches in child processes) share the two
        // cores the wall time stretches many times, so the upper bound here is generous.
        let result = await Self.run(offline, script, "loop", within: 60)
        let elapsed = Date().timeIntervalSince(start)
        #expect(result?.failureValue?.code == .scriptTimeout, "not stopped within 60 s")
        #expect(elapsed >= 0.4, "stopped after \(elapsed) s with a 0.5 s limit")
        // Same context, same process: the next call works and the limit re-arms.
        #expect(await offline.run(script, input: "fine") == .success("ok 2"))
        #expect(await Self.run(offline, script, "loop", within: 60)?.failureValue?.code == .scriptTimeout)
    }

    @Test func aScriptPastItsMemoryLimitFailsWithScriptMemoryAndItsContextIsRenewed() async {
        let runtime = ScriptRuntime(fetcher: OfflineFetcher(), timeLimit: 30, memoryLimit: 64 * 1_048_576)
        let script = """
            var calls = 0;
            function process(url, done) {
                calls++;
                if (url == 'hog') { var a = []; while (true) a.push(new Array(1e5).fill(calls)); }
                if (url == 'typed') { var b = []; while (true) { var t = new Float64Array(1e6); t.fill(1); b.push(t); } }
                done('ok ' + calls);
            }
            """
        #expect(await runtime.run(script, input: "fine") == .success("ok 1"))
        let hog = await Self.run(runtime, script, "hog", within: 120)
        #expect(hog?.failureValue?.code == .scriptMemory, "\(String(describing: hog))")
        #expect(hog?.failureValue?.message.contains("64 MB") == true)
        // A new context (globals start again), in the same process.
        #expect(await runtime.run(script, input: "fine") == .success("ok 1"))
        #expect(await Self.run(runtime, script, "typed", within: 120)?.failureValue?.code == .scriptMemory)
        #expect(await runtime.run(script, input: "fine") == .success("ok 1"))
        // A top level that allocates without end is stopped the same way.
        #expect(await runtime.run("var a = []; while (true) a.push(new Array(1e5).fill(0));", input: "x").failureValue?.code == .scriptMemory)
    }

    @Test func aNeighbourRunningWhileAScriptHogsMemoryIsNotStopped() async {
        let runtime = ScriptRuntime(fetcher: OfflineFetcher(), timeLimit: 60, memoryLimit: 64 * 1_048_576)
        let hog = "function process(url, done) { var a = []; while (true) a.push(new Array(1e5).fill(1)); }"
        // Long enough to tick many times while the hog grows the process.
        let busy = "function process(url, done) { var x = 0; for (var i = 0; i < 2e8; i++) { x = (x + i) % 1000003; } done('sum ' + x); }"
        async let hogged = runtime.run(hog, input: "x")
        async let neighbour = runtime.run(busy, input: "x")
        let (h, n) = await (hogged, neighbour)
        #expect(h.failureValue?.code == .scriptMemory)
        #expect((try? n.get())??.hasPrefix("sum ") == true, "\(n)")
    }

    @Test func memoryKeptBetweenCallsIsBoundedToo() async {
        let runtime = ScriptRuntime(fetcher: OfflineFetcher(), timeLimit: 30, memoryLimit: 32 * 1_048_576)
        // Each call keeps about 0.8 MB: no single evaluation runs long, but the heap grows.
        let script = "var keep = []; function process(url, done) { keep.push(new Array(1e5).fill(keep.length)); done('kept ' + keep.length); }"
        var failures: [Int] = []
        for i in 1...600 {
            if case .failure(let e) = await runtime.run(script, input: "x") {
                #expect(e.code == .scriptMemory)
                failures.append(i)
            }
        }
        // Checked with the collection every 256 calls: the first at call 256 (about 200 MB kept
        // by then would be over any limit under 200 MB), then the context starts again.
        #expect(failures == [256, 512], "\(failures)")
    }

    @Test func topLevelInfiniteLoopIsStoppedToo() async {
        let result = await offline.run("while (true) {}", input: "x")
        #expect(result.failureValue?.code == .scriptTimeout)
    }

    @Test func exceptionFailsTheFormatWithItsMessage() async {
        let result = await offline.run("function process(url, completionHandler) { throw new Error('boom ' + url); }", input: "u")
        #expect(result.failureValue?.code == .scriptException)
        #expect(result.failureValue?.message.contains("boom u") == true)
    }

    @Test func completionNeverCalled() async {
        let result = await offline.run("function process(url, completionHandler) { var x = 1; }", input: "u")
        #expect(result.failureValue?.code == .completionNotCalled)
    }

    @Test func syntaxErrorAndMissingProcessAreReported() async {
        #expect(await offline.run("function process(url, completionHandler) {", input: "u").failureValue?.code == .scriptSyntax)
        #expect(await offline.run("function other() {}", input: "u").failureValue?.code == .scriptWithoutProcess)
    }

    @Test func offlineRefusesNetworkHelpersEvenIfTheScriptCatches() async {
        let script = "function process(url, completionHandler) { try { httpRequest(url); } catch (e) { } completionHandler('swallowed'); }"
        let result = await offline.run(script, input: "https://example.com/")
        #expect(result.failureValue?.code == .networkDisabled)
        let json = await offline.run("function process(url, completionHandler) { completionHandler(jsonRequest(url).a); }", input: "https://example.com/")
        #expect(json.failureValue?.code == .networkDisabled)
    }

    @Test func scriptsDoNotShareGlobals() async {
        let writer = "var shared = 'mine'; function process(url, completionHandler) { completionHandler(shared); }"
        let reader = "function process(url, completionHandler) { completionHandler(typeof shared); }"
        #expect(await offline.run(writer, input: "") == .success("mine"))
        #expect(await offline.run(reader, input: "") == .success("undefined"))
        #expect(offline.contextCount >= 2)
    }

    @Test func helpers() async {
        let b64 = "function process(url, completionHandler) { completionHandler(btoa(url) + ' ' + atob(btoa(url))); }"
        #expect(await offline.run(b64, input: "hello, world") == .success("aGVsbG8sIHdvcmxk hello, world"))
        let bad = "function process(url, completionHandler) { completionHandler(btoa('\\u20ac')); }"
        #expect(await offline.run(bad, input: "").failureValue?.code == .scriptException)
        // 'B' 'A' '_' in the base-64 alphabet are 1, 0, 63: 1*64^2 + 0*64 + 63 = 4159.
        let digits = "function process(url, completionHandler) { completionHandler(base64DigitsToBase10String([1, 0, 63])); }"
        #expect(await offline.run(digits, input: "") == .success("4159"))
        // Beyond 2^53: 11 digits of 63 = 64^11 - 1.
        let big = "function process(url, completionHandler) { var d = []; for (var i = 0; i < 11; i++) d.push(63); completionHandler(base64DigitsToBase10String(d)); }"
        #expect(await offline.run(big, input: "") == .success("73786976294838206463"))
    }

    @Test func networkHelpersGoThroughTheInjectedFetcher() async {
        let fetcher = RecordingFetcher(["https://api.example/x": #"{"deep": {"link": "app://x"}}"#, "https://page.example/": "<a href=\"app://p\">"])
        // Not about time limits: roomy ones, so they hold on a machine starved by the parallel suite
        // (a 20 s wall-clock limit was once exceeded there, in CI).
        let runtime = ScriptRuntime(fetcher: fetcher, timeLimit: 30, wallLimit: 120)
        let json = "function process(url, completionHandler) { completionHandler(jsonRequest('https://api.example/x').deep.link); }"
        let first = await runtime.run(json, input: "")
        #expect(first == .success("app://x"), "\(first)")
        let html = "function process(url, completionHandler) { completionHandler(/(app:\\/\\/\\w+)/.exec(httpRequest(url))[1]); }"
        #expect(await runtime.run(html, input: "https://page.example/") == .success("app://p"))
        // A transport failure gives null to the script, which may cope with it.
        let missing = "function process(url, completionHandler) { completionHandler(httpRequest('https://gone.example/') === null ? 'fallback' : 'body'); }"
        #expect(await runtime.run(missing, input: "") == .success("fallback"))
        #expect(fetcher.requests == ["https://api.example/x", "https://page.example/", "https://gone.example/"])
    }

    @Test func engineReportsScriptFailuresPerFormatOnly() async throws {
        let manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "a", "name": "A", "scheme": "a"}, {"identifier": "b", "name": "B", "scheme": "b"}, {"identifier": "c", "name": "C", "scheme": "c"}],
             "actions": [{"title": "T", "regex": "https://x\\.example/(\\d+)", "formats": [
                {"appId": "a", "script2": "function process(url, completionHandler) { while (true) {} }"},
                {"appId": "b", "format": "b://$1"},
                {"appId": "c", "script": "function process(url, completionHandler) { }"}]}]}
            """#)
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true, scriptTimeLimit: 0.3))
        let r = await engine.resolve("https://x.example/7")
        #expect(r.actions.map(\.appId) == ["a", "b", "c"])
        #expect(r.actions[0].error?.code == .scriptTimeout)
        #expect(r.actions[1].url == "b://7")
        #expect(r.actions[2].error?.code == .legacyScriptUnsupported)
    }
}
