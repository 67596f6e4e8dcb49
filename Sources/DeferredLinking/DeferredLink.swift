import Foundation
import LinkRouting
import SwitchyardCore

/// Carries a link through an app install (a deferred deep link): on the first launch after
/// install, finds the claim token the landing page handed over — the Play Store install
/// referrer on Android (`sy_claim=TOKEN`), or the claim URL (`https://<your host>/d/TOKEN`) the
/// person copied with "Get the app" on iOS — redeems it once with the link service, and gives
/// back the link it stood for, ready for `LinkRouting`.
///
/// ```swift
/// let deferred = DeferredLink(service: URL(string: "https://rabble.community")!, markerFile: supportDirectory.appending(path: "deferred-link-checked"))
/// if case .claimed(let claim) = try await deferred.runOnFirstLaunch(pasteboard: { UIPasteboard.general.hasURLs ? UIPasteboard.general.url?.absoluteString : nil }),
///    let match = claim.match(in: router) { open(match) }
/// ```
///
/// It runs once per install: a marker file is written after a launch that found no token or got
/// an answer from the service. A launch whose claim could not reach the service writes no marker,
/// so the next launch tries again (the token stays valid for the service's `claimLifetime`).
public struct DeferredLink: Sendable {
    /// What a redeemed token stood for.
    public struct Claim: Sendable, Hashable, Codable {
        /// The stored link's code (nil for a route's page, such as `/join/{groupId}`).
        public var code: String?
        /// The app link (custom scheme) the landing page offered.
        public var deepLink: String?
        /// The route name and its parameters.
        public var route: String?
        /// The route's parameters by name, as text (empty when there are none).
        public var parameters: [String: String]

        /// A claim; every part left out is absent (no parameters by default).
        public init(code: String? = nil, deepLink: String? = nil, route: String? = nil, parameters: [String: String] = [:]) {
            self.code = code
            self.deepLink = deepLink
            self.route = route
            self.parameters = parameters
        }

        /// The deep link matched against the app's router (nil when there is none or no route matches).
        public func match(in router: LinkRouter) -> RouteMatch? { deepLink.flatMap { router.route($0).match } }
    }

    /// What the first launch, a claim or a match came to.
    public enum Outcome: Sendable, Equatable {
        case claimed(Claim)
        /// No token in the referrer or on the pasteboard: an ordinary install.
        case noToken
        /// The marker says this install ran it before; nothing was looked at.
        case alreadyRan
        /// The service refused the token: 404 `claim-unknown`, 410 `claim-used` or `claim-expired`.
        case refused(status: Int, code: ErrorCode)
    }

    /// Why the first-launch work could not be done: `service-unreachable` (nothing was
    /// decided: the next launch tries again), `unexpected-answer` (a status or body the API
    /// does not give; ``status`` and ``body`` say which) or `io` (the marker file).
    public struct Failure: SwitchyardError, Equatable {
        /// `service-unreachable`, `unexpected-answer` or `io`.
        public var code: ErrorCode
        /// What went wrong, for people.
        public var message: String
        /// The HTTP status, for `unexpected-answer`.
        public var status: Int?
        /// The answer's body (its first 200 characters in ``message``), for `unexpected-answer`.
        public var body: String?
        /// The transport's or file system's error.
        public var cause: (any Error)?

        /// A failure with its code and message; `status` and `body` for an unexpected answer, `cause` for the error underneath.
        public init(code: ErrorCode, message: String, status: Int? = nil, body: String? = nil, cause: (any Error)? = nil) {
            self.code = code
            self.message = message
            self.status = status
            self.body = body
            self.cause = cause
        }

        /// The service could not be reached (retried on the next launch).
        public static func unreachable(_ why: String, cause: (any Error)? = nil) -> Failure {
            Failure(code: .serviceUnreachable, message: "the link service could not be reached: \(why)", cause: cause)
        }

        /// An answer this client does not understand.
        public static func unexpectedAnswer(status: Int, body: String) -> Failure {
            Failure(code: .unexpectedAnswer, message: "unexpected answer from the link service: HTTP \(status) \(body.prefix(200))", status: status, body: body)
        }

