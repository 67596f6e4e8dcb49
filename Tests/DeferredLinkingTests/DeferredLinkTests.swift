import SwitchyardTestSupport
import SwitchyardCore
import DeferredLinking
import Foundation
import LinkRouting
import Testing

/// The client without a service: a transport that answers as told and records what it was sent.
final class FakeTransport: DeferredLinkTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Result<(Int, String), any Error>]
    private(set) var sent: [(URL, String)] = []

    init(_ answers: [Result<(Int, String), any Error>]) { self.answers = answers }

    func post(_ url: URL, json: Data) async throws -> (status: Int, body: Data) {
        let next = lock.withLock { () -> Result<(Int, String), any Error> in
            sent.append((url, String(decoding: json, as: UTF8.self)))
            return answers.removeFirst()
        }
        let (status, body) = try next.get()
        return (status, Data(body.utf8))
    }
}

struct Offline: Error {}

@Suite struct DeferredLinkTests {
    static let token = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_AbCdE"
    static let service = URL(string: "https://rabble.community")!

    func client(_ transport: FakeTransport) -> DeferredLink {
        let marker = TestTemporary.root.appendingPathComponent("deferred-\(UUID().uuidString)/checked")
        return DeferredLink(service: Self.service, markerFile: marker, transport: transport)
    }

    @Test func theTokenIsReadFromAnInstallReferrerAsPlayGivesIt() {
        #expect(Self.token.utf8.count == 43)
        #expect(DeferredLink.token(fromInstallReferrer: "sy_claim=\(Self.token)") == Self.token)
        #expect(DeferredLink.token(fromInstallReferrer: "utm_source=x&sy_claim=\(Self.token)&utm_medium=y") == Self.token)
        #expect(DeferredLink.token(fromInstallReferrer: "sy_claim%3D\(Self.token)") == Self.token, "still URL-encoded once")
        for bad in ["", "utm_source=google-play&utm_medium=organic", "sy_claim=", "sy_claim=short", "sy_claim=\(Self.token)x",
                    "sy_claim=\(Self.token.dropLast())!", "xsy_claim=\(Self.token)"] {
            #expect(DeferredLink.token(fromInstallReferrer: bad) == nil, "\(bad)")
        }
    }

    @Test func onlyTheServicesOwnClaimURLIsTakenFromThePasteboard() {
        let c = client(FakeTransport([]))
        #expect(c.token(fromPasteboard: "https://rabble.community/d/\(Self.token)") == Self.token)
        #expect(c.token(fromPasteboard: "  https://RABBLE.community/d/\(Self.token)\n") == Self.token)
        for other in [nil, "", "hello", "https://evil.example/d/\(Self.token)", "http://rabble.community/d/\(Self.token)",
                      "https://rabble.community:8443/d/\(Self.token)", "https://rabble.community/i/\(Self.token)",
                      "https://rabble.community/d/\(Self.token)?x=1", "https://rabble.community/d/\(Self.token)/more",
                      "https://rabble.community.evil.example/d/\(Self.token)", "https://user@evil.example/d/\(Self.token)"] {
            #expect(c.token(fromPasteboard: other) == nil, "\(other ?? "nil")")
        }
    }

