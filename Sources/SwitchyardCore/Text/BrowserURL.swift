import Foundation

/// The structure of an http(s) link as a browser reads it (the WHATWG URL Standard's parts that
/// decide where a link goes), for text that came from outside: a pasted link, a redirect's
/// `Location`.
///
/// For the special schemes (http, https, ws, wss, ftp) a browser reads `\` as `/`, ignores any
/// number of slashes after the scheme (`https:\\host`, `https:host`), lower-cases the scheme and
/// the host, drops the default port and resolves `.` and `..` path segments. So
/// `HTTPS://Example.COM:443/a/../b` and `https:\\example.com\b` both go to
/// `https://example.com/b`. Everything after the path (query, fragment) and the path's own
/// characters are kept as they are; other schemes are returned unchanged.
///
/// ```swift
/// BrowserURL.normalized("https://rabble.community\\g\\G")        // "https://rabble.community/g/G"
/// BrowserURL.resolve("/\\twitter.com/jack", against: "http://s.example/r")  // "http://twitter.com/jack"
/// ```
public enum BrowserURL {
    /// Whether two hosts name one domain as a browser and iOS take it: without case, and with a
    /// trailing dot or not (`links.example.` is `links.example`).
    public static func sameDomain(_ a: String, _ b: String) -> Bool {
        func plain(_ h: String) -> Substring {
            var s = Substring(h.lowercased())
            while s.last == "." { s = s.dropLast() }
            return s
        }
        return plain(a) == plain(b)
    }

