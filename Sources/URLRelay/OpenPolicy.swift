import SwitchyardCore
import Foundation

/// What happens to an open request before any strategy runs.
public enum PolicyDecision: Sendable, Equatable {
    /// Open now, or after `delay` seconds (trusted schemes).
    case open(delay: Double)
    case deny(reason: String)
}

/// Rules applied to every URL before it is opened: scheme and host allow- and denylists,
/// trusted schemes opened after a short delay, a token bucket with duplicate collapsing, and a
/// maximum length. A pure state machine: time is passed in.
///
/// ```swift
/// var policy = OpenPolicy(allowedSchemes: ["plur", "https"], trustedSchemes: ["plur"])
/// policy.decide("javascript:alert(1)", now: 0)   // .deny("scheme javascript: is denied")
/// ```
public struct OpenPolicy: Sendable {
    /// Schemes never opened, whatever else is configured.
    public static let alwaysDenied: Set<String> = URLInput.scriptOrLocalSchemes

    /// Only these schemes (empty: any scheme not denied).
    public var allowedSchemes: Set<String>
    /// Schemes refused in addition to `alwaysDenied`.
    public var deniedSchemes: Set<String>
    /// Only these hosts for http(s) URLs (empty: any host not denied). `*.example.com` matches subdomains.
    public var allowedHosts: [String]
    /// Hosts refused for http(s) URLs; `*.example.com` matches the domain and its subdomains.
    public var deniedHosts: [String]
    /// Opened after `trustedDelay` seconds, so a burst can still be cancelled or collapsed.
    public var trustedSchemes: Set<String>
    /// Seconds a URL of a trusted scheme waits before it is opened (default 0.3).
    public var trustedDelay: Double
    /// Token bucket: `burst` opens at once, refilled at `perSecond`.
    public var perSecond: Double
    /// Opens allowed at once before the rate limit applies: the bucket's size (default 10).
    public var burst: Double
    /// The same URL again within this many seconds is collapsed into the first.
    public var debounce: Double
    /// The longest URL accepted, in UTF-8 bytes (default 8192).
    public var maximumLength: Int

    private var tokens: Double
    private var updated: Double?
    private var recent: [String: Double] = [:]

    /// A policy with these rules; schemes are lower-cased, hosts written as a browser writes them
    /// (lower-cased, internationalised names as `xn--`). By default any
    /// URL of up to 8192 bytes whose scheme is not in `alwaysDenied` is allowed, at
    /// 5 opens a second in bursts of 10, a repeat within 1 s collapsed.
    public init(allowedSchemes: Set<String> = [], deniedSchemes: Set<String> = [], allowedHosts: [String] = [], deniedHosts: [String] = [],
                trustedSchemes: Set<String> = [], trustedDelay: Double = 0.3, perSecond: Double = 5, burst: Double = 10,
                debounce: Double = 1, maximumLength: Int = 8192) {
        self.allowedSchemes = Set(allowedSchemes.map { $0.lowercased() })
        self.deniedSchemes = Set(deniedSchemes.map { $0.lowercased() })
        self.allowedHosts = allowedHosts.map(Self.hostPattern)
        self.deniedHosts = deniedHosts.map(Self.hostPattern)
        self.trustedSchemes = Set(trustedSchemes.map { $0.lowercased() })
        self.trustedDelay = trustedDelay
        self.perSecond = perSecond
        self.burst = burst
        self.debounce = debounce
        self.maximumLength = maximumLength
        tokens = burst
    }

