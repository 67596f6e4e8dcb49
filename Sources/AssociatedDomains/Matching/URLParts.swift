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

    /// Splits `text`; nil when it is not an absolute URL with a host. One pass over the
    /// UTF-8 bytes with integer offsets.
    public init?(_ text: String) {
        var text = text
        guard let parts = text.withUTF8({ Self.split($0) }) else { return nil }
        (scheme, host, path, query, fragment) = parts
    }

    static func split(_ u: UnsafeBufferPointer<UInt8>) -> (String, String, String, String?, String?)? {
        func lower(_ r: Range<Int>) -> String {
            if !u[r].contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return String(decoding: UnsafeBufferPointer(rebasing: u[r]), as: UTF8.self) }
            var bytes = Array(u[r])
            for k in bytes.indices where bytes[k] >= 0x41 && bytes[k] <= 0x5A { bytes[k] |= 0x20 }
            return String(decoding: bytes, as: UTF8.self)
        }
        func text(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: u[r]), as: UTF8.self) }
        var i = 0
        while i < u.count {
            let b = u[i]
            if b == UInt8(ascii: ":") { break }
            let ok = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E
            if !ok { return nil }
            i += 1
        }
        // "scheme://" with at least the two slashes present.
        guard i > 0, i + 2 < u.count, u[i + 1] == UInt8(ascii: "/"), u[i + 2] == UInt8(ascii: "/") else { return nil }
        let scheme = lower(0..<i)
        var start = i + 3
        var end = u.count
        var fragment: String?
        if let h = u[start..<end].firstIndex(of: UInt8(ascii: "#")) {
            fragment = text((h + 1)..<end)
            end = h
        }
        var query: String?
        if let q = u[start..<end].firstIndex(of: UInt8(ascii: "?")) {
            query = text((q + 1)..<end)
            end = q
        }
        let slash = u[start..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
        if let at = u[start..<slash].lastIndex(of: UInt8(ascii: "@")) { start = at + 1 }
        let host: String
        if start < slash && u[start] == UInt8(ascii: "[") {
            let close = u[start..<slash].firstIndex(of: UInt8(ascii: "]")) ?? slash
            host = lower(start..<close) + "]"
        } else {
            host = lower(start..<(u[start..<slash].firstIndex(of: UInt8(ascii: ":")) ?? slash))
        }
        guard !host.isEmpty else { return nil }
        let path = slash == end ? "/" : text(slash..<end)
        return (scheme, host, path, query, fragment)
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
