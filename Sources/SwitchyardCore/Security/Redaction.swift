import Foundation

/// How secrets are kept out of logs, errors and stored messages: the one redaction every module
/// uses, so a URL, a key or a token is shown the same way wherever it is printed.
///
/// ```swift
/// Redaction.url("https://u:pw@hooks.example.com/x?apikey=K")   // "https://…@hooks.example.com/x?…"
/// Redaction.scrub("GET https://hooks.example.com/x?apikey=K failed", of: url)
/// ```
public enum Redaction {
    /// What stands in for a secret value.
    public static let placeholder = "<redacted>"
    /// What stands in for a secret part of a larger text (a query, a path segment).
    public static let elided = "…"

    /// `url` fit for a message or a log: user info and the query and fragment (where receivers
    /// put their tokens) replaced by `…`; the scheme, host, port and path stay. With
    /// `keepingPath: false` the path goes too (`https://hooks.slack.com/…`): for URLs that are
    /// credentials as a whole, such as webhook endpoints, whose tokens are often in the path.
    public static func url(_ url: String, keepingPath: Bool = true) -> String {
        if !keepingPath {
            let kept = Self.url(url)
            guard let colon = kept.firstIndex(of: ":") else { return elided }
            let rest = kept[kept.index(after: colon)...]
            let slashes = rest.prefix { $0 == "/" || $0 == "\\" }
            let authority = rest.dropFirst(slashes.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != "\\" }
            let end = authority.endIndex
            return String(kept[..<end]) + (end < kept.endIndex ? "/" + elided : "")
        }
        var text = Substring(url)
        var out = ""
        // After the scheme, however many slashes or backslashes a browser would skip
        // (`https:u:pw@host` and `https:\\u:pw@host` hold user info too).
        if let colon = text.firstIndex(of: ":"), text[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) {
            let rest = text[text.index(after: colon)...]
            let slashes = rest.prefix { $0 == "/" || $0 == "\\" }
            out = String(text[...colon]) + slashes
            text = rest.dropFirst(slashes.count)
            let authorityEnd = text.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "\\" } ?? text.endIndex
            if let at = text[..<authorityEnd].lastIndex(of: "@") {
                out += "…@"
                text = text[text.index(after: at)...]
            }
        }
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { return out + text[..<cut] + String(text[cut]) + "…" }
        return out + text
    }

    /// `text` (an error that quotes `url`, perhaps normalised, percent-encoded or decoded) with
    /// `url`'s user info, query and fragment replaced by `…`, as ``url(_:)`` shows them.
    /// With `keepingPath: false` the path is scrubbed too.
    public static func scrub(_ text: String, of url: String, keepingPath: Bool = true) -> String {
        var out = text.replacingOccurrences(of: url, with: Self.url(url, keepingPath: keepingPath))
        var secrets: [Substring] = []
        if let cut = url.firstIndex(where: { $0 == "?" || $0 == "#" }) { secrets.append(url[url.index(after: cut)...]) }
        if let scheme = url.range(of: ":") {
            let rest = url[scheme.upperBound...].drop { $0 == "/" || $0 == "\\" }
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != "\\" }
            if let at = authority.lastIndex(of: "@") { secrets.append(authority[..<at]) }
            if !keepingPath {
                let path = rest[authority.endIndex...].prefix { $0 != "?" && $0 != "#" }
                if path.count > 1 { secrets.append(path) }
            }
        }
        for secret in secrets where !secret.isEmpty {
            out = out.replacingOccurrences(of: String(secret), with: "…")
            for form in [secret.removingPercentEncoding, secret.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)] {
                if let form, !form.isEmpty { out = out.replacingOccurrences(of: form, with: "…") }
            }
        }
        return out
    }
}

/// Key material that never prints: its description, debug description and mirror show
/// ``Redaction/placeholder``, so a configuration or a service that holds one can be logged
/// (ServiceLifecycle logs every service it starts) without the key.
public struct SecretBytes: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The key's bytes, for the code that signs or verifies with it.
    public let bytes: [UInt8]
    /// Wraps `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    /// ``Redaction/placeholder``.
    public var description: String { Redaction.placeholder }
    /// ``Redaction/placeholder``.
    public var debugDescription: String { Redaction.placeholder }
    /// A mirror with no children.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
