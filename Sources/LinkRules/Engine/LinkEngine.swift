import SwitchyardJSON
/// Turns web links into app links with an Opener-format manifest.
///
/// ```swift
/// let engine = LinkEngine(manifest: try Manifest(contentsOf: path), options: .init(offline: true))
/// for r in engine.resolve("https://twitter.com/jack/status/20").actions {
///     print(r.appId, r.url ?? r.error?.message ?? "null")
/// }
/// ```
///
/// Safe to use from several threads at once.
public struct LinkEngine: Sendable {
    public struct Options: Sendable {
        /// When true every network helper fails with `network-disabled` and redirects are not followed.
        public var offline: Bool
        /// Seconds one script evaluation may run.
        public var scriptTimeLimit: Double
        /// Allow scripts and redirect following to reach loopback/private addresses.
        public var allowPrivateAddresses: Bool
        /// Use the literal index (true) or try every regex (false, the reference behaviour).
        public var useIndex: Bool
        /// HTTP redirects followed with HEAD when unwrapping.
        public var maximumRedirectHops: Int
        /// Replaces the default fetcher (tests, custom transports).
        public var fetcher: (any Fetcher)?

        public init(
            offline: Bool = false, scriptTimeLimit: Double = 15, allowPrivateAddresses: Bool = false, useIndex: Bool = true,
            maximumRedirectHops: Int = 5, fetcher: (any Fetcher)? = nil
        ) {
            self.offline = offline
            self.scriptTimeLimit = scriptTimeLimit
            self.allowPrivateAddresses = allowPrivateAddresses
            self.useIndex = useIndex
            self.maximumRedirectHops = maximumRedirectHops
            self.fetcher = fetcher
        }
    }

    public let manifest: Manifest
    public let options: Options
    public let scripts: ScriptRuntime
    let actionIndex: PatternIndex
    let unwrapper: Unwrapper

    public init(manifest: Manifest, options: Options = Options()) {
        self.manifest = manifest
        self.options = options
        let fetcher: any Fetcher =
            options.offline ? OfflineFetcher() : (options.fetcher ?? HTTPFetcher(options: .init(allowPrivateAddresses: options.allowPrivateAddresses)))
        self.scripts = ScriptRuntime(fetcher: fetcher, timeLimit: options.scriptTimeLimit)
        self.actionIndex = PatternIndex(patterns: manifest.actions.map(\.pattern))
        self.unwrapper = Unwrapper(rules: manifest.redirects)
    }

    /// Applies a format's or browser's transform to `input`.
    public func apply(_ transform: Transform, pattern: Pattern, to input: String) -> Result<String?, ScriptError> {
        switch transform {
        case .template(let template): return .success(pattern.replace(in: input, with: template))
        case .script(let source): return scripts.run(source, input: input)
        case .legacyScript:
            return .failure(ScriptError(code: "legacy-script-unsupported", message: "only a legacy \"script\" (XMLHttpRequest) is given; it is not supported, add \"script2\""))
        }
    }

    /// Indexes of the actions matching `url` (with `headers`, header actions see the URL, a
    /// newline and the headers as a JSON object).
    public func matchingActions(_ url: String, headers: [(String, String)] = []) -> [Int] {
        var found = options.useIndex ? actionIndex.matches(url) : actionIndex.linearMatches(url)
        if !headers.isEmpty {
            let withHeaders = Self.headerInput(url, headers)
            found = found.filter { !manifest.actions[$0].includeHeaders }
            for a in manifest.actions where a.includeHeaders && a.pattern.matches(withHeaders) { found.append(a.index) }
            found.sort()
        }
        return found
    }

    /// `url + "\n" + {"Name":"value",…}` as header actions expect.
    public static func headerInput(_ url: String, _ headers: [(String, String)]) -> String {
        url + "\n" + JSONWriter.compact(.object(headers.map { ($0.0, JSONValue.string($0.1)) }))
    }

    /// Results of every format of the given matching actions.
    func results(for url: String, actions: [Int], headers: [(String, String)]) -> [ActionResult] {
        var out: [ActionResult] = []
        for i in actions {
            let action = manifest.actions[i]
            let input = action.includeHeaders && !headers.isEmpty ? Self.headerInput(url, headers) : url
            for f in action.formats {
                let r = apply(f.transform, pattern: action.pattern, to: input)
                out.append(ActionResult(
                    action: i, title: action.title, format: f.index, appId: f.appId,
                    url: try? r.get(), error: r.failureValue))
            }
        }
        return out
    }

    /// Browsers that can open `url` (only http and https URLs).
    public func browsers(for url: String) -> [BrowserResult] {
        let lower = url.prefix(8).lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return [] }
        return manifest.browsers.compactMap { b in
            guard b.pattern.matches(url) else { return nil }
            let r = apply(b.transform, pattern: b.pattern, to: url)
            return BrowserResult(browser: b.index, appId: b.identifier, url: try? r.get(), error: r.failureValue)
        }
    }

    /// Preview image URLs for `url`.
    public func previews(for url: String) -> [PreviewResult] {
        manifest.previews.compactMap { p in
            guard p.pattern.matches(url) else { return nil }
            let r = apply(p.transform, pattern: p.pattern, to: url)
            return PreviewResult(preview: p.index, url: try? r.get(), canSave: p.canSave, error: r.failureValue)
        }
    }

    /// One pass of the static redirect table (first matching rule in file order).
    public func unwrap(_ url: String) -> String { unwrapper.unwrap(url) }

    /// Resolves one input: matching actions' formats, browsers, and — when nothing matched — the
    /// URL behind redirect wrappers (static table, then HTTP redirects with HEAD when online).
    public func resolve(_ input: String, headers: [(String, String)] = []) -> Resolution {
        var url = input
        var matched = matchingActions(url, headers: headers)
        var unwrapped: String?
        if matched.isEmpty {
            var target = unwrap(url)
            if !options.offline { target = followRedirects(target) }
            if target != url {
                unwrapped = target
                url = target
                matched = matchingActions(url, headers: headers)
            }
        }
        return Resolution(input: input, actions: results(for: url, actions: matched, headers: headers), browsers: browsers(for: url), unwrapped: unwrapped)
    }

    /// Follows HTTP redirects with HEAD requests (bounded, every hop address-checked). Stops
    /// quietly at the last good URL on any error.
    public func followRedirects(_ url: String) -> String {
        var current = url
        for _ in 0..<options.maximumRedirectHops {
            guard let response = try? scripts.fetcher.fetch(FetchRequest(url: current, method: .head, followRedirects: false)),
                  (300..<400).contains(response.status), let location = response.header("location"),
                  let next = Unwrapper.resolveReference(location, against: current)
            else { return current }
            current = next
        }
        return current
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let e) = self { return e }
        return nil
    }
}