        /// The marker file could not be written.
        public static func marker(_ why: String, cause: (any Error)? = nil) -> Failure {
            Failure(code: .io, message: "the first-launch marker could not be written: \(why)", cause: cause)
        }

        /// The message alone.
        public var description: String { message }

        /// Equal when code, message, status and body are (the cause is not compared).
        public static func == (a: Failure, b: Failure) -> Bool {
            a.code == b.code && a.message == b.message && a.status == b.status && a.body == b.body
        }
    }

    /// The link service's origin (`https://rabble.community`).
    public let service: URL
    /// Written once the first launch's work is done.
    public let markerFile: URL
    /// How requests reach the link service (`URLSessionDeferredLinkTransport` by default).
    public let transport: any DeferredLinkTransport

    /// A client of the link service at `service` that records its first run in `markerFile`; nothing is
    /// read or sent until it is asked to.
    public init(service: URL, markerFile: URL, transport: any DeferredLinkTransport = URLSessionDeferredLinkTransport()) {
        self.service = service
        self.markerFile = markerFile
        self.transport = transport
    }

    /// The token in a Play install referrer: the value of `sy_claim` in the referrer's
    /// `key=value&…` text (as the Install Referrer API returns it, or still URL-encoded once).
    public static func token(fromInstallReferrer referrer: String) -> String? {
        var text = referrer
        if !text.contains("="), let decoded = text.removingPercentEncoding { text = decoded }
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == "sy_claim" else { continue }
            let value = String(parts[1]).removingPercentEncoding ?? String(parts[1])
            return isToken(value) ? value : nil
        }
        return nil
    }

    /// The token in pasteboard text: only this service's own claim URL (`<service>/d/TOKEN`,
    /// same scheme and host, nothing after the token), so text from anywhere else is ignored.
    public func token(fromPasteboard text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), text.utf8.count < 512,
              let url = URLComponents(string: text), url.scheme?.lowercased() == service.scheme?.lowercased(),
              let host = url.host?.lowercased(), host == service.host?.lowercased(), url.port == service.port,
              url.query == nil, url.fragment == nil else { return nil }
        let path = url.path
        guard path.hasPrefix("/d/") else { return nil }
        let token = String(path.dropFirst(3))
        return Self.isToken(token) ? token : nil
    }

    /// Whether text has the shape of a claim token: 43 base64url characters (256 bits).
    public static func isToken(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "-") || c == UInt8(ascii: "_")
        }
    }

    /// Whether this install has run ``runOnFirstLaunch(installReferrer:pasteboard:matchingPlatform:isolation:)`` to the end.
    public var hasRun: Bool { FileManager.default.fileExists(atPath: markerFile.path) }

    /// The first launch's work: look for a token (the install referrer first; the pasteboard is
    /// read only when there is none, and only through `pasteboard`), redeem it, write the marker.
    /// - Throws: ``Failure/unreachable(_:cause:)`` (no marker written: the next launch tries again;
    ///   also for 429 and 5xx), ``Failure/unexpectedAnswer(status:body:)`` (for a 4xx the marker is
    ///   written: the same question would get the same answer), ``Failure/marker(_:cause:)``.
    /// - Parameters:
    ///   - installReferrer: The Play install referrer string (Android), when the app has it.
    ///   - pasteboard: Reads the pasteboard's URL as text (iOS); called at most once, only when
    ///     the referrer carries no token, on the caller's actor (so a main-actor closure reading
    ///     `UIPasteboard.general` may be passed as it is).
    ///   - matchingPlatform: `ios` or `android` to ask for a probabilistic match
    ///     (``match(platform:)``) when there is no token; nil (the default) never asks.
    ///   - isolation: The caller's actor, inferred: the work runs there.
    public func runOnFirstLaunch(installReferrer: String? = nil, pasteboard: () -> String? = { nil },
                                 matchingPlatform: String? = nil,
                                 isolation: isolated (any Actor)? = #isolation) async throws(Failure) -> Outcome {
        guard !hasRun else { return .alreadyRan }
        guard let token = installReferrer.flatMap(Self.token(fromInstallReferrer:)) ?? token(fromPasteboard: pasteboard()) else {
            if let platform = matchingPlatform {
                let outcome = try await settled { () async throws(Failure) -> Outcome in try await match(platform: platform) }
                try writeMarker()
                return outcome == .refused(status: 404, code: .noMatch) ? .noToken : outcome
            }
            try writeMarker()
            return .noToken
        }
        let outcome = try await settled { () async throws(Failure) -> Outcome in try await claim(token) }
        try writeMarker()
        return outcome
    }

    /// `body`'s outcome; when the service gave a definite answer this client does not take (a
    /// 4xx other than 429, such as 403 `matching-disabled`), the marker is written before the
    /// failure is thrown: asking again on every launch would get the same answer (and read the
    /// pasteboard again). Only an unreachable service or a busy one (429, 5xx) is retried.
    private func settled(_ body: () async throws(Failure) -> Outcome) async throws(Failure) -> Outcome {
        do { return try await body() } catch {
            if error.code == .unexpectedAnswer, let status = error.status, (400..<500).contains(status), status != 429 { try writeMarker() }
            throw error
        }
    }

    /// Redeems a token: `POST <service>/api/deferred/claim` `{"token": "…"}`.
    public func claim(_ token: String) async throws(Failure) -> Outcome {
        try await post("api/deferred/claim", .object([("token", .string(token))]))
    }

    /// Asks for a probabilistic match — the most recent link opened from this device's address
    /// on this platform — where the service offers it (`deferred.probabilisticMatching`; 403
    /// `matching-disabled` comes back as ``Failure/unexpectedAnswer(status:body:)``). A guess:
    /// use it only when your users know (see the service's README).
    /// - Parameter platform: `ios` or `android`.
    public func match(platform: String) async throws(Failure) -> Outcome {
        try await post("api/deferred/match", .object([("platform", .string(platform))]))
    }

    private func post(_ path: String, _ json: JSONValue) async throws(Failure) -> Outcome {
        let url = service.appendingPathComponent(path)
        let body = Data(JSONWriter.compact(json).utf8)
        let answer: (status: Int, body: Data)
        do { answer = try await transport.post(url, json: body) } catch { throw .unreachable("\(error)", cause: error) }
        let text = String(decoding: answer.body, as: UTF8.self)
        guard let json = try? JSONParser.parse(text) else { throw .unexpectedAnswer(status: answer.status, body: text) }
        switch answer.status {
        case 200:
            var parameters: [String: String] = [:]
            for (k, v) in json["parameters"]?.objectMembers ?? [] { if let s = v.stringValue { parameters[k] = s } }
            return .claimed(Claim(code: json["code"]?.stringValue, deepLink: json["deepLink"]?.stringValue,
                                  route: json["route"]?.stringValue, parameters: parameters))
        case 404, 410:
            guard let code = json["error"]?["code"]?.stringValue else { throw .unexpectedAnswer(status: answer.status, body: text) }
            return .refused(status: answer.status, code: ErrorCode(code))
        default:
            throw answer.status == 429 || answer.status >= 500
                ? .unreachable("HTTP \(answer.status) \(text.prefix(200))") : .unexpectedAnswer(status: answer.status, body: text)
        }
    }

    private func writeMarker() throws(Failure) {
        do {
            try FileManager.default.createDirectory(at: markerFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(ISO8601DateFormatter().string(from: Date()).utf8).write(to: markerFile, options: .atomic)
        } catch { throw .marker("\(markerFile.path): \(error.localizedDescription)", cause: error) }
    }
}

extension ErrorCode {
    /// The link service could not be reached.
    public static let serviceUnreachable = ErrorCode("service-unreachable")
    /// The link service answered with a status or body its API does not give.
    public static let unexpectedAnswer = ErrorCode("unexpected-answer")
}
