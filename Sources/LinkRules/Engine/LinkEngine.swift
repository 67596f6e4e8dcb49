import Foundation
import SwitchyardCore
import PatternMatching
/// Turns web links into app links with an Opener-format manifest.
///
/// ```swift
/// let engine = LinkEngine(manifest: try Manifest(contentsOf: path), options: .init(offline: true))
/// for r in await engine.resolve("https://twitter.com/jack/status/20").actions {
///     print(r.appId, r.url ?? r.error?.message ?? "null")
/// }
/// ```
///
/// Safe to use from several tasks at once. Everything that can block — matching, scripts in
/// JavaScriptCore, the network calls scripts and redirect following make — runs on the engine's
/// own threads (`executor`), so calling it from an event loop never blocks that loop.
public struct LinkEngine: Sendable {
    /// How an engine runs: network access, time and memory limits, matching, threads, script isolation.
    public struct Options: Sendable {
        /// When true every network helper fails with `network-disabled` and redirects are not followed.
        public var offline: Bool
        /// Seconds one script evaluation may run.
        public var scriptTimeLimit: Double
        /// Bytes one script's heap may hold (`script-memory` past it).
        public var scriptMemoryLimit: Double
        /// Allow scripts and redirect following to reach loopback/private addresses (read by the
        /// fetcher that `withHTTPFetcher()` makes).
        public var allowPrivateAddresses: Bool
        /// Use the literal index for the actions and the redirect table (true) or try every regex
        /// (false, the reference behaviour).
        public var useIndex: Bool
        /// HTTP redirects followed with HEAD when unwrapping.
        public var maximumRedirectHops: Int
        /// How scripts and redirect following reach the network. LinkRules has no HTTP client of
        /// its own: pass one (`SwitchyardNetwork`'s `HTTPFetcher`, which `withHTTPFetcher()` sets up
        /// from `allowPrivateAddresses` and `networkTimeout`, or your own). Without one, and not
        /// `offline`, every request fails with `network-unavailable`.
        public var fetcher: (any Fetcher)?
        /// Threads for matching and scripts (default: one per core). Engines may share one.
        public var executor: ScriptExecutor?
        /// Seconds one network call may take, its redirects included (a script's helper call, read
        /// by the fetcher that `withHTTPFetcher()` makes), and the whole of HEAD redirect following
        /// when unwrapping (every hop together).
        public var networkTimeout: Double
        /// Seconds one regex evaluation may take; a regex that runs longer fails what it was for
        /// with `regex-timeout` (an action's formats, a browser, a preview) or, in the redirect
        /// table, counts as not matching.
        public var regexTimeLimit: Double
        /// Where scripts run (in process by default; `switchyard` uses worker processes).
        public var scriptIsolation: ScriptIsolation

        /// Options; by default online with no fetcher, 15 s per script, 0.1 s per regex, 10 s per request, 5
        /// redirect hops, the literal index, scripts in process.
        public init(
            offline: Bool = false, scriptTimeLimit: Double = 15, allowPrivateAddresses: Bool = false, useIndex: Bool = true,
            maximumRedirectHops: Int = 5, fetcher: (any Fetcher)? = nil, executor: ScriptExecutor? = nil, networkTimeout: Double = 10,
            regexTimeLimit: Double = Pattern.defaultTimeLimit, scriptMemoryLimit: Double = ScriptRuntime.defaultMemoryLimit,
            scriptIsolation: ScriptIsolation = .inProcess
        ) {
            self.scriptIsolation = scriptIsolation
            self.scriptMemoryLimit = scriptMemoryLimit
            self.regexTimeLimit = regexTimeLimit
            self.executor = executor
            self.networkTimeout = networkTimeout
            self.offline = offline
            self.scriptTimeLimit = scriptTimeLimit
            self.allowPrivateAddresses = allowPrivateAddresses
            self.useIndex = useIndex
            self.maximumRedirectHops = maximumRedirectHops
            self.fetcher = fetcher
        }
    }

