import Foundation

/// An http(s) URL read the way browsers read it (the WHATWG URL Standard), or refused.
///
/// The service decides where a link may send people by its host, and then puts the URL into a
/// page. If the check and the browser read a URL differently, the check approves one host and
/// the browser goes to another (`https://evil.example\@allowed.example/` is allowed.example to
/// RFC 3986 and evil.example to a browser). So this parser accepts only the part of the
/// standard where the reading is unambiguous, refuses everything else with a reason, and gives
/// back the serialisation a browser would produce (`href`), which is what pages emit.
///
/// Refused: anything but `http://` and `https://` followed by a host; ASCII whitespace,
/// control characters and backslashes anywhere; user info (`user:pass@`); IPv6 literals;
/// percent-encoded, internationalised (`xn--`) or non-ASCII hosts, unless the host is in
/// `trustedHosts`; empty labels (`a..b`, a trailing dot); hosts ending in a number that are
/// not plain dotted-decimal IPv4 (`0x7f.1`, `1.2.3.08`); ports above 65535.
/// Accepted URLs are normalised as browsers do: scheme and host lower-cased, the default port
/// dropped, `.` and `..` path segments (also `%2e`) resolved, an empty path made `/`, and
/// characters outside the standard's percent-encode sets (non-ASCII, `"`, `<`, `>`, …)
/// percent-encoded.
public struct WebURL: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// Lower-cased ASCII: a domain name or dotted-decimal IPv4 address.
    public let host: String
    /// nil when absent or the scheme's default (80, 443), as browsers report it.
    public let port: Int?
    /// The serialisation a browser would produce for the input.
    public let href: String

    /// The browser's serialisation, `href`.
    public var description: String { href }

    /// Why a URL is refused; `reason` completes "the URL …" (`contains a backslash`).
    public struct Refusal: SwitchyardError, Equatable {
        /// What is wrong, completing "the URL …" (`contains a backslash`).
        public let reason: String
        /// Always `invalid-url`.
        public var code: ErrorCode { .invalidURL }
        /// The reason alone.
        public var message: String { reason }
        /// The reason alone.
        public var description: String { reason }
    }

    /// The URL, or why it is refused (the reason completes "the URL …", e.g. "contains a backslash").
    public static func parse(_ input: String, trustedHosts: Set<String> = []) -> Result<WebURL, Refusal> {
        var copy = input
        return copy.withUTF8 { parse(bytes: $0, trustedHosts: trustedHosts) }
    }

    private static func refuse(_ reason: String) -> Result<WebURL, Refusal> { .failure(Refusal(reason: reason)) }

    private static func parse(bytes u: UnsafeBufferPointer<UInt8>, trustedHosts: Set<String>) -> Result<WebURL, Refusal> {
        for b in u {
            if b <= 0x20 || b == 0x7F { return refuse("contains a space or a control character") }
            if b == UInt8(ascii: "\\") { return refuse("contains a backslash, which browsers read as a slash") }
        }
        // Scheme.
        guard let colon = u.firstIndex(of: UInt8(ascii: ":")) else { return refuse("has no scheme") }
        let scheme = String(decoding: u[0..<colon].map(asciiLower), as: UTF8.self)
        guard scheme == "http" || scheme == "https" else { return refuse("is not an http or https URL") }
        guard colon + 2 < u.count, u[colon + 1] == UInt8(ascii: "/"), u[colon + 2] == UInt8(ascii: "/") else {
            return refuse("must start with \(scheme):// followed by a host")
        }
        // Authority: up to the first /, ? or #.
        let authorityStart = colon + 3
        var i = authorityStart
        while i < u.count, u[i] != UInt8(ascii: "/"), u[i] != UInt8(ascii: "?"), u[i] != UInt8(ascii: "#") { i += 1 }
        let authority = u[authorityStart..<i]
        if authority.contains(UInt8(ascii: "@")) { return refuse("has user info (name@ or name:password@) before the host") }
        if authority.first == UInt8(ascii: "[") { return refuse("has an IPv6 address as its host") }
        var hostBytes = authority[...]
        var port: Int?
        if let c = authority.firstIndex(of: UInt8(ascii: ":")) {
            hostBytes = authority[authorityStart..<c]
            let digits = authority[(c + 1)...]
            if !digits.isEmpty {
                guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return refuse("has a port that is not a number") }
                var value = 0
                for d in digits {
                    value = value * 10 + Int(d - 0x30)
                    if value > 65535 { return refuse("has a port above 65535") }
                }
                port = value
            }
        }
        if port == (scheme == "http" ? 80 : 443) { port = nil }
        guard !hostBytes.isEmpty else { return refuse("has no host") }
        let host = String(decoding: hostBytes.map(asciiLower), as: UTF8.self)
        if !trustedHosts.contains(host), let problem = hostProblem(host) { return refuse(problem) }

        // Path, query and fragment, encoded as a browser serialises them.
        var href = Array(scheme.utf8) + Array("://".utf8) + Array(host.utf8)
        if let port { href += Array(":\(port)".utf8) }
        var end = i
        while end < u.count, u[end] != UInt8(ascii: "?"), u[end] != UInt8(ascii: "#") { end += 1 }
        href += path(u[i..<end])
        if end < u.count, u[end] == UInt8(ascii: "?") {
            var q = end + 1
            while q < u.count, u[q] != UInt8(ascii: "#") { q += 1 }
            href.append(UInt8(ascii: "?"))
            encode(u[(end + 1)..<q], into: &href, set: queryEncoded)
            end = q
        }
        if end < u.count {  // '#'
            href.append(UInt8(ascii: "#"))
            encode(u[(end + 1)...], into: &href, set: fragmentEncoded)
        }
        return .success(WebURL(scheme: scheme, host: host, port: port, href: String(decoding: href, as: UTF8.self)))
    }

    /// Why a lower-cased host is refused, or nil. `allowingPunycode` accepts `xn--` labels, for
    /// hosts an operator configured (a browser maps them to themselves if they are valid IDNA).
    public static func hostProblem(_ host: String, allowingPunycode: Bool = false) -> String? {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            if label.isEmpty { return "has an empty label in its host (a leading, trailing or double dot)" }
            for b in label.utf8 where !((b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F) {
                if b == UInt8(ascii: "%") { return "has a percent-encoded host" }
                if b >= 0x80 { return "has a non-ASCII host (write it as configured, or ask for it to be trusted)" }
                return "has a character in its host that browsers reject or rewrite (\(Character(Unicode.Scalar(b))))"
            }
            if label.hasPrefix("xn--") && !allowingPunycode { return "has an internationalised (xn--) host that is not a configured host" }
        }
        // A host whose last label is a number is an IPv4 address to a browser, in any of several
        // notations (0x7f.1, 017.0.0.1, 2130706433); only plain dotted decimal is accepted.
        let last = labels[labels.count - 1]
        let isNumber = last.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
            || (last.count >= 2 && last.lowercased().hasPrefix("0x") && last.dropFirst(2).utf8.allSatisfy(isHexDigit))
        guard isNumber else { return nil }
        guard labels.count == 4, labels.allSatisfy({ part in
            part.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && (part == "0" || !part.hasPrefix("0")) && part.count <= 3 && Int(part)! <= 255
        }) else { return "has a host that browsers read as an IPv4 address in another notation" }
        return nil
    }

    /// `/a/./b/../c` → `/a/c`, as the standard's path state does for http(s).
    private static func path(_ p: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8] {
        // The path always starts with "/" here (or is empty: "/").
        guard p.count > 1 else { return [UInt8(ascii: "/")] }
        var segments: [ArraySlice<UInt8>] = []
        let parts = Array(p.dropFirst()).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (n, part) in parts.enumerated() {
            let isLast = n == parts.count - 1
            if isDoubleDot(part) {
                if !segments.isEmpty { segments.removeLast() }
                if isLast { segments.append([]) }
            } else if isSingleDot(part) {
                if isLast { segments.append([]) }
            } else {
                segments.append(part)
            }
        }
        var out: [UInt8] = []
        for s in segments {
            out.append(UInt8(ascii: "/"))
            encode(s, into: &out, set: pathEncoded)
        }
        return out.isEmpty ? [UInt8(ascii: "/")] : out
    }

    private static func isSingleDot(_ s: ArraySlice<UInt8>) -> Bool {
        s.elementsEqual(".".utf8) || lowered(s).elementsEqual("%2e".utf8)
    }

    private static func isDoubleDot(_ s: ArraySlice<UInt8>) -> Bool {
        let l = lowered(s)
        return ["..", ".%2e", "%2e.", "%2e%2e"].contains { l.elementsEqual($0.utf8) }
    }

    private static func lowered(_ s: ArraySlice<UInt8>) -> [UInt8] { s.count > 6 ? [] : s.map(asciiLower) }

    // Percent-encode sets beyond C0 controls, space and non-ASCII (space and controls are refused earlier).
    private static let fragmentEncoded: Set<UInt8> = Set("\"<>`".utf8)
    private static let queryEncoded: Set<UInt8> = Set("\"#<>'".utf8)
    private static let pathEncoded: Set<UInt8> = Set("\"#<>?^`{}".utf8)

    private static func encode<C: Collection<UInt8>>(_ bytes: C, into out: inout [UInt8], set: Set<UInt8>) {
        let hex = Array("0123456789ABCDEF".utf8)
        for b in bytes {
            if b >= 0x80 || set.contains(b) {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            } else {
                out.append(b)
            }
        }
    }

    private static func asciiLower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }
    private static func isHexDigit(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46) }
}
