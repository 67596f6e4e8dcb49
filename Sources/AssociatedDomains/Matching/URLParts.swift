import Foundation

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

/// Percent-decoding that keeps invalid sequences as written (iOS does not reject such URLs).
enum PercentDecoding {
    static func decode(_ s: String) -> String {
        guard s.utf8.contains(UInt8(ascii: "%")) else { return s }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        let u = Array(s.utf8)
        var i = 0
        func hex(_ b: UInt8) -> UInt8? {
            switch b {
            case 0x30...0x39: return b - 0x30
            case 0x41...0x46: return b - 0x37
            case 0x61...0x66: return b - 0x57
            default: return nil
            }
        }
        while i < u.count {
            if u[i] == 0x25, i + 2 < u.count, let h = hex(u[i + 1]), let l = hex(u[i + 2]) {
                bytes.append(h << 4 | l)
                i += 3
            } else {
                bytes.append(u[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension StringProtocol where SubSequence == Substring {
    /// Non-empty pieces between ASCII `separator` bytes (UTF-8 scan; Character `split` is slow).
    func fastSplit(_ separator: UInt8) -> [Substring] {
        var out: [Substring] = []
        var start = startIndex
        var i = startIndex
        while i != endIndex {
            if utf8[i] == separator {
                if start != i { out.append(self[start..<i]) }
                start = utf8.index(after: i)
            }
            i = utf8.index(after: i)
        }
        if start != endIndex { out.append(self[start..<endIndex]) }
        return out
    }
}
