import Foundation
import LinkRouting

/// The pieces of a URL as iOS compares them: raw (percent-encoded) text, split without
/// normalisation, so that `percentEncoded: true` really compares what was written.
public struct URLParts: Sendable, Equatable {
    public var scheme: String
    public var host: String
    /// The raw path; "/" when the URL has none.
    public var path: String
    /// The raw query without "?", nil when there is none.
    public var query: String?
    /// The raw fragment without "#", nil when there is none.
    public var fragment: String?

    /// Splits `text`; nil when it is not an absolute URL with a host. One pass over UTF-8.
    public init?(_ text: String) {
        let u = text.utf8
        var i = u.startIndex
        var schemeEnd: String.Index?
        while i != u.endIndex {
            let b = u[i]
            if b == UInt8(ascii: ":") {
                schemeEnd = i
                break
            }
            let ok = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E
            if !ok { return nil }
            i = u.index(after: i)
        }
        guard let schemeEnd, schemeEnd != text.startIndex else { return nil }
        let afterColon = u.index(after: schemeEnd)
        guard text[afterColon...].utf8.starts(with: "//".utf8) else { return nil }
        scheme = Self.asciiLowercased(text[..<schemeEnd])
        var rest = text[u.index(afterColon, offsetBy: 2)...]
        if let hash = rest.utf8.firstIndex(of: UInt8(ascii: "#")) {
            fragment = String(rest[rest.utf8.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let q = rest.utf8.firstIndex(of: UInt8(ascii: "?")) {
            query = String(rest[rest.utf8.index(after: q)...])
            rest = rest[..<q]
        }
        let slash = rest.utf8.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
        var authority = rest[..<slash]
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) { authority = authority[authority.utf8.index(after: at)...] }
        if authority.utf8.first == UInt8(ascii: "[") {
            let close = authority.utf8.firstIndex(of: UInt8(ascii: "]")) ?? authority.endIndex
            host = Self.asciiLowercased(authority[..<close]) + "]"
        } else {
            let colon = authority.utf8.firstIndex(of: UInt8(ascii: ":")) ?? authority.endIndex
            host = Self.asciiLowercased(authority[..<colon])
        }
        guard !host.isEmpty else { return nil }
        let p = rest[slash...]
        path = p.isEmpty ? "/" : String(p)
    }

    static func asciiLowercased(_ s: Substring) -> String {
        if !s.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return String(s) }
        return s.lowercased()
    }

    /// Query items as raw (name, value) pairs, split on `&` and the first `=`.
    public var rawQueryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.fastSplit(UInt8(ascii: "&")).map { item in
            if let eq = item.firstIndex(of: "=") { return (String(item[..<eq]), String(item[item.index(after: eq)...])) }
            return (String(item), "")
        }
    }
}
