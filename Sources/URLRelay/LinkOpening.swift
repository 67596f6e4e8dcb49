import SwitchyardCore

/// A URL a link could be opened with: an app's own URL (from the rules, or your router), or
/// the web link itself for the browser.
public struct OpenTarget: Sendable, Equatable {
    /// The URL to open.
    public var url: String
    /// The identifier of the app that opens it, when it is an app's URL.
    public var appId: String?
    /// A name to show people: the app's name, "the browser" for a web link, or "the app for
    /// SCHEME:" for another URL no rule named an app for.
    public var displayName: String

    /// A target opened by the app `appId` (shown as `displayName`, or the identifier).
    public init(url: String, appId: String? = nil, displayName: String? = nil) {
        self.url = url
        self.appId = appId
        let scheme = url.prefix { $0 != ":" }.lowercased()
        let opener = scheme == "http" || scheme == "https" || scheme.count == url.count ? "the browser" : "the app for \(scheme):"
        self.displayName = displayName ?? appId ?? opener
    }
}

/// Opens one link the way `switchyard open` does: choose the target, check it against the
/// open policy, wait the policy's delay, run the opener's chain and report what really happened
/// (opened directly, only relayed, or not opened at all).
///
/// ```swift
/// var opening = LinkOpening(opener: .standard(direct: CommandOpen(), inbox: inbox), source: "my-extension")
/// let target = LinkOpening.choose(from: candidates, prefer: ["spotify"], fallback: OpenTarget(url: link))
/// switch opening.plan(target) {
/// case .refused(let reason): print("refused: \(reason)")
/// case .ready(let plan): print(await opening.open(plan).summary)
/// }
/// ```
public struct LinkOpening: Sendable {
    /// What the policy decided for a target.
    public enum Planned: Sendable, Equatable {
        /// The target may be opened after `delay` seconds.
        case ready(Plan)
        /// The policy refuses the target, for `reason`.
        case refused(String)
    }

    /// A target the policy allowed, with the delay it asks for.
    public struct Plan: Sendable, Equatable {
        /// What is opened.
        public var target: OpenTarget
        /// Seconds to wait before opening (the policy's `trustedDelay` for a trusted scheme, else 0).
        public var delay: Double
        /// The strategies that will be tried, in order, each marked when it always runs.
        public var steps: [(name: String, always: Bool)]

        /// Equal when target, delay and steps (name and `always`) are.
        public static func == (a: Plan, b: Plan) -> Bool {
            a.target == b.target && a.delay == b.delay && a.steps.elementsEqual(b.steps) { $0.name == $1.name && $0.always == $1.always }
        }
    }

    /// What happened when a plan was carried out.
    public struct Report: Sendable, Equatable {
        /// The target that was opened (or not).
        public var target: OpenTarget
        /// Every attempt, in order.
        public var attempts: [URLOpener.Attempt]
        /// True when the first strategy (the direct open) succeeded.
        public var openedDirectly: Bool { attempts.first?.outcome == .opened }
        /// True when a later strategy (the relay) took the request.
        public var relayed: Bool { attempts.dropFirst().contains { $0.outcome == .opened } }
        /// True when any strategy took the request.
        public var delivered: Bool { openedDirectly || relayed }

        /// One line for people, saying what really happened.
        public var summary: String {
            let what = "\(target.url) (\(target.displayName))"
            let relay = attempts.dropFirst().first { $0.outcome == .opened }
            if openedDirectly {
                return "opened: \(what)" + (relay.map { "; also relayed to \(Self.place($0.strategy))" } ?? "")
            }
            if let relay {
                let failure = attempts.first.map { "; \(Self.place($0.strategy)) failed" } ?? ""
                return "relayed, not opened: \(what) is waiting in \(Self.place(relay.strategy)) for a watcher\(failure)"
            }
            return "not opened: \(what)"
        }

        /// `relay(/path)` → `/path`, `command(xdg-open)` → `xdg-open`.
        static func place(_ strategy: String) -> String {
            guard let open = strategy.firstIndex(of: "("), strategy.hasSuffix(")") else { return strategy }
            return String(strategy[strategy.index(after: open)..<strategy.index(before: strategy.endIndex)])
        }
    }

    /// The policy every target goes through (javascript:, data: and file: are always refused).
    public var policy: OpenPolicy
    /// The chain of strategies.
    public var opener: URLOpener
    /// Recorded in each request as its `source`.
    public var source: String

    /// An opening with `opener` behind `policy` (the default policy unless given).
    public init(policy: OpenPolicy = OpenPolicy(), opener: URLOpener, source: String) {
        self.policy = policy
        self.opener = opener
        self.source = source
    }

    /// The first candidate of the first preferred app that has one, else the first candidate,
    /// else `fallback` (the link itself for the browser).
    public static func choose(from candidates: [OpenTarget], prefer: [String] = [], fallback: OpenTarget) -> OpenTarget {
        prefer.lazy.compactMap { id in candidates.first { $0.appId == id } }.first ?? candidates.first ?? fallback
    }

    /// Checks `target` against the policy (which also counts it for rate limits and debounce).
    public mutating func plan(_ target: OpenTarget, now: Double = 0) -> Planned {
        switch policy.decide(target.url, now: now) {
        case .deny(let reason): return .refused(reason)
        case .open(let delay): return .ready(Plan(target: target, delay: delay, steps: opener.steps.map { ($0.strategy.name, $0.always) }))
        }
    }

    /// Waits the plan's delay and runs the chain; `observe` sees each attempt as it ends.
    public func open(_ plan: Plan, observe: (URLOpener.Attempt) -> Void = { _ in }) async -> Report {
        if plan.delay > 0 { try? await Task.sleep(for: .milliseconds(Int(plan.delay * 1000))) }
        let (_, attempts) = await opener.open(RelayRequest(source: source, url: plan.target.url), observe: observe)
        return Report(target: plan.target, attempts: attempts)
    }
}