    /// The schemes whose URLs a browser reads this way, with their default ports.
    public static let specialSchemes: [String: Int?] = ["http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21]

    /// `text` with the structure a browser gives it (see the type); unchanged when it is not an
    /// absolute URL of a special scheme, or has no host.
    public static func normalized(_ text: String) -> String {
        isPlainlyNormal(text) ? text : fullyNormalized(text)
    }

    /// `normalized` without its shortcut for text that is already plainly normal.
    static func fullyNormalized(_ text: String) -> String {
        let trimmed = strip(text)
        guard let (scheme, rest) = schemeAndRest(trimmed), let port = specialSchemes[scheme] else { return text }
        return normalize(scheme: scheme, afterColon: rest, defaultPort: port) ?? text
    }

    /// The host a browser goes to for the http(s) (or other special-scheme) URL `text`:
    /// lower-cased, percent-decoded, without user info or port; nil when `text` is not such a URL
    /// or a browser would refuse it (an empty host, a character no host may hold).
    public static func host(_ text: String) -> String? {
        guard let (scheme, rest) = schemeAndRest(strip(text)), let port = specialSchemes[scheme],
              let url = normalize(scheme: scheme, afterColon: rest, defaultPort: port), let parts = split(url) else { return nil }
        var authority = parts.authority
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") { return String(authority[...close]) }
        if let colon = authority.lastIndex(of: ":") { authority = authority[..<colon] }
        return String(authority)
    }

    /// `raw`, the host split from `url` without decoding (lower-cased), as browsers send it: itself
    /// when it is plain ASCII without escapes (the common case, decided on its bytes), else
    /// ``host(_:)`` of `url` (a Unicode host as its punycode).
    public static func sentHost(_ raw: String, of url: String) -> String {
        guard raw.utf8.contains(where: { $0 >= 0x80 || $0 == UInt8(ascii: "%") }) else { return raw }
        return host(url) ?? raw
    }

    /// `reference` (a redirect's `Location`) resolved against the absolute `base` as a browser
    /// resolves it, or nil when `base` is not a URL of a special scheme (the caller then
    /// resolves it another way).
    public static func resolve(_ reference: String, against base: String) -> String? {
        let base = normalized(base)
        guard let (baseScheme, _) = schemeAndRest(base), let basePort = specialSchemes[baseScheme] else { return nil }
        let reference = strip(reference)
        if let (scheme, rest) = schemeAndRest(reference) {
            // With the base's own (special) scheme and no `//` after it, the rest is a relative
            // reference (`https:x`, `https:/x`, `https:`: a browser quirk); any other scheme, or
            // `scheme://`, makes it absolute.
            let authority = rest.prefix(2).allSatisfy { $0 == "/" || $0 == "\\" } && rest.count >= 2
            guard scheme == baseScheme, !authority else {
                guard specialSchemes[scheme] != nil else { return reference }
                return normalize(scheme: scheme, afterColon: rest, defaultPort: specialSchemes[scheme] ?? nil)
            }
            return resolve(String(rest), against: base)
        }
        let slashes = reference.prefix { $0 == "/" || $0 == "\\" }.count
        guard let parts = split(base) else { return nil }
        let origin = baseScheme + "://" + parts.authority
        let resolved: String
        if slashes >= 2 {
            resolved = baseScheme + ":" + reference
        } else if slashes == 1 {
            resolved = origin + reference
        } else if reference.hasPrefix("?") {
            resolved = origin + parts.path + reference
        } else if reference.hasPrefix("#") {
            resolved = origin + parts.path + parts.query + reference
        } else if reference.isEmpty {
            resolved = origin + parts.path + parts.query
        } else {
            // A relative path: beside the base's last segment.
            let directory = parts.path[...(parts.path.lastIndex(of: "/") ?? parts.path.startIndex)]
            resolved = origin + directory + reference
        }
        guard let (scheme, rest) = schemeAndRest(resolved) else { return nil }
        // Nil when a browser could not make a URL of it either (an empty or forbidden host).
        return normalize(scheme: scheme, afterColon: rest, defaultPort: specialSchemes[scheme] ?? basePort)
    }

    /// True when `text` is, byte for byte, what `normalized` would make of it, decided in one
    /// pass: the common shape of a pasted link — `http://` or `https://`, a host of lower-case
    /// letters, digits, `-`, `_` and `.` whose last label starts with a letter (so no IPv4 form),
    /// no user info or port, a path from its `/` with no `.`/`..` segment or `%2e`, nothing but
    /// printable ASCII and no backslash. Anything else takes the full reading (a property test
    /// checks the two agree).
    static func isPlainlyNormal(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            let slash: UInt8 = 0x2F, dot: UInt8 = 0x2E
            var i: Int
            if bytes.starts(with: "https://".utf8) { i = 8 } else if bytes.starts(with: "http://".utf8) { i = 7 } else { return false }
            // The host, up to the path's slash (a query or fragment straight after the host gets
            // a `/` inserted: not plain).
            var labelStart = i
            while i < bytes.count, bytes[i] != slash {
                switch bytes[i] {
                case 0x61...0x7A, 0x30...0x39, 0x2D, 0x5F: break
                case dot:
                    guard i > labelStart else { return false }
                    labelStart = i + 1
                default: return false
                }
                i += 1
            }
            guard i < bytes.count, labelStart < i, (0x61...0x7A).contains(bytes[labelStart]) else { return false }
            // The path: segment by segment until the query or fragment.
            var segmentStart = i + 1
            var inPath = true
            while i < bytes.count {
                let b = bytes[i]
                guard b > 0x20, b < 0x7F, b != 0x5C else { return false }
                if inPath {
                    if b == slash || b == 0x3F || b == 0x23 {
                        if i > segmentStart, i - segmentStart <= 2, bytes[segmentStart..<i].allSatisfy({ $0 == dot }) { return false }
                        if b == slash { segmentStart = i + 1 } else { inPath = false }
                    } else if b == 0x25, i + 2 < bytes.count, bytes[i + 1] == 0x32, bytes[i + 2] | 0x20 == 0x65 {
                        return false
                    }
                }
                i += 1
            }
            if inPath, i > segmentStart, i - segmentStart <= 2, bytes[segmentStart..<i].allSatisfy({ $0 == dot }) { return false }
            return true
        }
    }