    /// The rules the engine resolves with.
    public let manifest: Manifest
    /// The options the engine was made with.
    public let options: Options
    /// The runtime that runs the manifest's `script2` sources, set up from `options`.
    public let scripts: ScriptRuntime
    let actionIndex: PatternIndex
    let unwrapper: Unwrapper
    /// Turns for redirect following's requests, shared by every batch of this engine.
    let fetchSlots = FetchSlots(perHost: LinkEngine.redirectRequestsPerHost, total: LinkEngine.redirectRequests)

    /// Redirect following's requests in flight to one host at once (as a browser limits its
    /// connections to a host).
    public static let redirectRequestsPerHost = 8
    /// Redirect following's requests in flight at once, all hosts together.
    public static let redirectRequests = 64

    /// An engine for `manifest`: builds the action index and the script runtime (an offline engine's
    /// scripts get a fetcher that refuses every request).
    public init(manifest: Manifest, options: Options = Options()) {
        self.manifest = manifest
        self.options = options
        let fetcher: any Fetcher = options.offline ? OfflineFetcher() : (options.fetcher ?? UnconfiguredFetcher())
        self.scripts = ScriptRuntime(fetcher: fetcher, timeLimit: options.scriptTimeLimit, memoryLimit: options.scriptMemoryLimit, executor: options.executor,
                                    isolation: options.scriptIsolation, wallLimit: 2 * options.scriptTimeLimit + options.networkTimeout)
        self.actionIndex = PatternIndex(patterns: manifest.actions.map(\.pattern))
        self.unwrapper = Unwrapper(rules: manifest.redirects, regexBudget: options.regexTimeLimit, indexed: options.useIndex)
    }

    /// The threads the engine's blocking work runs on.
    public var executor: ScriptExecutor { scripts.executor }

    /// Runs `work` with the engine on its executor, where the synchronous parts of the engine
    /// may be used (the manifest test runner runs its cases this way).
    public func onExecutor<T: Sendable>(_ work: @escaping @Sendable (LinkEngine) -> T) async -> T {
        await executor.run { work(self) }
    }

    /// Applies a format's or browser's transform to `input`.
    public func apply(_ transform: Manifest.Transform, pattern: Pattern, to input: String) async -> Result<String?, ScriptError> {
        await onExecutor { $0.applyOnExecutor(transform, pattern: pattern, to: input) }
    }

    /// `matches`: the search a caller already made for `pattern` on `input` (its result, or its timeout).
    func applyOnExecutor(_ transform: Manifest.Transform, pattern: Pattern, to input: String,
                         matches: Result<[NSTextCheckingResult], RegexTimeout>? = nil) -> Result<String?, ScriptError> {
        switch transform {
        case .template(let template):
            let ns = input as NSString
            switch matches ?? pattern.allMatches(in: ns, budget: options.regexTimeLimit) {
            case .success(let found): return .success(pattern.replace(found, in: ns, with: template))
            case .failure(let timeout): return .failure(timeout.scriptError)
            }
        case .script(let source): return scripts.runOnExecutor(source, input: input)
        case .legacyScript:
            return .failure(ScriptError(code: .legacyScriptUnsupported, message: "only a legacy \"script\" (XMLHttpRequest) is given; it is not supported, add \"script2\""))
        }
    }

    /// Positions in `manifest.actions` of the actions matching `url` (with `headers`, header actions see the URL, a
    /// newline and the headers as a JSON object).
    /// An action whose regex ran out of its budget counts as not matching here.
    public func matchingActions(_ url: String, headers: [(String, String)] = []) -> [Int] {
        evaluateActions(url, headers: headers).matched
    }

    /// The actions matching `url`, and those whose regex ran out of its budget, both ascending.
    func evaluateActions(_ url: String, headers: [(String, String)]) -> (matched: [Int], timedOut: [Int]) {
        var (found, timedOut) = actionIndex.evaluate(url, budget: options.regexTimeLimit, linear: !options.useIndex)
        if !headers.isEmpty {
            let withHeaders = Self.headerInput(url, headers)
            found = found.filter { !manifest.actions[$0].includeHeaders }
            timedOut = timedOut.filter { !manifest.actions[$0].includeHeaders }
            for (position, a) in manifest.actions.enumerated() where a.includeHeaders {
                switch a.pattern.match(withHeaders, budget: options.regexTimeLimit) {
                case .success(true): found.append(position)
                case .success(false): break
                case .failure: timedOut.append(position)
                }
            }
            found.sort()
            timedOut.sort()
        }
        return (found, timedOut)
    }