    /// Why `url` may never be opened, or nil: the rules that do not depend on time (length,
    /// absolute URL, no spaces or control characters — C0, DEL and C1 —, no bidirectional or
    /// line-separator format characters, no U+FFFD (bytes that were not UTF-8), scheme and host lists). `Inbox.send`
    /// refuses such a URL, a drain moves a stored one to `rejected/`, and `decide` denies it.
    public func check(_ url: String) -> String? {
        guard url.utf8.count <= maximumLength else { return "the URL is longer than \(maximumLength) bytes" }
        guard let scheme = Self.scheme(of: url) else { return "not an absolute URL (no scheme)" }
        if let scalar = url.unicodeScalars.first(where: { $0.value == 0x20 || $0.isControlCharacter }) {
            return scalar == " " ? "the URL contains a space" : "the URL contains the control character \(String(format: "U+%04X", scalar.value))"
        }
        if let scalar = url.unicodeScalars.first(where: \.isDeceptiveFormat) {
            return "the URL contains the invisible format character \(String(format: "U+%04X", scalar.value)) (a bidirectional override, a line separator or a character that shows nothing: it makes a link read differently from where it goes)"
        }
        if url.unicodeScalars.contains("\u{FFFD}") {
            // What bytes that are not UTF-8 decode to: the URL stored would not be the one sent.
            return "the URL contains U+FFFD, the replacement for bytes that are not UTF-8 (percent-encode them)"
        }
        guard url.count > scheme.count + 1, URLComponents(string: url) != nil else { return "not a valid absolute URL" }
        if Self.alwaysDenied.contains(scheme) || deniedSchemes.contains(scheme) { return "scheme \(scheme): is denied" }
        if !allowedSchemes.isEmpty && !allowedSchemes.contains(scheme) {
            return "scheme \(scheme): is not allowed (allowed: \(allowedSchemes.sorted().joined(separator: ", ")))"
        }
        if scheme == "https" || scheme == "http" {
            // The host a browser goes to (`\\` as `/`, percent escapes decoded), not what another
            // parser reads: `https://allowed.example\\@evil.example/` goes to allowed.example.
            guard let host = BrowserURL.host(url), !host.isEmpty else {
                return "a web URL needs a host a browser can go to (none, or one with a character no host may hold, such as %00)"
            }
            // Host lists apply to web URLs; a custom scheme's "host" is the app's first path segment.
            if deniedHosts.contains(where: { Self.host(host, matches: $0) }) { return "host \(host) is denied" }
            if !allowedHosts.isEmpty && !allowedHosts.contains(where: { Self.host(host, matches: $0) }) {
                return "host \(host) is not allowed"
            }
        }
        return nil
    }

    /// Decides one URL at time `now` (seconds, any monotonic origin) and records it.
    public mutating func decide(_ url: String, now: Double) -> PolicyDecision {
        if let reason = check(url) { return .deny(reason: reason) }
        let scheme = Self.scheme(of: url)!
        recent = recent.filter { now - $0.value < debounce }
        if let first = recent[url] {
            return .deny(reason: "duplicate of a request \(String(format: "%.2f", now - first)) s ago, within the \(String(format: "%g", debounce)) s window (collapsed)")
        }
        if let updated { tokens = min(burst, tokens + (now - updated) * perSecond) }
        updated = now
        guard tokens >= 1 else { return .deny(reason: "rate limit: more than \(Int(burst)) opens at once or \(perSecond)/s") }
        tokens -= 1
        recent[url] = now
        return .open(delay: trustedSchemes.contains(scheme) ? trustedDelay : 0)
    }

    static func scheme(of url: String) -> String? { URLInput.scheme(of: url) }

    /// A configured host (or `*.` pattern) written as a browser writes the host it goes to
    /// (`Bücher.example` as `xn--bcher-kva.example`), so that it compares with `BrowserURL.host`.
    static func hostPattern(_ pattern: String) -> String {
        let wildcard = pattern.hasPrefix("*.")
        let name = wildcard ? String(pattern.dropFirst(2)) : pattern
        let host = BrowserURL.host("http://" + name + "/") ?? name.lowercased()
        return wildcard ? "*." + host : host
    }

    static func host(_ host: String, matches pattern: String) -> Bool {
        if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst(1)) || host == pattern.dropFirst(2) }
        return host == pattern
    }
}