    /// Leading and trailing C0 controls and spaces removed, and every tab and line break (what a
    /// browser does before it reads a URL).
    static func strip(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { $0.value > 0x20 }) else { return "" }
        let last = scalars.lastIndex(where: { $0.value > 0x20 })!
        var out = String.UnicodeScalarView()
        for scalar in scalars[first...last] where scalar != "\t" && scalar != "\n" && scalar != "\r" { out.append(scalar) }
        return String(out)
    }

    /// The scheme (lower-cased) and what follows its colon, when `text` starts with one.
    static func schemeAndRest(_ text: String) -> (String, Substring)? {
        guard let colon = text.firstIndex(of: ":"), URLInput.isSchemeName(text[..<colon]) else { return nil }
        return (text[..<colon].lowercased(), text[text.index(after: colon)...])
    }

    /// The authority, path (from its `/`) and query (from its `?`, or empty) of a normalized URL.
    static func split(_ url: String) -> (authority: Substring, path: Substring, query: Substring)? {
        guard let start = url.range(of: "://")?.upperBound else { return nil }
        let rest = url[start...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let afterAuthority = rest[authorityEnd...]
        let queryStart = afterAuthority.firstIndex { $0 == "?" || $0 == "#" } ?? afterAuthority.endIndex
        let fragmentStart = afterAuthority[queryStart...].firstIndex(of: "#") ?? afterAuthority.endIndex
        let path = afterAuthority[..<queryStart]
        return (rest[..<authorityEnd], path.isEmpty ? "/" : path, afterAuthority[queryStart..<fragmentStart])
    }

    static func normalize(scheme: String, afterColon: Substring, defaultPort: Int?) -> String? {
        let rest = afterColon.drop { $0 == "/" || $0 == "\\" }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "\\" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        let afterAuthority = rest[authorityEnd...]
        var userinfo: Substring = ""
        if let at = authority.lastIndex(of: "@") {
            userinfo = authority[...at]
            authority = authority[authority.index(after: at)...]
        }
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let tail = authority[authority.index(after: close)...]
            if tail.hasPrefix(":") { port = tail.dropFirst() } else if !tail.isEmpty { return nil }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        // Read as a browser reads it (decoded, mapped, IPv4 forms as dotted decimal), or refused.
        guard let browserHost = BrowserHost.parse(host) else { return nil }
        // User info that is empty (`https://@host/`, `https://:@host/`) is not kept.
        if userinfo == "@" || userinfo == ":@" { userinfo = "" }
        var portText = ""
        if let port, !port.isEmpty {
            let digits = port.drop { $0 == "0" }
            guard port.allSatisfy({ $0.isASCII && $0.isNumber }), digits.count <= 5, let number = Int(digits.isEmpty ? "0" : digits), number <= 65535 else { return nil }
            if number != defaultPort { portText = ":" + String(number) }
        }
        let queryStart = afterAuthority.firstIndex { $0 == "?" || $0 == "#" } ?? afterAuthority.endIndex
        let path = removingDotSegments(afterAuthority[..<queryStart].replacingOccurrences(of: "\\", with: "/"))
        var out = scheme + "://"
        out += userinfo
        out += browserHost
        out += portText
        out += path
        out += afterAuthority[queryStart...]
        return out
    }

    /// A path (possibly empty) with `.` and `..` segments (also written `%2e`) resolved; `/` for
    /// an empty one.
    static func removingDotSegments(_ path: String) -> String {
        guard !path.isEmpty else { return "/" }
        let segments = (path.hasPrefix("/") ? path.dropFirst() : path[...]).split(separator: "/", omittingEmptySubsequences: false)
        func isDot(_ s: Substring) -> Bool { s == "." || s.lowercased() == "%2e" }
        func isDoubleDot(_ s: Substring) -> Bool { ["..", ".%2e", "%2e.", "%2e%2e"].contains(s.lowercased()) }
        var out: [Substring] = []
        for (i, segment) in segments.enumerated() {
            let last = i == segments.count - 1
            if isDoubleDot(segment) {
                if !out.isEmpty { out.removeLast() }
                if last { out.append("") }
            } else if isDot(segment) {
                if last { out.append("") }
            } else {
                out.append(segment)
            }
        }
        return "/" + out.joined(separator: "/")
    }

    static func lowercasedASCII(_ text: Substring) -> String {
        String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
