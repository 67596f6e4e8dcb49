/// Writes `JSONValue`s as compact or indented JSON, keeping key order.
public enum JSONWriter {
    /// Compact JSON (no whitespace), `/` not escaped.
    public static func compact(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: nil, level: 0)
        return out
    }

    /// JSON indented by two spaces, one member per line.
    public static func pretty(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: "  ", level: 0)
        return out
    }

    /// `s` as a JSON string literal.
    public static func quote(_ s: String) -> String {
        var out = ""
        quote(s, into: &out)
        return out
    }

    /// Appends `s` as a JSON string literal to `out`. Most strings need no escape: they are
    /// appended whole after one scan of their bytes.
    static func quote(_ s: String, into out: inout String) {
        let plain = s.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0xE2 }
        if plain {
            out += "\""
            out += s
            out += "\""
            return
        }
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    private static func write(_ value: JSONValue, into out: inout String, indent: String?, level: Int) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(_, let text): out += text
        case .string(let s): quote(s, into: &out)
        case .array(let elements):
            if elements.isEmpty { out += "[]"; return }
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                write(e, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, m) in members.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                quote(m.key, into: &out)
                out += indent == nil ? ":" : ": "
                write(m.value, into: &out, indent: indent, level: level + 1)
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: String?, _ level: Int) {
        guard let indent else { return }
        out += "\n"
        for _ in 0..<level { out += indent }
    }
}