    /// A response header written `Name: value` (`resolve --header`), both sides trimmed; nil
    /// without a colon, with a name that is not an HTTP field name, or with a control character
    /// (a line break) in the value.
    public static func header(argument text: String) -> (name: String, value: String)? {
        guard case .success(let pair) = NamedArgument.split(text, at: ":", trimming: true) else { return nil }
        let (name, value) = (pair.name, pair.value)
        let token = Set("!#$%&'*+-.^_`|~".unicodeScalars)
        guard name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || token.contains($0)) }),
              !value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else { return nil }
        return (name, value)
    }

    /// `url + "\n" + {"Name":"value",…}` as header actions expect.
    public static func headerInput(_ url: String, _ headers: [(String, String)]) -> String {
        url + "\n" + JSONWriter.compact(.object(headers.map { ($0.0, JSONValue.string($0.1)) }))
    }

    /// A script call one input needs: the script's source and its input.
    typealias ScriptCall = (source: String, input: String)

    /// A result known now, or waiting for call `i` of the script calls collected for a batch.
    enum Pending {
        case ready(Result<String?, ScriptError>)
        case script(Int)

        func value(_ scripted: [Result<String?, ScriptError>]) -> Result<String?, ScriptError> {
            switch self {
            case .ready(let result): result
            case .script(let i): scripted[i]
            }
        }
    }

    /// Results of every format of the given matching actions; every format of an action in
    /// `timedOut` fails with `regex-timeout`.
    func results(for url: String, actions: [Int], timedOut: [Int] = [], headers: [(String, String)]) -> [ActionResult] {
        var calls: [ScriptCall] = []
        let planned = planResults(for: url, actions: actions, timedOut: timedOut, headers: headers, calls: &calls)
        return Self.finish(planned, calls.isEmpty ? [] : scripts.runManyOnExecutor(calls))
    }

    /// `results(for:…)` up to the scripts: their calls are appended to `calls` (run later, with
    /// those of other inputs: one round trip to a worker for a whole batch).
    func planResults(for url: String, actions: [Int], timedOut: [Int] = [], headers: [(String, String)],
                     calls: inout [ScriptCall]) -> [(ActionResult, Pending)] {
        var out: [(ActionResult, Pending)] = []
        let stopped = Set(timedOut)
        for i in (actions + timedOut).sorted() {
            let action = manifest.actions[i]
            if stopped.contains(i) {
                let error = RegexTimeout(seconds: options.regexTimeLimit).scriptError
                out += action.formats.map {
                    (ActionResult(action: action.index, title: action.title, format: $0.index, appId: $0.appId, url: nil, error: nil), .ready(.failure(error)))
                }
                continue
            }
            let input = action.includeHeaders && !headers.isEmpty ? Self.headerInput(url, headers) : url
            // One search for the action's regex serves all of its template formats, also when it ran out of time.
            let matches = action.formats.contains { if case .template = $0.transform { true } else { false } }
                ? action.pattern.allMatches(in: input as NSString, budget: options.regexTimeLimit) : nil
            for f in action.formats {
                let pending: Pending
                if case .script(let source) = f.transform {
                    pending = .script(calls.count)
                    calls.append((source, input))
                } else {
                    pending = .ready(applyOnExecutor(f.transform, pattern: action.pattern, to: input, matches: matches))
                }
                out.append((ActionResult(action: action.index, title: action.title, format: f.index, appId: f.appId, url: nil, error: nil), pending))
            }
        }
        return out
    }

    /// Planned action or browser results with the answers of their scripts filled in.
    static func finish<R: ScriptedResult>(_ planned: [(R, Pending)], _ scripted: [Result<String?, ScriptError>]) -> [R] {
        planned.map { result, pending in
            var result = result
            let r = checked(pending.value(scripted))
            result.url = try? r.get()
            result.error = r.failureValue
            return result
        }
    }

    /// Browsers that can open `url` (only http and https URLs).
    public func browsers(for url: String) async -> [BrowserResult] {
        await onExecutor { $0.browsersOnExecutor(for: url) }
    }

    func browsersOnExecutor(for url: String) -> [BrowserResult] {
        var calls: [ScriptCall] = []
        let planned = planBrowsers(for: url, calls: &calls)
        return Self.finish(planned, calls.isEmpty ? [] : scripts.runManyOnExecutor(calls))
    }

    /// `browsersOnExecutor` up to the scripts, whose calls are appended to `calls`.
    func planBrowsers(for url: String, calls: inout [ScriptCall]) -> [(BrowserResult, Pending)] {
        let lower = url.prefix(8).lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return [] }
        // Browsers share a handful of regexes (the sample's 22 browsers have 5): search with
        // each distinct one once.
        let ns = url as NSString
        var found: [ObjectIdentifier: Result<[NSTextCheckingResult], RegexTimeout>] = [:]
        var out: [(BrowserResult, Pending)] = []
        for b in manifest.browsers {
            let key = ObjectIdentifier(b.pattern)
            let search = found[key] ?? b.pattern.allMatches(in: ns, budget: options.regexTimeLimit)
            found[key] = search
            if case .success(let m) = search, m.isEmpty { continue }
            let pending: Pending
            switch (search, b.transform) {
            case (.failure(let timeout), _): pending = .ready(.failure(timeout.scriptError))
            case (.success, .script(let source)):
                pending = .script(calls.count)
                calls.append((source, url))
            case (.success, _): pending = .ready(applyOnExecutor(b.transform, pattern: b.pattern, to: url, matches: search))
            }
            out.append((BrowserResult(browser: b.index, appId: b.identifier, url: nil, error: nil), pending))
        }
        return out
    }

    /// Preview image URLs for `url`.
    public func previews(for url: String) async -> [PreviewResult] {
        await onExecutor { engine in
            engine.manifest.previews.compactMap { p in
                switch p.pattern.match(url, budget: engine.options.regexTimeLimit) {
                case .success(true): break
                case .success(false): return nil
                case .failure(let timeout): return PreviewResult(preview: p.index, url: nil, canSave: p.canSave, error: timeout.scriptError)
                }
                let r = LinkEngine.checked(engine.applyOnExecutor(p.transform, pattern: p.pattern, to: url))
                return PreviewResult(preview: p.index, url: try? r.get(), canSave: p.canSave, error: r.failureValue)
            }
        }
    }

    /// One pass of the static redirect table (first matching rule in file order).
    public func unwrap(_ url: String) -> String { unwrapper.unwrap(url) }

    /// Resolves one input: matching actions' formats, browsers, and — when nothing matched — the
    /// URL behind redirect wrappers (static table, then HTTP redirects with HEAD when online).
    public func resolve(_ input: String, headers: [(String, String)] = []) async -> Resolution {
        await resolve(batch: [input], headers: headers)[0]
    }

    /// Resolves several inputs together, in order. Batch callers send a few such chunks at once to
    /// keep every executor thread busy while output stays in input order. The scripts of the
    /// whole batch run together (with worker processes: one round trip), and the batch's links
    /// that need their redirects followed are fetched together, off the executor's threads, so a
    /// slow server holds back only its own batch.
    public func resolve(batch inputs: [String], headers: [(String, String)] = []) async -> [Resolution] {
        await resolve(batch: inputs, headers: headers, profiling: false).0
    }

    /// What a batch's first stage learnt: each input's normalized URL, its matching actions, what
    /// the redirect table unwraps it to when no action took it, and the links to follow (input
    /// position, unwrapped URL).
    private struct Matched: Sendable {
        var urls: [String]
        var evaluated: [(matched: [Int], timedOut: [Int])]
        var unwrapped: [String?]
        var targets: [(Int, String)]
    }

    /// `resolve(batch:headers:)` in three stages: matching on the executor, redirect following
    /// (awaited, holding no executor thread), then formats, browsers and scripts on the executor.
    /// With `profiling`, also the time of each stage.
    func resolve(batch inputs: [String], headers: [(String, String)], profiling: Bool) async -> ([Resolution], ResolveProfile?) {
        let offline = options.offline
        // A batch with nothing to fetch is finished in the same trip to the executor.
        let first = await onExecutor { engine -> (Matched, [Resolution]?, ResolveProfile?) in
            let clock = ContinuousClock.now
            let urls = inputs.map(BrowserURL.normalized)
            let evaluated = urls.map { engine.evaluateActions($0, headers: headers) }
            let evaluatedAt = ContinuousClock.now
            var unwrapped = [String?](repeating: nil, count: urls.count)
            var targets: [(Int, String)] = []
            for (i, url) in urls.enumerated() where evaluated[i].matched.isEmpty && evaluated[i].timedOut.isEmpty {
                let target = engine.unwrap(url)
                unwrapped[i] = target
                if !offline && engine.matchingActions(target, headers: headers).isEmpty { targets.append((i, target)) }
            }
            let matched = Matched(urls: urls, evaluated: evaluated, unwrapped: unwrapped, targets: targets)
            var profile: ResolveProfile? = profiling ? ResolveProfile() : nil
            profile?.matching = evaluatedAt - clock
            profile?.unwrapping = ContinuousClock.now - evaluatedAt
            guard targets.isEmpty else { return (matched, nil, profile) }
            return (matched, engine.resolveOnExecutor(inputs, matched: matched, followed: [:], headers: headers, profile: &profile), profile)
        }
        if let done = first.1 { return (done, first.2) }
        let matched = first.0
        var profile = first.2
        var followed: [Int: (url: String, stopped: String?)] = [:]
        let started = ContinuousClock.now
        let outcomes = await followRedirects(matched.targets.map(\.1), headers: headers)
        for ((i, _), outcome) in zip(matched.targets, outcomes) { followed[i] = outcome }
        profile?.unwrapping += ContinuousClock.now - started
        let finished = await onExecutor { [followed, profile] engine in
            var stages = profile
            return (engine.resolveOnExecutor(inputs, matched: matched, followed: followed, headers: headers, profile: &stages), stages)
        }
        return finished
    }

    /// What is known of one input before its scripts run.
    private struct Planned {
        var input: String
        var unwrapped: String?
        var unwrapStopped: String?
        var actions: [(ActionResult, Pending)]
        var browsers: [(BrowserResult, Pending)]
    }

    /// The last stage of `resolve(batch:)`, on the executor: each input's actions (of the URL it
    /// was unwrapped to, when no action took the link itself), browsers and scripts. With a
    /// `profile`, the time of each stage is added to it.
    private func resolveOnExecutor(_ inputs: [String], matched: Matched, followed: [Int: (url: String, stopped: String?)],
                                   headers: [(String, String)], profile: inout ResolveProfile?) -> [Resolution] {
        var clock = profile == nil ? nil : ContinuousClock.now
        func lap(_ stage: WritableKeyPath<ResolveProfile, Duration>) {
            guard profile != nil, let start = clock else { return }
            let now = ContinuousClock.now
            profile![keyPath: stage] += now - start
            clock = now
        }
        var calls: [ScriptCall] = []
        var planned: [Planned] = []
        planned.reserveCapacity(inputs.count)
        for (index, input) in inputs.enumerated() {
            var url = matched.urls[index]
            var (matchedActions, timedOut) = matched.evaluated[index]
            var unwrapped: String?
            var stopped: String?
            // Unwrapped in the first stage exactly when no action took the link.
            if var target = matched.unwrapped[index] {
                if let outcome = followed[index] { (target, stopped) = outcome }
                if target != url {
                    unwrapped = target
                    url = target
                    (matchedActions, timedOut) = evaluateActions(url, headers: headers)
                }
                lap(\.unwrapping)
            }
            let actions = planResults(for: url, actions: matchedActions, timedOut: timedOut, headers: headers, calls: &calls)
            lap(\.formats)
            let browsers = planBrowsers(for: url, calls: &calls)
            lap(\.browsers)
            planned.append(Planned(input: input, unwrapped: unwrapped, unwrapStopped: stopped, actions: actions, browsers: browsers))
        }
        let scripted = calls.isEmpty ? [] : scripts.runManyOnExecutor(calls)
        lap(\.scripts)
        profile?.inputs += inputs.count
        return planned.map {
            Resolution(input: $0.input, actions: Self.finish($0.actions, scripted), browsers: Self.finish($0.browsers, scripted),
                       unwrapped: $0.unwrapped, unwrapStopped: $0.unwrapStopped)
        }
    }

    /// Resolves `inputs` in batches of `batchSize` as `resolve(batch:)` gets them from the
    /// command line, one batch at a time, and says where the time went, stage by stage (for
    /// benchmarks; `resolve(batch:)` is the way to resolve many inputs).
    public func profile(_ inputs: [String], batchSize: Int = 32) async -> ([Resolution], ResolveProfile) {
        var total = ResolveProfile()
        var results: [Resolution] = []
        var start = 0
        while start < inputs.count {
            let end = min(inputs.count, start + max(1, batchSize))
            let (batch, profile) = await resolve(batch: Array(inputs[start..<end]), headers: [], profiling: true)
            results += batch
            if let profile { total.add(profile) }
            start = end
        }
        return (results, total)
    }

    /// Follows HTTP redirects from each of `urls` with HEAD requests (GET where a server does not
    /// answer HEAD; bounded, every hop address-checked), all chains in flight together: each sends its next hop as soon as its
    /// last answer comes, so a batch of slow links waits about one timeout, not one per link.
    /// The whole unwrap of a batch is bounded by `networkTimeout`: each hop gets what is left, and
    /// none is sent after it. A chain stops early at a URL an action matches (with `headers`), so
    /// it need not be fetched, and at a redirect to a URL a browser never follows
    /// (`javascript:`, `file:`, …). A hop that lands on a wrapper link (l.facebook.com/l.php?u=…)
    /// is unwrapped by the redirect table, as the first URL was, instead of being fetched.
    /// `stopped` says why a chain was cut before its end (the hop limit, the timeout, a request
    /// that failed, the first one included); nil when it ended (an answer that is not a redirect)
    /// or an action took it. Matching and the redirect table run on the executor; the waiting
    /// holds none of its threads.
    public func followRedirects(_ urls: [String], headers: [(String, String)] = []) async -> [(url: String, stopped: String?)] {
        let fetcher = scripts.fetcher
        let seconds = options.networkTimeout.isFinite ? min(max(options.networkTimeout, 0), 86_400) : 86_400
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(seconds * 1000)))
        let timeoutReason = "no answer within the network timeout (\(seconds) s)"
        let maximumHops = options.maximumRedirectHops
        let slots = fetchSlots

        /// One chain, hop by hop.
        @Sendable func follow(_ start: String) async -> (url: String, stopped: String?) {
            var current = start
            var visited: Set<String> = [start]
            var hops = 0
            while true {
                let first = current == start
                // No action takes `current` (the chain would have ended there).
                guard hops < maximumHops else {
                    return (current, "stopped after \(maximumHops) redirects, the limit; the chain may go on")
                }
                guard ContinuousClock.now < deadline else {
                    return (current, first ? "the link itself could not be fetched: \(timeoutReason)" : timeoutReason)
                }
                hops += 1
                let host = BrowserURL.host(current) ?? ""
                // A turn that comes as the time runs out (the requests before it just timed out) is
                // given back unused.
                let turn = await slots.acquire(host, until: deadline)
                guard turn, ContinuousClock.now < deadline else {
                    if turn { await slots.release(host) }
                    let reason = "\(timeoutReason), waiting its turn (\(LinkEngine.redirectRequestsPerHost) requests at a time to one host)"
                    return (current, first ? "the link itself could not be fetched: \(reason)" : reason)
                }
                let fetched: Result<FetchResponse, FetchError>
                do throws(FetchError) {
                    let head = try await fetcher.fetch(FetchRequest(url: current, method: .head, followRedirects: false, deadline: deadline))
                    // A server that does not answer HEAD (405, 501) is asked as a browser asks it.
                    fetched = .success([405, 501].contains(head.status)
                        ? try await fetcher.fetch(FetchRequest(url: current, method: .get, followRedirects: false, deadline: deadline)) : head)
                } catch {
                    fetched = .failure(error)
                }
                await slots.release(host)
                let response: FetchResponse
                switch fetched {
                case .success(let answer): response = answer
                case .failure(let error):
                    // Cut off by the unwrap's own time limit, or failed on its own. Said for the
                    // first request too: a refused address or a name that does not resolve is not
                    // the same as a link no rule knows.
                    let timedOut = ContinuousClock.now >= deadline.advanced(by: .milliseconds(-100))
                    let reason = timedOut ? timeoutReason : error.message
                    return (current, first ? "the link itself could not be fetched: \(reason)" : reason)
                }
                guard FetchResponse.redirectStatuses.contains(response.status), let location = response.header("location") else {
                    return (current, nil)
                }
                guard let next = Unwrapper.resolveReference(location, against: current) else {
                    // A browser would not go anywhere either: said, so it is not taken for the end.
                    return (current, "the redirect's Location \(location.displayExcerpt(limit: 60)) is no URL a browser can follow")
                }
                // Said without the URL itself (it may be script).
                guard !Unwrapper.isNeverFollowed(next) else {
                    return (current, "the redirect goes to a \(URLInput.scheme(of: next) ?? "non-web"): URL, which a browser does not follow")
                }
                guard visited.insert(next).inserted else { return (current, "a redirect loop (back to \(next))") }
                let (unwrapped, taken) = await onExecutor { engine in
                    let unwrapped = engine.unwrap(next)
                    return (unwrapped, !engine.matchingActions(unwrapped, headers: headers).isEmpty)
                }
                visited.insert(unwrapped)
                current = unwrapped
                if taken { return (current, nil) }
            }
        }

        return await withTaskGroup(of: (Int, (url: String, stopped: String?)).self) { group in
            for (i, url) in urls.enumerated() { group.addTask { (i, await follow(url)) } }
            var outcomes = [(url: String, stopped: String?)](repeating: ("", nil), count: urls.count)
            for await (i, outcome) in group { outcomes[i] = outcome }
            return outcomes
        }
    }
}

