/// Writes `JSONValue`s as compact or indented JSON, keeping key order.
public enum JSONWriter {
    /// Compact JSON (no whitespace), `/` not escaped.
    public static func compact(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, indent: nil, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// JSON indented by two spaces, one member per line.
    public static func pretty(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, indent: Array("  ".utf8), level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// `s` as a JSON string literal.
    public static func quote(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 2)
        quote(s, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `s` as a JSON string literal to `out` (UTF-8). Runs of bytes that need no escape
    /// are copied whole. Escaped: quote, backslash, control characters (C0, DEL and C1 — U+009B
    /// is a CSI to some terminals), and U+2028/U+2029 (line breaks to JavaScript).
    static func quote(_ s: String, into out: inout [UInt8]) {
        var s = s
        out.append(0x22)
        s.withUTF8 { bytes in
            var run = 0, i = 0
            while i < bytes.count {
                let b = bytes[i]
                if b >= 0x20 && b != 0x22 && b != 0x5C && b != 0xE2 && b != 0x7F && b != 0xC2 { i += 1; continue }
                out.append(contentsOf: bytes[run..<i])
                switch b {
                case 0x22: out += [0x5C, 0x22]
                case 0x5C: out += [0x5C, 0x5C]
                case 0x0A: out += [0x5C, UInt8(ascii: "n")]
                case 0x0D: out += [0x5C, UInt8(ascii: "r")]
                case 0x09: out += [0x5C, UInt8(ascii: "t")]
                case 0x08: out += [0x5C, UInt8(ascii: "b")]
                case 0x0C: out += [0x5C, UInt8(ascii: "f")]
                case 0xE2:
                    // U+2028 and U+2029 are E2 80 A8 and E2 80 A9.
                    if i + 2 < bytes.count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 {
                        out += Array((bytes[i + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                        i += 2
                    } else {
                        out.append(b)
                    }
                case 0xC2:
                    // U+0080–U+009F (the C1 controls) are C2 80 – C2 9F.
                    if i + 1 < bytes.count, (0x80...0x9F).contains(bytes[i + 1]) {
                        let hex = Array("0123456789abcdef".utf8)
                        out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(bytes[i + 1] >> 4)], hex[Int(bytes[i + 1] & 0xF)]]
                        i += 1
                    } else {
                        out.append(b)
                    }
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0xF)]]
                }
                i += 1
                run = i
            }
            out.append(contentsOf: bytes[run..<bytes.count])
        }
        out.append(0x22)
    }

    private static func write(_ value: JSONValue, into out: inout [UInt8], indent: [UInt8]?, level: Int) {
        switch value {
        case .null: out += "null".utf8
        case .bool(let b): out += (b ? "true" : "false").utf8
        case .number(_, let text): out += text.utf8
        case .string(let s): quote(s, into: &out)
        case .array(let elements):
            if elements.isEmpty { out += [0x5B, 0x5D]; return }
            out.append(0x5B)
            for (i, e) in elements.enumerated() {
                if i > 0 { out.append(0x2C) }
                newline(&out, indent, level + 1)
                write(e, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out.append(0x5D)
        case .object(let members):
            if members.isEmpty { out += [0x7B, 0x7D]; return }
            out.append(0x7B)
            for (i, m) in members.enumerated() {
                if i > 0 { out.append(0x2C) }
                newline(&out, indent, level + 1)
                quote(m.key, into: &out)
                out.append(0x3A)
                if indent != nil { out.append(0x20) }
                write(m.value, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out.append(0x7D)
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: [UInt8]?, _ level: Int) {
        guard let indent else { return }
        out.append(0x0A)
        for _ in 0..<level { out += indent }
    }
}
