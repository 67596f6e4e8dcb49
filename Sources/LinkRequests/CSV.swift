import Foundation
import SwitchyardCore

/// Comma-separated values as RFC 4180 writes them: fields separated by commas, records by CRLF
/// or LF, a field in double quotes may hold commas, line breaks and `""` for a quote. A UTF-8
/// byte order mark at the start is skipped.
package enum CSV {
    /// Text that is not CSV (`csv-syntax`), with the line where reading stopped.
    package struct SyntaxError: SwitchyardError, Equatable {
        /// The line, counting from 1, where reading stopped.
        package var line: Int
        /// What is wrong there.
        package var message: String
        /// Always `csv-syntax`.
        package var code: ErrorCode { .csvSyntax }
        /// The line, as a source location without file or column.
        package var location: SourceLocation? { SourceLocation(line: line) }
        /// `line N: message`.
        package var description: String { "line \(line): \(message)" }
    }

    /// The records, each with the line it starts on.
    package static func parse(_ text: String) throws(SyntaxError) -> [(line: Int, fields: [String])] {
        var records: [(line: Int, fields: [String])] = []
        var fields: [String] = []
        var field = ""
        var line = 1, recordLine = 1
        var quoted = false, wasQuoted = false
        var scalars = text.unicodeScalars[...]
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        var iterator = scalars.makeIterator()
        var pending: Unicode.Scalar?
        func next() -> Unicode.Scalar? {
            if let p = pending { pending = nil; return p }
            return iterator.next()
        }
        func endRecord() {
            fields.append(field)
            // A blank line is no record.
            if !(fields.count == 1 && fields[0].isEmpty && !wasQuoted) { records.append((recordLine, fields)) }
            fields = []
            field = ""
            wasQuoted = false
        }
        while let c = next() {
            if quoted {
                if c == "\"" {
                    if let n = next() {
                        if n == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; pending = n }
                    } else { quoted = false }
                } else {
                    if c == "\n" { line += 1 }
                    field.unicodeScalars.append(c)
                }
                continue
            }
            switch c {
            case "\"":
                guard field.isEmpty && !wasQuoted else { throw SyntaxError(line: line, message: "a quote inside an unquoted field (quote the whole field and write \"\" for a quote)") }
                quoted = true
                wasQuoted = true
            case ",":
                fields.append(field)
                field = ""
                wasQuoted = false
            case "\r":
                if let n = next(), n != "\n" { pending = n }
                endRecord()
                line += 1
                recordLine = line
            case "\n":
                endRecord()
                line += 1
                recordLine = line
            default:
                guard !wasQuoted else { throw SyntaxError(line: line, message: "text after a quoted field's closing quote") }
                field.unicodeScalars.append(c)
            }
        }
        if quoted { throw SyntaxError(line: recordLine, message: "a quoted field is not closed before the end of the file") }
        if !field.isEmpty || !fields.isEmpty || wasQuoted { endRecord() }
        return records
    }
}