extension LinkEngine {
    /// `result`, unless it is a string that is not a link: one with a control character (C0, DEL
    /// or C1 — an escape sequence or a newline would rewrite the terminal or forge output lines),
    /// without a scheme, or with a scheme that runs code or reads files (`javascript:`, `file:`,
    /// … `URLInput.scriptOrLocalSchemes`) instead of opening an app. Such a result fails its
    /// format, browser or preview with `invalid-result`; null stays null.
    static func checked(_ result: Result<String?, ScriptError>) -> Result<String?, ScriptError> {
        guard case .success(let text?) = result else { return result }
        if let scheme = Self.dangerousScheme(text) {
            return .failure(ScriptError(code: .invalidResult, message: "the result is a \(scheme): URL, which runs code or reads files instead of opening an app"))
        }
        // The common case decided on the UTF-8 bytes: printable, with a plain scheme.
        var contiguous = text
        if contiguous.withUTF8(Self.isPlainAbsoluteURL) { return result }
        if let (offset, scalar) = text.unicodeScalars.enumerated().first(where: { $0.element.isControlCharacter }) {
            return .failure(ScriptError(code: .invalidResult, message: "the result contains the control character \(String(format: "U+%04X", scalar.value)) at character \(offset); a link is one line of printable text"))
        }
        let scheme = text.unicodeScalars.prefix { $0 != ":" }
        guard let first = scheme.first, ("a"..."z").contains(first) || ("A"..."Z").contains(first), scheme.count < text.unicodeScalars.count,
              scheme.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0) })
        else {
            let excerpt = text.count > 80 ? String(text.prefix(80)) + "…" : text
            return .failure(ScriptError(code: .invalidResult, message: "the result \"\(excerpt)\" is not an absolute URL (it needs a scheme such as app:)"))
        }
        return result
    }
}

