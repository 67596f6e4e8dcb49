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

    /// Splits `text`; nil when it is not an absolute URL with a host.
    public init?(_ text: String) {
        guard let schemeEnd = text.range(of: "://") else { return nil }
        scheme = text[..<schemeEnd.lowerBound].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return nil }
        var rest = text[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let q = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: q)...])
            rest = rest[..<q]
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        var authority = rest[..<slash]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("[") {
            host = String(authority.prefix(while: { $0 != "]" })) + "]"
        } else {
            host = String(authority.prefix(while: { $0 != ":" }))
        }
        host = host.lowercased()
        guard !host.isEmpty else { return nil }
        let p = rest[slash...]
        path = p.isEmpty ? "/" : String(p)
    }

    /// Query items as raw (name, value) pairs, split on `&` and the first `=`.
    public var rawQueryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            if let eq = item.firstIndex(of: "=") { return (String(item[..<eq]), String(item[item.index(after: eq)...])) }
            return (String(item), "")
        }
    }
}

/// Percent-decoding that keeps invalid sequences as written (iOS does not reject such URLs).
enum PercentDecoding {
    static func decode(_ s: String) -> String {
        guard s.contains("%") else { return s }
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
