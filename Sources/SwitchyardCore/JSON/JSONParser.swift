import Foundation

/// A strict RFC 8259 JSON parser that keeps object key order and reports errors by line and column.
public struct JSONParser {
    /// A syntax error with its 1-based line and column.
    public struct SyntaxError: SwitchyardError, Equatable {
        /// 1-based line of the error.
        public var line: Int
        /// 1-based column of the error, counted in characters (not bytes).
        public var column: Int
        /// What is wrong, in words: `expected ',' or '}'`.
        public var reason: String
        /// Always `json-syntax`.
        public var code: ErrorCode { .jsonSyntax }
        /// The reason alone, without the line and column.
        public var message: String { reason }
        /// The line and column, as a location.
        public var location: SourceLocation? { SourceLocation(line: line, column: column) }
        /// `line L, column C: reason`.
        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    /// What a `\uD800`-style escape that is not half of a surrogate pair becomes.
    public enum LoneSurrogates: Sendable {
        /// U+FFFD, the replacement character (files written by other tools: lenient).
        case replace
        /// A syntax error (request bodies: what is stored is exactly what was sent).
        case refuse
    }

    /// What a key that appears twice in one object does.
    public enum DuplicateKeys: Sendable {
        /// Both members are kept, in order (readers of the value take the first or the last).
        case keep
        /// A syntax error at the second (request bodies: one meaning per field).
        case refuse
    }

    private let bytes: [UInt8]
    private let loneSurrogates: LoneSurrogates
    private var duplicateKeys: DuplicateKeys = .keep
    private var index = 0
    private var depth = 0
    /// Nesting limit, so that hostile input cannot exhaust the stack.
    public static let maximumDepth = 512

    /// Parses `text` as one JSON value (surrounding whitespace allowed).
    public static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses UTF-8 `bytes` as one JSON value.
    public static func parse(bytes: [UInt8], loneSurrogates: LoneSurrogates = .replace,
                             duplicateKeys: DuplicateKeys = .keep) throws(SyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, loneSurrogates: loneSurrogates)
        parser.duplicateKeys = duplicateKeys
        // Skip a UTF-8 byte order mark.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.error("unexpected \(parser.describeCurrent()) after the end of the document")
        }
        return value
    }

    private init(bytes: [UInt8], loneSurrogates: LoneSurrogates) {
        self.bytes = bytes
        self.loneSurrogates = loneSurrogates
    }

    private func location(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var i = 0
        while i < offset && i < bytes.count {
            if bytes[i] == 0x0A {
                line += 1
                column = 1
            } else if bytes[i] & 0xC0 != 0x80 {
                column += 1  // count characters, not UTF-8 continuation bytes
            }
            i += 1
        }
        return (line, column)
    }

    private func error(_ reason: String, at offset: Int? = nil) -> SyntaxError {
        let (line, column) = location(of: offset ?? index)
        return SyntaxError(line: line, column: column, reason: reason)
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let b = bytes[index]
        if b >= 0x20 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(SyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectWord("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    private mutating func expectWord(_ word: String) throws(SyntaxError) {
        let start = index
        for b in word.utf8 {
            guard index < bytes.count, bytes[index] == b else {
                throw error("invalid literal, expected '\(word)'", at: start)
            }
            index += 1
        }
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        if depth > JSONParser.maximumDepth { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        var seen: Set<String> = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrent()), expected a string key")
            }
            let keyStart = index
            let key = try parseString()
            if duplicateKeys == .refuse && !seen.insert(key).inserted {
                throw error("the key \"\(key)\" appears twice in one object", at: keyStart)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrent()), expected ':' after key \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key, value))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input, expected ',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            throw error("unexpected \(describeCurrent()), expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input, expected ',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            throw error("unexpected \(describeCurrent()), expected ',' or ']'")
        }
    }

    private mutating func parseNumber() throws(SyntaxError) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func digits(_ p: inout JSONParser) -> Int {
            let s = p.index
            while p.index < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) { p.index += 1 }
            return p.index - s
        }
        guard index < bytes.count else { throw error("unexpected end of input in a number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                throw error("leading zeros are not allowed in numbers", at: start)
            }
        } else if digits(&self) == 0 {
            throw error("invalid number", at: start)
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits(&self) == 0 { throw error("expected digits after the decimal point") }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            if digits(&self) == 0 { throw error("expected digits in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        return .number(Double(text) ?? .nan, text: text)
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of input in a \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[index]
            let digit: UInt32
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in a \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        let start = index
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw error("unterminated string", at: start) }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                guard let s = String(validating: out, as: UTF8.self) else {
                    throw error("string is not valid UTF-8", at: start)
                }
                return s
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unterminated escape") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        if index + 1 < bytes.count && bytes[index] == UInt8(ascii: "\\") && bytes[index + 1] == UInt8(ascii: "u") {
                            index += 2
                            let low = try parseHex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid surrogate pair") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            guard loneSurrogates == .replace else { throw error("\\u\(String(scalar, radix: 16, uppercase: true)) is half of a surrogate pair without its other half; it is not text", at: index - 6) }
                            scalar = 0xFFFD  // lone high surrogate: replacement character
                        }
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        guard loneSurrogates == .replace else { throw error("\\u\(String(scalar, radix: 16, uppercase: true)) is half of a surrogate pair without its other half; it is not text", at: index - 6) }
                        scalar = 0xFFFD
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default:
                    throw error("invalid escape '\\\(Character(Unicode.Scalar(e)))'", at: index - 2)
                }
            case 0x00..<0x20:
                throw error("control character (0x\(String(b, radix: 16))) must be escaped in a string")
            default:
                out.append(b)
                index += 1
            }
        }
    }
}
