import SwitchyardCore
import Foundation
import Testing
@testable import LinkRules

/// Answers HEAD requests with scripted redirects.
final class RedirectingFetcher: Fetcher, @unchecked Sendable {
    let hops: [String: String]
    let lock = NSLock()
    var seen: [String] = []
    init(_ hops: [String: String]) { self.hops = hops }
    func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
        lock.withLock { seen.append("\(request.method.rawValue) \(request.url)") }
        if let next = hops[request.url] { return FetchResponse(status: 301, headers: [("location", next)], url: request.url) }
        return FetchResponse(status: 200, url: request.url)
    }
}

@Suite struct EngineTests {
    let manifest: Manifest

    init() throws {
        manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "tw", "name": "Tw", "scheme": "tw"}, {"identifier": "h", "name": "H", "scheme": "h"}],
             "actions": [
                {"title": "Status", "regex": "^https://tw\\.example/\\w+/status/(\\d+)$", "formats": [{"appId": "tw", "format": "tw://status?id=$1"}]},
                {"title": "Any tw", "regex": "^https://tw\\.example/.*$", "formats": [{"appId": "tw", "format": "tw://open"}]},
                {"title": "Header", "headers": 1, "regex": "^https://[a-z.]+/@(\\w+)\\n.*\"X-Kind\":\"h\".*$", "formats": [{"appId": "h", "format": "h://user/$1"}]}],
             "browsers": [{"name": "Web", "identifier": "web", "scheme": "https", "regex": "^https?://.+$", "format": "$0"}],
             "previews": [{"regex": "^https://tw\\.example/\\w+/status/(\\d+)$", "format": "https://img.example/$1.jpg", "canSave": 1}],
             "redirects": {"^https://wrap\\.example/\\?": {"param": "to"}}}
            """#)
    }

    @Test func everyFormatOfEveryMatchingActionInManifestOrder() async {
        let r = await LinkEngine(manifest: manifest, options: .init(offline: true)).resolve("https://tw.example/jack/status/20")
        #expect(r.actions.map(\.action) == [0, 1])
        #expect(r.actions.map(\.url) == ["tw://status?id=20", "tw://open"])
        #expect(r.browsers.map(\.url) == ["https://tw.example/jack/status/20"])
        #expect(r.unwrapped == nil)
    }

    @Test func headerActionsSeeURLNewlineAndHeadersJSON() async {
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
        #expect(await engine.resolve("https://social.example/@ann").actions.isEmpty)
        let r = await engine.resolve("https://social.example/@ann", headers: [("X-Kind", "h")])
        #expect(r.actions.map(\.url) == ["h://user/ann"])
        #expect(LinkEngine.headerInput("u", [("A", "b\"c")]) == "u\n{\"A\":\"b\\\"c\"}")
    }

    /// `resolve --header`: a field name (an HTTP token), a colon, a value without line breaks;
    /// spaces and tabs around either side are not part of it.
    @Test func aHeaderArgumentIsAFieldNameAndAOneLineValue() {
        #expect(LinkEngine.header(argument: " Server :\tMastodon ")! == ("Server", "Mastodon"))
        #expect(LinkEngine.header(argument: "X-Empty:")! == ("X-Empty", ""))
        #expect(LinkEngine.header(argument: "A: b:c")! == ("A", "b:c"))
        for refused in ["NoColon", ": v", "Two Words: v", "A: b\r\nInjected: x", "\u{2003}A: v", "Ä: v", "A: \u{7F}"] {
            #expect(LinkEngine.header(argument: refused) == nil, "\(refused)")
        }
    }

    @Test func unwrapsWithTheTableWhenNothingMatches() async {
        let r = await LinkEngine(manifest: manifest, options: .init(offline: true)).resolve("https://wrap.example/?to=https%3A%2F%2Ftw.example%2Fa%2Fstatus%2F5")
        #expect(r.unwrapped == "https://tw.example/a/status/5")
        #expect(r.actions.first?.url == "tw://status?id=5")
    }

    @Test func followsHTTPRedirectsWithHEADWhenOnline() async {
        let fetcher = RedirectingFetcher(["https://short.example/x": "https://mid.example/y", "https://mid.example/y": "/z", "https://mid.example/z": "https://tw.example/b/status/9"])
        // A generous network timeout: the whole unwrap shares it, and a test run that keeps the
        // cooperative pool busy can hold a hop back for seconds.
        let engine = LinkEngine(manifest: manifest, options: .init(fetcher: fetcher, networkTimeout: 3600))
        let r = await engine.resolve("https://short.example/x")
        #expect(r.unwrapped == "https://tw.example/b/status/9")
        #expect(r.actions.first?.url == "tw://status?id=9")
        // The last hop is not fetched: a rule already handles it.
        #expect(fetcher.seen == ["HEAD https://short.example/x", "HEAD https://mid.example/y", "HEAD https://mid.example/z"])
    }

    @Test func anEngineAndItsThreadsGoAwayWhenDropped() async {
        weak var executor: ScriptExecutor?
        do {
            let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
            executor = engine.executor
            _ = await engine.resolve("https://tw.example/jack/status/20")
            _ = await engine.resolve(batch: ["https://tw.example/a/status/1", "https://wrap.example/?to=x"])
            #expect(executor != nil)
        }
        // The pool's thread lets go of its last job a moment after the job resumed the caller.
        for _ in 0..<200 where executor != nil { try? await Task.sleep(for: .milliseconds(10)) }
        #expect(executor == nil, "the engine's thread pool outlived the engine")
    }

    @Test func redirectHopsAreBoundedAndLoopsStopAtOnce() async {
        let chain = RedirectingFetcher(["https://a.example/": "https://b.example/", "https://b.example/": "https://c.example/",
                                        "https://c.example/": "https://d.example/", "https://d.example/": "https://e.example/"])
        let long = await LinkEngine(manifest: manifest, options: .init(maximumRedirectHops: 3, fetcher: chain, networkTimeout: 3600)).resolve("https://a.example/")
        #expect(chain.seen.count == 3)
        #expect(long.unwrapped == "https://d.example/")
        #expect(long.unwrapStopped == "stopped after 3 redirects, the limit; the chain may go on")
        let loop = RedirectingFetcher(["https://a.example/": "https://b.example/", "https://b.example/": "https://a.example/"])
        let looped = await LinkEngine(manifest: manifest, options: .init(maximumRedirectHops: 3, fetcher: loop, networkTimeout: 3600)).resolve("https://a.example/")
        #expect(loop.seen.count == 2)
        #expect(looped.unwrapped == "https://b.example/")
        #expect(looped.unwrapStopped == "a redirect loop (back to https://a.example/)")
    }

    /// A browser never follows a redirect (or a wrapper link) to `javascript:` or `file:`: such a
    /// target is not reported as the unwrapped URL, from an HTTP redirect or from the table.
    @Test(arguments: ["javascript:alert(document.cookie)", "JavaScript:alert(1)", "file:///etc/passwd", "data:text/html,<b>x</b>"])
    func aRedirectToAScriptOrALocalFileIsNotTheUnwrappedURL(_ target: String) async {
        let fetcher = RedirectingFetcher(["https://short.example/x": target])
        let followed = await LinkEngine(manifest: manifest, options: .init(fetcher: fetcher)).resolve("https://short.example/x")
        #expect(followed.unwrapped == nil)
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let table = await LinkEngine(manifest: manifest, options: .init(offline: true)).resolve("https://wrap.example/?to=\(encoded)")
        #expect(table.unwrapped == nil)
        // A redirect to an app's own scheme still counts.
        let app = RedirectingFetcher(["https://short.example/x": "tw://status?id=1"])
        #expect(await LinkEngine(manifest: manifest, options: .init(fetcher: app)).resolve("https://short.example/x").unwrapped == "tw://status?id=1")
    }

    /// A wrapper whose parameter holds no link (no scheme, or a control character such as a line
    /// break or an escape sequence) is not unwrapped: the URL stays as it is.
    @Test(arguments: ["\u{1B}]0;pwned\u{7}", "https://x.example/\nfake line", "not a link", "https://x.example/\u{9B}2J"])
    func aWrapperAroundSomethingThatIsNoLinkIsNotUnwrapped(_ target: String) async {
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
        let input = "https://wrap.example/?to=\(encoded)"
        #expect(engine.unwrap(input) == input)
        #expect(await engine.resolve(input).unwrapped == nil)
    }

    /// A wrapper's decoded parameter may hold a raw space or quote ("…/a b"): the unwrapped URL is
    /// the one a browser goes to ("…/a%20b"), never text with a space in it. A target that is
    /// already a plain URL is returned as written.
    @Test(arguments: [
        ("https://x.example/a b?q=1 2", "https://x.example/a%20b?q=1%202") as (String, String?),
        ("https://x.example/say\"hi\"<b>", "https://x.example/say%22hi%22%3Cb%3E"),
        ("https://x.example/caf\u{E9}", "https://x.example/caf%C3%A9"),
        ("tw://status?text=a b", "tw://status?text=a%20b"),
        ("https://x.example/Plain?A=B", "https://x.example/Plain?A=B"),
        ("HTTPS://X.example/as-written", "HTTPS://X.example/as-written"),
        ("https://x.example/x?q='a'#'f'", "https://x.example/x?q=%27a%27#'f'"),
        // A host a browser refuses: not unwrapped at all.
        ("https://ex ample.com/x", nil), ("https://exa<mple.com/x", nil), ("tw://us er/x", nil),
        // …also when nothing else in it needs encoding.
        ("https://ex%20ample.com/x", nil), ("https://ex^ample.com/x", nil), ("https://ex%00ample.com/x", nil),
        ("https://256.256.256.256/x", nil), ("https://a.example:99999/x", nil), ("https://[zz]/x", nil),
    ])
    func anUnwrappedTargetIsTheURLABrowserGoesTo(_ target: String, _ expected: String?) async {
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
        let input = "https://wrap.example/?to=\(encoded)"
        #expect(engine.unwrap(input) == expected ?? input)
        #expect(await engine.resolve(input).unwrapped == expected)
    }

    /// The whole unwrap is bounded by the network timeout, not each hop: every hop is asked to end
    /// by one deadline, and no hop is sent after it.
    @Test func redirectFollowingSharesOneDeadline() async {
        final class SlowFetcher: Fetcher, @unchecked Sendable {
            let lock = NSLock()
            var deadlines: [ContinuousClock.Instant?] = []
            var firstCall: ContinuousClock.Instant?
            func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
                lock.withLock {
                    deadlines.append(request.deadline)
                    if firstCall == nil { firstCall = .now }
                }
                try? await Task.sleep(for: .milliseconds(200))
                return FetchResponse(status: 302, headers: [("location", request.url + "x")], url: request.url)
            }
        }
        let fetcher = SlowFetcher()
        let engine = LinkEngine(manifest: manifest, options: .init(maximumRedirectHops: 50, fetcher: fetcher, networkTimeout: 2))
        let start = ContinuousClock.now
        _ = await engine.resolve("https://a.example/")
        let ended = ContinuousClock.now
        let (deadlines, firstCall) = fetcher.lock.withLock { (fetcher.deadlines, fetcher.firstCall) }
        // 2 s of 0.2 s hops: ten or eleven, never 50; fewer when a busy test run holds hops back.
        #expect(deadlines.count <= 11, "\(deadlines.count) hops")
        guard let deadline = deadlines.first ?? nil, let firstCall else {
            // No hop at all is right only when the resolve was held back past its deadline
            // before it could send one.
            #expect(deadlines.isEmpty && ended - start >= .seconds(2), "\(deadlines.count) hops, \(ended - start)")
            return
        }
        #expect(Set(deadlines.compactMap { $0 }).count == 1 && !deadlines.contains(nil))
        // The deadline is the network timeout from when the resolve began: after this call
        // (the executor may start it late in a busy run), and before the first hop was sent.
        #expect(deadline - start >= .seconds(2), "the deadline is the network timeout from the start")
        #expect(deadline - firstCall <= .seconds(2), "the deadline was set before the first hop, not per hop")
    }

    @Test func previews() async {
        let p = await LinkEngine(manifest: manifest, options: .init(offline: true)).previews(for: "https://tw.example/jack/status/20")
        #expect(p == [PreviewResult(preview: 0, url: "https://img.example/20.jpg", canSave: true, error: nil)])
    }

    @Test func jsonLineFollowsTheContract() async {
        let r = await LinkEngine(manifest: manifest, options: .init(offline: true)).resolve("https://tw.example/jack/status/20")
        #expect(JSONWriter.compact(r.json) == #"{"input":"https://tw.example/jack/status/20","actions":[{"action":0,"title":"Status","format":0,"appId":"tw","url":"tw://status?id=20","error":null},{"action":1,"title":"Any tw","format":0,"appId":"tw","url":"tw://open","error":null}],"browsers":[{"browser":0,"appId":"web","url":"https://tw.example/jack/status/20","error":null}],"unwrapped":null}"#)
    }

    /// `resolve --json` writes `jsonLine`, which must be exactly the contract's value written
    /// compactly: every field, errors, a stopped unwrap, and text that needs escaping.
    @Test func theWrittenLineIsTheCompactJSON() async {
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
        for input in ["https://tw.example/jack/status/20", "https://wrap.example/?to=https%3A%2F%2Ftw.example%2Fa%2Fstatus%2F5", "https://other.example/\u{202E}\"x\\", "nope"] {
            let r = await engine.resolve(input)
            #expect(r.jsonLine == JSONWriter.compact(r.json), "\(input)")
        }
        let crafted = Resolution(
            input: "https://a.example/\u{1B}[2J",
            actions: [ActionResult(action: 3, title: "T \"q\"", format: 1, appId: "a", url: nil, error: ScriptError(code: .scriptTimeout, message: "ran \u{2028} long"))],
            browsers: [BrowserResult(browser: 0, appId: "b", url: "b://x", error: nil), BrowserResult(browser: 2, appId: "c", url: nil, error: nil)],
            unwrapped: "https://b.example/", unwrapStopped: "the hop limit (10)")
        #expect(crafted.jsonLine == JSONWriter.compact(crafted.json))
        let empty = Resolution(input: "", actions: [], browsers: [], unwrapped: nil)
        #expect(empty.jsonLine == JSONWriter.compact(empty.json))
    }

    /// A result's scheme is read from its bytes; the reading by characters decides the same.
    @Test func aDangerousSchemeIsFoundAsTheCharacterReadingFindsIt() {
        let texts = ["JavaScript:alert(1)", "javascript:", "DATA:text/html,x", "view-source:https://a", "FileSystem:x", "jar:x", "vbscript:x",
                     "http://a", "twitter://status", "java\u{0}script:x", "ja\u{301}vascript:x", "\u{212A}:x", "", ":", "javascript",
                     "javascripts:x", "\u{FF2A}avascript:x", "blob:", "view-source", "filesystemx:y", "éfile:x", "file\u{301}:x"]
        for text in texts {
            #expect(LinkEngine.dangerousScheme(text) == LinkEngine.dangerousSchemeSlowly(text), "\(text.debugDescription)")
        }
        #expect(LinkEngine.dangerousScheme("JavaScript:alert(1)") == "javascript" && LinkEngine.dangerousScheme("twitter://x") == nil)
    }
}
