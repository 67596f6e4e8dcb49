import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing
import URLRelay

@Suite struct PolicyAndStateTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var url: String
        var expected: PolicyDecision
        var testDescription: String { url }
    }

    static let table: [Case] = [
        Case(url: "plur://group/a", expected: .open(delay: 0.3)),
        Case(url: "https://rabble.community/g/a", expected: .open(delay: 0)),
        Case(url: "javascript:alert(1)", expected: .deny(reason: "scheme javascript: is denied")),
        Case(url: "view-source:file:///etc/passwd", expected: .deny(reason: "scheme view-source: is denied")),
        Case(url: "DATA:text/html,x", expected: .deny(reason: "scheme data: is denied")),
        Case(url: "file:///etc/passwd", expected: .deny(reason: "scheme file: is denied")),
        Case(url: "ftp://rabble.community/x", expected: .deny(reason: "scheme ftp: is not allowed (allowed: https, plur)")),
        Case(url: "https://evil.example/x", expected: .deny(reason: "host evil.example is not allowed")),
        Case(url: "https://ads.rabble.community/x", expected: .deny(reason: "host ads.rabble.community is denied")),
        Case(url: "https://cdn.rabble.community/x", expected: .open(delay: 0)),
        Case(url: "no scheme here", expected: .deny(reason: "not an absolute URL (no scheme)")),
        // C1 controls (U+009B is a CSI to some terminals), like C0 ones.
        Case(url: "plur://group/\u{9B}2J", expected: .deny(reason: "the URL contains the control character U+009B")),
        Case(url: "plur://group/\u{85}", expected: .deny(reason: "the URL contains the control character U+0085")),
        // Bidirectional overrides, isolates and line separators make a link read differently.
        Case(url: "plur://group/a\u{202E}gpj.exe", expected: .deny(reason: "the URL contains the invisible format character U+202E (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        Case(url: "plur://group/\u{2066}a", expected: .deny(reason: "the URL contains the invisible format character U+2066 (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        Case(url: "plur://group/a\u{2029}b", expected: .deny(reason: "the URL contains the invisible format character U+2029 (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        Case(url: "plur://group/a\u{200F}b", expected: .deny(reason: "the URL contains the invisible format character U+200F (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        // Characters that show nothing at all.
        Case(url: "plur://group/\u{FEFF}x", expected: .deny(reason: "the URL contains the invisible format character U+FEFF (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        Case(url: "plur://group/a\u{200B}b", expected: .deny(reason: "the URL contains the invisible format character U+200B (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        // The host a browser goes to: one with %00 is none; a backslash ends the host.
        Case(url: "https://rabble.com%00munity/x", expected: .deny(reason: "a web URL needs a host a browser can go to (none, or one with a character no host may hold, such as %00)")),
        Case(url: "https://evil.example\\@rabble.community/x", expected: .deny(reason: "host evil.example is not allowed")),
        Case(url: "filesystem:https://rabble.community/x", expected: .deny(reason: "scheme filesystem: is denied")),
        Case(url: "jar:file:///tmp/a.zip!/x.html", expected: .deny(reason: "scheme jar: is denied")),
        // A host written so that a naive comparison misses the denied one a browser goes to:
        // a percent-encoded soft hyphen, ideographic dots, full-width letters.
        Case(url: "https://ad%C2%ADs.rabble.community/x", expected: .deny(reason: "host ads.rabble.community is denied")),
        Case(url: "https://ads\u{3002}rabble\u{FF0E}community/x", expected: .deny(reason: "host ads.rabble.community is denied")),
        Case(url: "https://\u{FF41}ds.rabble.community/x", expected: .deny(reason: "host ads.rabble.community is denied")),
        // Letters that draw nothing.
        Case(url: "plur://group/a\u{3164}b", expected: .deny(reason: "the URL contains the invisible format character U+3164 (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        // Tag characters, the interlinear annotation marks, musical and shorthand format controls.
        Case(url: "plur://group/a\u{E0041}b", expected: .deny(reason: "the URL contains the invisible format character U+E0041 (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        Case(url: "plur://group/a\u{E0001}b", expected: .deny(reason: "the URL contains the invisible format character U+E0001 (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        Case(url: "plur://group/a\u{E007F}b", expected: .deny(reason: "the URL contains the invisible format character U+E007F (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        Case(url: "plur://group/a\u{1D173}b", expected: .deny(reason: "the URL contains the invisible format character U+1D173 (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        Case(url: "plur://group/a\u{FFF9}b", expected: .deny(reason: "the URL contains the invisible format character U+FFF9 (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        Case(url: "plur://group/a\u{1BCA0}b", expected: .deny(reason: "the URL contains the invisible format character U+1BCA0 (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)")),
        // Bytes that were not UTF-8 arrive as U+FFFD: storing it would change the URL.
        Case(url: "plur://group/\u{FFFD}", expected: .deny(reason: "the URL contains U+FFFD, the replacement for bytes that are not UTF-8 (percent-encode them)")),
        // Other non-ASCII text is fine.
        Case(url: "plur://group/caf\u{E9}", expected: .open(delay: 0.3)),
        Case(url: "plur://" + String(repeating: "a", count: 200), expected: .deny(reason: "the URL is longer than 100 bytes")),
    ]

    static func policy() -> OpenPolicy {
        OpenPolicy(allowedSchemes: ["plur", "https"], allowedHosts: ["rabble.community", "*.rabble.community"], deniedHosts: ["ads.rabble.community"],
                   trustedSchemes: ["plur"], maximumLength: 100)
    }

    @Test(arguments: table)
    func policyTable(_ c: Case) {
        var p = Self.policy()
        #expect(p.decide(c.url, now: 0) == c.expected)
    }

    @Test func burstsAreRateLimitedAndDuplicatesCollapse() {
        var p = OpenPolicy(perSecond: 2, burst: 3, debounce: 1)
        #expect(p.decide("plur://a", now: 0) == .open(delay: 0))
        #expect(p.decide("plur://a", now: 0.1) == .deny(reason: "duplicate of a request 0.10 s ago, within the 1 s window (collapsed)"))
        #expect(p.decide("plur://b", now: 0.1) == .open(delay: 0))
        #expect(p.decide("plur://c", now: 0.1) == .open(delay: 0))
        if case .deny(let reason) = p.decide("plur://d", now: 0.1) { #expect(reason.hasPrefix("rate limit")) } else { Issue.record("not limited") }
        #expect(p.decide("plur://d", now: 0.7) == .open(delay: 0))   // refilled
        #expect(p.decide("plur://a", now: 1.5) == .open(delay: 0))   // the debounce window passed
    }

    @Test func stateOpensOnceResetsOnSuccessAndReportsFailure() {
        var s = OpenURLState()
        #expect(s.next() == nil)
        let a = URL(string: "plur://group/a")!
        s.urlToOpen = a
        #expect(s.next() == .open(a))
        #expect(s.phase == .opening(a))
        #expect(s.next() == nil, "the same value is opened once")
        s.finish(.success)
        #expect(s.urlToOpen == nil)
        #expect(s.phase == .idle)

        let b = URL(string: "plur://group/b")!
        s.urlToOpen = b
        #expect(s.next() == .open(b))
        s.finish(.failure("no app for plur:"))
        #expect(s.phase == .failed(b, reason: "no app for plur:"))
        #expect(s.urlToOpen == b)
        #expect(s.next() == nil, "a failed value is not retried by itself")
        s.urlToOpen = nil
        s.urlToOpen = b
        #expect(s.next() == .open(b), "setting it again opens again")
    }

    struct Recording: URLOpenStrategy {
        var name: String
        var outcome: OpenOutcome
        func open(_ request: RelayRequest) async -> OpenOutcome { outcome }
    }

    @Test func chainTriesInOrderAndAlwaysRelays() async {
        let request = RelayRequest(source: "t", url: "plur://x")
        let chain = URLOpener([.init(Recording(name: "direct", outcome: .failed("host refused"))), .init(Recording(name: "nudge", outcome: .opened)),
                               .init(Recording(name: "later", outcome: .opened)), .init(Recording(name: "relay", outcome: .opened), always: true)])
        let (opened, attempts) = await chain.open(request)
        #expect(opened)
        #expect(attempts.map(\.strategy) == ["direct", "nudge", "relay"])
        #expect(attempts.first?.outcome == .failed("host refused"))
    }

    @Test(arguments: [
        (OpenOutcome.opened, OpenOutcome.opened, "opened: spotify:track:1 (Spotify); also relayed to inbox", true),
        (.failed("no handler"), .opened, "relayed, not opened: spotify:track:1 (Spotify) is waiting in inbox for a watcher; xdg-open failed", true),
        (.failed("no handler"), .failed("disk full"), "not opened: spotify:track:1 (Spotify)", false),
    ])
    func anOpeningReportsWhatReallyHappened(direct: OpenOutcome, relay: OpenOutcome, summary: String, delivered: Bool) async {
        var opening = LinkOpening(opener: URLOpener([.init(Recording(name: "command(xdg-open)", outcome: direct)),
                                                    .init(Recording(name: "relay(inbox)", outcome: relay), always: true)]),
                                  source: "test")
        let candidates = [OpenTarget(url: "twitter://x", appId: "twitter"), OpenTarget(url: "spotify:track:1", appId: "spotify", displayName: "Spotify")]
        // The preferred app wins over the first candidate; nothing at all falls back to the link.
        let target = LinkOpening.choose(from: candidates, prefer: ["nope", "spotify"], fallback: OpenTarget(url: "https://x"))
        #expect(target.appId == "spotify")
        #expect(LinkOpening.choose(from: [], fallback: OpenTarget(url: "https://x")).displayName == "the browser")
        // A URL that is already an app's, which no rule named an app for, is not the browser's.
        #expect(OpenTarget(url: "twitter://status?id=1").displayName == "the app for twitter:")
        #expect(OpenTarget(url: "HTTPS://x").displayName == "the browser")
        guard case .ready(let plan) = opening.plan(target) else { Issue.record("refused"); return }
        #expect(plan.steps.map(\.name) == ["command(xdg-open)", "relay(inbox)"])
        let report = await opening.open(plan)
        #expect(report.summary == summary)
        #expect(report.delivered == delivered)
        // The policy still stands in front of every target.
        #expect(opening.plan(OpenTarget(url: "javascript:alert(1)")) == .refused("scheme javascript: is denied"))
    }

    @Test func commandStrategyUsesTheExitStatus() async {
        let r = RelayRequest(source: "t", url: "plur://x")
        #expect(await CommandOpen(command: ["true"]).open(r) == .opened)
        #expect(await CommandOpen(command: ["false"]).open(r) == .failed("false exited with status 1"))
        // The command sees the URL as its last argument and the request id in its environment.
        let check = "test \"$1\" = plur://x && test -n \"$SWITCHYARD_REQUEST_ID\""
        #expect(await CommandOpen(command: ["sh", "-c", check, "sh"]).open(r) == .opened)
        // A nudge only activates the app: no URL argument.
        #expect(await NudgeApp(command: ["sh", "-c", "test $# -eq 0", "sh"]).open(r) == .opened)
    }

    @Test func aHandlerThatHangsIsStoppedWithEverythingItStarted() async throws {
        let r = RelayRequest(source: "t", url: "plur://poison")
        // The handler starts a child that would outlive it; both must be gone after the limit.
        let marker = "4242.\(Int.random(in: 100...999))"
        let start = ContinuousClock.now
        let outcome = await CommandOpen(command: ["sh", "-c", "sleep \(marker) & wait", "sh"], timeLimit: 1).open(r)
        #expect(outcome == .failed("sh did not finish within 1.0 s and was stopped"))
        // Far below the child's 4242 s, with room for a machine starved by the parallel suite (32 s was
        // once measured there for a 1 s limit).
        #expect(ContinuousClock.now - start < .seconds(120))
        try await Task.sleep(for: .milliseconds(500))
        let pgrep = ChildProcess()
        pgrep.executableURL = URL(fileURLWithPath: "/usr/bin/pgrep")
        pgrep.arguments = ["-f", "sleep \(marker)"]
        pgrep.standardOutput = FileHandle.nullDevice
        try pgrep.run()
        await pgrep.waitForExit()
        #expect(pgrep.terminationStatus == 1, "the handler's child is still running")
    }
}