extension LinkEngine {
    /// The lower-cased text before the first colon of `text` when it is one of
    /// `URLInput.scriptOrLocalSchemes`, else nil. Only an ASCII prefix no longer than the longest
    /// of them can be one, so most results are decided on their first bytes, with no allocation.
    static func dangerousScheme(_ text: String) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.longestDangerousScheme + 1) { prefix in
            var count = 0
            for b in text.utf8.prefix(Self.longestDangerousScheme + 1) {
                if b == UInt8(ascii: ":") {
                    let scheme = String(decoding: prefix[..<count], as: UTF8.self)
                    return URLInput.scriptOrLocalSchemes.contains(scheme) ? scheme : nil
                }
                guard b < 0x80 else { return Self.dangerousSchemeSlowly(text) }
                prefix[count] = b | ((0x41...0x5A).contains(b) ? 0x20 : 0)
                count += 1
            }
            return nil
        }
    }

    static let longestDangerousScheme = URLInput.scriptOrLocalSchemes.map(\.utf8.count).max() ?? 0

    /// The same decision by characters, for a text with non-ASCII before its first colon.
    static func dangerousSchemeSlowly(_ text: String) -> String? {
        guard let colon = text.firstIndex(of: ":"), case let scheme = text[..<colon].lowercased(), URLInput.scriptOrLocalSchemes.contains(scheme) else { return nil }
        return scheme
    }
}