    @Test func aClaimIsRedeemedOnceAndTheMarkerKeepsItFromRunningAgain() async throws {
        let transport = FakeTransport([.success((200, #"{"code":"Ab3dEf7h","deepLink":"plur://join/g1?code=Ab3dEf7h","route":"invite","parameters":{"groupId":"g1"}}"#))])
        let c = client(transport)
        let router = try LinkRouter(hosts: ["rabble.community"], routes: [try Route(name: "join", pattern: "plur://join/{groupId}")])
        var pasteboardRead = false
        let outcome = try await c.runOnFirstLaunch(installReferrer: "sy_claim=\(Self.token)", pasteboard: { pasteboardRead = true; return nil })
        let expected = DeferredLink.Claim(code: "Ab3dEf7h", deepLink: "plur://join/g1?code=Ab3dEf7h", route: "invite", parameters: ["groupId": "g1"])
        #expect(outcome == .claimed(expected))
        #expect(!pasteboardRead, "the pasteboard is not read when the referrer has a token")
        #expect(transport.sent.map(\.0.absoluteString) == ["https://rabble.community/api/deferred/claim"])
        #expect(transport.sent.map(\.1) == [#"{"token":"\#(Self.token)"}"#])
        #expect(expected.match(in: router)?.route == "join")
        #expect(expected.match(in: router)?.parameters["groupId"]?.text == "g1")
        #expect(c.hasRun)
        #expect(try await c.runOnFirstLaunch(installReferrer: "sy_claim=\(Self.token)") == .alreadyRan)
        #expect(transport.sent.count == 1)
    }

    @Test func anOrdinaryInstallWritesTheMarkerWithoutAsking() async throws {
        let transport = FakeTransport([])
        let c = client(transport)
        #expect(try await c.runOnFirstLaunch(installReferrer: "utm_source=google-play", pasteboard: { "some text" }) == .noToken)
        #expect(c.hasRun && transport.sent.isEmpty)
    }

    @Test func anUnreachableServiceIsTriedAgainOnTheNextLaunch() async throws {
        let transport = FakeTransport([.failure(Offline()), .success((503, #"{"error":{"code":"storage-unavailable","message":"x"}}"#)),
                                       .success((410, #"{"error":{"code":"claim-used","message":"x","field":"token"}}"#))])
        let c = client(transport)
        let pasteboard = { "https://rabble.community/d/\(Self.token)" }
        await #expect(throws: DeferredLink.Failure.self) { try await c.runOnFirstLaunch(pasteboard: pasteboard) }
        #expect(!c.hasRun)
        await #expect(throws: DeferredLink.Failure.self) { try await c.runOnFirstLaunch(pasteboard: pasteboard) }
        #expect(!c.hasRun, "a 503 is the service being away, not an answer")
        #expect(try await c.runOnFirstLaunch(pasteboard: pasteboard) == .refused(status: 410, code: ErrorCode("claim-used")))
        #expect(c.hasRun)
    }

    /// A definite refusal (403 `matching-disabled`, 400) gets the same answer on every launch:
    /// the marker is written, so the pasteboard is not read again at each start. 429 and 5xx are
    /// the service being busy or away: tried again.
    @Test func aDefiniteRefusalIsNotAskedAgainAtEveryLaunch() async throws {
        for (status, code, retried) in [(403, "matching-disabled", false), (400, "invalid-claim-token", false), (429, "rate-limited", true), (500, "internal", true)] {
            let transport = FakeTransport([.success((status, #"{"error":{"code":"\#(code)","message":"x"}}"#))])
            let c = client(transport)
            await #expect(throws: DeferredLink.Failure.self) { try await c.runOnFirstLaunch(pasteboard: { "https://rabble.community/d/\(Self.token)" }) }
            #expect(c.hasRun == !retried, "HTTP \(status): marker written \(c.hasRun)")
        }
    }

    @Test func anAnswerOutsideTheAPIIsAnError() async throws {
        let c = client(FakeTransport([.success((200, "<html>")), .success((400, #"{"error":{"code":"invalid-claim-token","message":"x"}}"#))]))
        await #expect(throws: DeferredLink.Failure.unexpectedAnswer(status: 200, body: "<html>")) { try await c.claim(Self.token) }
        await #expect(throws: DeferredLink.Failure.self) { try await c.claim(Self.token) }
    }
}

/// Compiles only if an app's main-actor code can pass a main-actor closure (as reading
/// `UIPasteboard.general` is) straight to `runOnFirstLaunch`, as the README shows.
@MainActor private var pasteboardStandIn: String? = nil
@MainActor private func firstLaunchFromTheMainActor(_ link: DeferredLink) async throws -> DeferredLink.Outcome {
    try await link.runOnFirstLaunch(installReferrer: nil, pasteboard: { pasteboardStandIn })
}
