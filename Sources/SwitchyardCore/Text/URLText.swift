/// Splits absolute URLs into raw (still percent-encoded) parts in one pass over the UTF-8 bytes.
/// Shared by routing and AASA matching; Character-based string APIs are far slower on Linux.
package enum URLText {
    /// (scheme lower-cased, host lower-cased without port — may be empty for `plur://` —,
    /// raw path — may be empty —, raw query, raw fragment), or nil when `url` is not
    /// `scheme://…` with a valid RFC 3986 scheme.
    package static func split(_ url: String) -> (scheme: String, host: String, path: String, query: String?, fragment: String?)? {
        var url = url
        return url.withUTF8 { u in
            func text(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: u[r]), as: UTF8.self) }
            func lower(_ r: Range<Int>) -> String {
                if !u[r].contains(where: { $0 >= 0x41 && $0 <= 0x5A }) { return text(r) }
                var bytes = Array(u[r])
                for k in bytes.indices where bytes[k] >= 0x41 && bytes[k] <= 0x5A { bytes[k] |= 0x20 }
                return String(decoding: bytes, as: UTF8.self)
            }
            var i = 0
            while i < u.count {
                let b = u[i]
                if b == UInt8(ascii: ":") { break }
                let ok = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2D || b == 0x2E
                if !ok { return nil }
                i += 1
            }
            // "scheme://"; what follows may be empty (scheme-only URLs such as plur://).
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
            return (scheme, host, text(slash..<end), query, fragment)
        }
    }

    /// `url` with every ASCII character RFC 3986 never allows in a URL — controls, space and
    /// `"` `<` `>` `\` `^` `` ` `` `{` `|` `}` — percent-encoded (`%22`), as browsers serialise
    /// a URL; escapes already there and every other character are kept. A deep link stored this
    /// way cannot close an HTML attribute or open a tag wherever it is written.
    package static func encodingDisallowed(_ url: String) -> String {
        let disallowed: Set<UInt8> = Set(Array("\"<>\\^`{|} ".utf8))
        guard url.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || disallowed.contains($0) }) else { return url }
        var out: [UInt8] = []
        out.reserveCapacity(url.utf8.count + 8)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in url.utf8 {
            if byte < 0x20 || byte == 0x7F || disallowed.contains(byte) {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