extension LinkEngine {
    /// True when `bytes` hold no control character (C0, DEL, C1) and start with a scheme
    /// (a letter, then letters, digits, + - .) and a colon: what `checked` accepts, decided
    /// without walking Unicode scalars (the slow path then says why it refuses).
    static func isPlainAbsoluteURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var inScheme = true
        var schemeLength = 0
        var previous: UInt8 = 0
        for b in bytes {
            if b < 0x20 || b == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(b)) { return false }
            previous = b
            guard inScheme else { continue }
            let letter = (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A
            if b == UInt8(ascii: ":") {
                guard schemeLength > 0 else { return false }
                inScheme = false
            } else if schemeLength == 0 ? letter : (letter || (0x30...0x39).contains(b) || b == 0x2B || b == 0x2D || b == 0x2E) {
                schemeLength += 1
            } else {
                return false
            }
        }
        return !inScheme
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}

/// Time spent in each stage of `resolve`, summed over the inputs of a `LinkEngine.profile` run.
public struct ResolveProfile: Sendable, Equatable {
    /// Number of inputs resolved in the profiled run.
    public var inputs = 0
    /// Finding the matching actions (literal index or linear scan).
    public var matching: Duration = .zero
    /// The redirect table and HTTP redirects, for inputs no action matched.
    public var unwrapping: Duration = .zero
    /// Every format of the matching actions: templates (scripts are counted in `scripts`).
    public var formats: Duration = .zero
    /// Browsers: their regexes and templates (scripts are counted in `scripts`).
    public var browsers: Duration = .zero
    /// The scripts of formats and browsers, run together per batch.
    public var scripts: Duration = .zero

    /// An empty profile: no inputs, no time in any stage.
    public init() {}

    /// Adds `other`'s inputs and time, stage by stage.
    public mutating func add(_ other: ResolveProfile) {
        inputs += other.inputs
        matching += other.matching
        unwrapping += other.unwrapping
        formats += other.formats
        browsers += other.browsers
        scripts += other.scripts
    }
}

/// A result whose URL a script may give: an action's or a browser's.
protocol ScriptedResult {
    var url: String? { get set }
    var error: ScriptError? { get set }
}

extension ActionResult: ScriptedResult {}
extension BrowserResult: ScriptedResult {}
