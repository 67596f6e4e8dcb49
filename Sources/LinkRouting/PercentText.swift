import SwitchyardCore
/// Percent-encoding shared by the routing and association modules.
package enum PercentText {
    /// Decodes %XX (invalid sequences stay as written); `+` stays `+`.
    package static func decode(_ s: String) -> String {
        guard s.utf8.contains(UInt8(ascii: "%")) else { return s }
        let u = Array(s.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(u.count)
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
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(u[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Unreserved characters (RFC 3986) pass; everything else is %XX-encoded, so `/`, `+`, `&`,
    /// `=`, `?`, `#` inside a value can never be mistaken for structure.
    package static func encode(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 0xF)]))
            }
        }
        return out
    }

    /// (name, value) pairs of a query, both decoded.
    static func queryItems(_ query: String?) -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.fastSplit(UInt8(ascii: "&")).map { item in
            if let eq = item.firstIndex(of: "=") {
                return (decode(String(item[..<eq])), decode(String(item[item.index(after: eq)...])))
            }
            return (decode(String(item)), "")
        }
    }
}

extension StringProtocol where SubSequence == Substring {
    /// Non-empty pieces between `separator` bytes, scanning UTF-8 (Character-based `split` is
    /// an order of magnitude slower, and separators here are always ASCII).
    package func fastSplit(_ separator: UInt8) -> [Substring] {
        var out: [Substring] = []
        var start = startIndex
        var i = startIndex
        let u = utf8
        while i != endIndex {
            if u[i] == separator {
                if start != i { out.append(self[start..<i]) }
                start = u.index(after: i)
            }
            i = u.index(after: i)
        }
        if start != endIndex { out.append(self[start..<endIndex]) }
        return out
    }
}
