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
    /// are copied whole. Escaped as `\uXXXX`: quote and backslash (as `\"` and `\\`), control
    /// characters (C0, DEL and C1 — U+009B is a CSI to some terminals) and every deceptive format
    /// character (``Unicode/Scalar/isDeceptiveFormat``: bidi overrides, U+2028/U+2029, which are
    /// line breaks to JavaScript, zero-width characters), so JSON shown in a terminal or a log
    /// reads as what it holds; a parser reads the same text back.
    public static func quote(_ s: String, into out: inout [UInt8]) {
        var s = s
        out.append(0x22)
        s.withUTF8 { bytes in
            var run = 0, i = 0
            while i < bytes.count {
                let b = bytes[i]
                if b >= 0x20 && b < 0x7F && b != 0x22 && b != 0x5C { i += 1; continue }
                var length = 1
                var value = UInt32(b)
                if b >= 0x80 {
                    // A multi-byte scalar: copied as it is unless it is unsafe to display.
                    length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2
                    guard let scalar = scalar(in: bytes, at: i, length: length), scalar.isUnsafeToDisplay else {
                        i += length
                        continue
                    }
                    value = scalar.value
                }
                out.append(contentsOf: bytes[run..<i])
                switch b {
                case 0x22: out += [0x5C, 0x22]
                case 0x5C: out += [0x5C, 0x5C]
                case 0x0A: out += [0x5C, UInt8(ascii: "n")]
                case 0x0D: out += [0x5C, UInt8(ascii: "r")]
                case 0x09: out += [0x5C, UInt8(ascii: "t")]
                case 0x08: out += [0x5C, UInt8(ascii: "b")]
                case 0x0C: out += [0x5C, UInt8(ascii: "f")]
                default:
                    if value > 0xFFFF {
                        let v = value - 0x10000
                        escape(UInt16(0xD800 + (v >> 10)), into: &out)
                        escape(UInt16(0xDC00 + (v & 0x3FF)), into: &out)
                    } else {
                        escape(UInt16(value), into: &out)
                    }
                }
                i += length
                run = i
            }
            out.append(contentsOf: bytes[run..<bytes.count])
        }
        out.append(0x22)
    }

    /// The scalar whose `length` UTF-8 bytes start at `index` (a Swift string's bytes are valid
    /// UTF-8, so the lead byte's length is the scalar's).
    private static func scalar(in bytes: UnsafeBufferPointer<UInt8>, at index: Int, length: Int) -> Unicode.Scalar? {
        guard index + length <= bytes.count else { return nil }
        var value = UInt32(bytes[index]) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for k in 1..<length { value = value << 6 | UInt32(bytes[index + k] & 0x3F) }
        return Unicode.Scalar(value)
    }

    /// Appends `\u` and `unit` as four lowercase hex digits.
    private static func escape(_ unit: UInt16, into out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out += [0x5C, UInt8(ascii: "u"), hex[Int(unit >> 12)], hex[Int(unit >> 8 & 0xF)], hex[Int(unit >> 4 & 0xF)], hex[Int(unit & 0xF)]]
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
