import Foundation
import SwitchyardCore

/// A MySQL dump read statement by statement, as mysqldump writes one: statements end with `;`
/// outside quotes; `--` and `#` comments end with the line, `/* … */` (and the `/*!40101 … */`
/// version comments) are skipped; strings are single-quoted with mysqldump's backslash escapes
/// (`\0 \n \r \t \b \Z \\ \' \"`) or a doubled quote. Only what a table's rows need is read:
/// `CREATE TABLE` column names and `INSERT INTO` values.
struct SQLDump {
    /// One statement: its bytes (without the `;`) and the line it starts on.
    struct Statement {
        var bytes: ArraySlice<UInt8>
        var line: Int
        /// False for the dump's last statement when no `;` ends it (a cut dump).
        var terminated = true
        var text: String { String(decoding: bytes, as: UTF8.self) }
        /// Its first 256 bytes: enough for what it is and the table it names.
        var head: String { String(decoding: bytes.prefix(256), as: UTF8.self) }
    }

    /// A dump that cannot be read, at a line.
    struct SyntaxError: Error {
        var line: Int
        var message: String
    }

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1

    init(_ text: String) { bytes = Array(text.utf8) }

    private static let newline = UInt8(ascii: "\n"), backslash = UInt8(ascii: "\\"), semicolon = UInt8(ascii: ";")
    private static let quotes: Set<UInt8> = [UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`")]

    /// The next statement, or nil at the end.
    mutating func nextStatement() throws(LinkImport.Failure) -> Statement? {
        skipSpaceAndComments()
        guard index < bytes.count else { return nil }
        let start = index, startLine = line
        var quote: UInt8?
        while index < bytes.count {
            let b = bytes[index]
            if let q = quote {
                if b == Self.backslash && q != UInt8(ascii: "`") {
                    if index + 1 < bytes.count && bytes[index + 1] == Self.newline { line += 1 }
                    index += 2
                    continue
                }
                if b == q {
                    if index + 1 < bytes.count && bytes[index + 1] == q { index += 2; continue }
                    quote = nil
                }
            } else if Self.quotes.contains(b) {
                quote = b
            } else if b == Self.semicolon {
                let statement = Statement(bytes: bytes[start..<index], line: startLine)
                index += 1
                return statement
            }
            if b == Self.newline { line += 1 }
            index += 1
        }
        if quote != nil { throw LinkImport.Failure("line \(startLine): a quoted value of the statement starting here is never closed (the dump is cut?)") }
        return Statement(bytes: bytes[start..<bytes.count], line: startLine, terminated: false)
    }

    private mutating func skipSpaceAndComments() {
        while index < bytes.count {
            let b = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if b == Self.newline { line += 1; index += 1 }
            else if b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") || b == UInt8(ascii: "\r") { index += 1 }
            else if (b == UInt8(ascii: "-") && next == UInt8(ascii: "-")) || b == UInt8(ascii: "#") {
                while index < bytes.count && bytes[index] != Self.newline { index += 1 }
            } else if b == UInt8(ascii: "/") && next == UInt8(ascii: "*") {
                index += 2
                while index + 1 < bytes.count && !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) {
                    if bytes[index] == Self.newline { line += 1 }
                    index += 1
                }
                index = min(bytes.count, index + 2)
                // A version comment that is a statement of its own ends with `;`.
                if index < bytes.count && bytes[index] == Self.semicolon { index += 1 }
            } else {
                return
            }
        }
    }

    /// The table a `CREATE TABLE` or `INSERT INTO` statement names (the last part of
    /// `db`.`table`, without backticks), or nil.
    static func tableName(_ text: String) -> String? {
        var words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" || $0 == "(" }).map(String.init)[...]
        while let first = words.first, ["CREATE", "TABLE", "INSERT", "REPLACE", "IGNORE", "INTO", "IF", "NOT", "EXISTS", "TEMPORARY"].contains(first.uppercased()) {
            words = words.dropFirst()
        }
        guard let name = words.first else { return nil }
        return name.split(separator: ".").last.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`\"")) }
    }

    /// The column names of a `CREATE TABLE` statement, in order (keys and constraints left out).
    static func createColumns(_ text: String) -> [String]? {
        guard let open = text.firstIndex(of: "(") else { return nil }
        var names: [String] = []
        for raw in text[text.index(after: open)...].split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard line.hasPrefix("`"), let end = line.dropFirst().firstIndex(of: "`") else { continue }
            names.append(String(line[line.index(after: line.startIndex)..<end]))
        }
        return names.isEmpty ? nil : names
    }

    /// The rows of an `INSERT INTO t [(columns)] VALUES (…),(…)` statement: its column list when
    /// it has one, and each row's values (nil for NULL) with the line the row starts on.
    static func insertRows(_ statement: Statement) throws(SyntaxError) -> (columns: [String]?, rows: [(line: Int, values: [String?])]) {
        var scanner = Scanner(bytes: statement.bytes, line: statement.line)
        var columns: [String]?
        // Up to VALUES: the table, then an optional column list.
        guard let values = scanner.find(keyword: "VALUES") else { throw SyntaxError(line: statement.line, message: "an INSERT without VALUES") }
        let head = String(decoding: statement.bytes[statement.bytes.startIndex..<values], as: UTF8.self)
        if let open = head.firstIndex(of: "("), let close = head.lastIndex(of: ")"), open < close {
            columns = head[head.index(after: open)..<close].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` \n\r\t")) }
        }
        var rows: [(line: Int, values: [String?])] = []
        while true {
            scanner.skipSpace()
            guard scanner.peek == UInt8(ascii: "(") else {
                if scanner.atEnd { break }
                throw SyntaxError(line: scanner.line, message: "expected ( to start a row of values")
            }
            let rowLine = scanner.line
            scanner.advance()
            var row: [String?] = []
            while true {
                scanner.skipSpace()
                row.append(try scanner.value())
                scanner.skipSpace()
                if scanner.peek == UInt8(ascii: ",") { scanner.advance(); continue }
                if scanner.peek == UInt8(ascii: ")") { scanner.advance(); break }
                throw SyntaxError(line: scanner.line, message: "expected , or ) after a value")
            }
            rows.append((rowLine, row))
            scanner.skipSpace()
            if scanner.peek == UInt8(ascii: ",") { scanner.advance(); continue }
            scanner.skipSpace()
            if scanner.atEnd { break }
            // ON DUPLICATE KEY UPDATE … and the like: the rows are read.
            break
        }
        return (columns, rows)
    }

    /// Reads values within one statement.
    private struct Scanner {
        let bytes: ArraySlice<UInt8>
        var index: Int
        var line: Int

        init(bytes: ArraySlice<UInt8>, line: Int) { (self.bytes, self.index, self.line) = (bytes, bytes.startIndex, line) }

        var atEnd: Bool { index >= bytes.endIndex }
        var peek: UInt8? { atEnd ? nil : bytes[index] }

        mutating func advance() {
            if bytes[index] == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }

        mutating func skipSpace() {
            while let b = peek, b == UInt8(ascii: " ") || b == UInt8(ascii: "\n") || b == UInt8(ascii: "\r") || b == UInt8(ascii: "\t") { advance() }
        }

        /// Moves past the first `keyword` outside quotes (any case); the index where it began.
        mutating func find(keyword: String) -> Int? {
            let word = Array(keyword.utf8)
            var quote: UInt8?
            while let b = peek {
                if let q = quote {
                    if b == UInt8(ascii: "\\") && q != UInt8(ascii: "`") { advance(); if !atEnd { advance() }; continue }
                    if b == q { quote = nil }
                    advance()
                    continue
                }
                if SQLDump.quotes.contains(b) { quote = b; advance(); continue }
                if index + word.count <= bytes.endIndex, zip(bytes[index..<(index + word.count)], word).allSatisfy({ $0 | 0x20 == $1 | 0x20 }) {
                    let start = index
                    for _ in word { advance() }
                    return start
                }
                advance()
            }
            return nil
        }

        /// One value: a quoted string (escapes undone), NULL (nil), `_binary '…'`, `0x…` (its
        /// bytes as UTF-8), or a bare number or word as written.
        mutating func value() throws(SyntaxError) -> String? {
            guard let b = peek else { throw SyntaxError(line: line, message: "a row ends without its values") }
            if b == UInt8(ascii: "_") {
                // A character set introducer: _binary '…', _utf8mb4 '…'.
                while let c = peek, c != UInt8(ascii: "'") && c != UInt8(ascii: ",") && c != UInt8(ascii: ")") { advance() }
                skipSpace()
                return try value()
            }
            if b == UInt8(ascii: "'") || b == UInt8(ascii: "\"") { return try quoted(b) }
            let start = index
            while let c = peek, c != UInt8(ascii: ",") && c != UInt8(ascii: ")") && c != UInt8(ascii: " ") && c != UInt8(ascii: "\n") && c != UInt8(ascii: "\r") { advance() }
            let word = String(decoding: bytes[start..<index], as: UTF8.self)
            if word.uppercased() == "NULL" { return nil }
            if word.lowercased().hasPrefix("0x"), word.count % 2 == 0 {
                var out: [UInt8] = []
                var digits = word.utf8.dropFirst(2).makeIterator()
                while let h = digits.next(), let l = digits.next() {
                    guard let byte = UInt8(String(decoding: [h, l], as: UTF8.self), radix: 16) else { throw SyntaxError(line: line, message: "\(word) is not a hexadecimal value") }
                    out.append(byte)
                }
                return String(decoding: out, as: UTF8.self)
            }
            guard !word.isEmpty else { throw SyntaxError(line: line, message: "a value is missing") }
            return word
        }

        private mutating func quoted(_ q: UInt8) throws(SyntaxError) -> String {
            let startLine = line
            advance()
            var out: [UInt8] = []
            while let b = peek {
                if b == UInt8(ascii: "\\") {
                    advance()
                    guard let e = peek else { break }
                    switch e {
                    case UInt8(ascii: "0"): out.append(0)
                    case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
                    case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
                    case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
                    case UInt8(ascii: "b"): out.append(8)
                    case UInt8(ascii: "Z"): out.append(0x1A)
                    // \% and \_ keep their backslash (MySQL's LIKE escapes).
                    case UInt8(ascii: "%"), UInt8(ascii: "_"): out += [UInt8(ascii: "\\"), e]
                    default: out.append(e)
                    }
                    advance()
                    continue
                }
                if b == q {
                    advance()
                    if peek == q { out.append(q); advance(); continue }
                    return String(decoding: out, as: UTF8.self)
                }
                out.append(b)
                advance()
            }
            throw SyntaxError(line: startLine, message: "a quoted value is never closed")
        }
    }
}
