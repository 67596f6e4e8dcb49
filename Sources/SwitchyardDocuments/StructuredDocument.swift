import Foundation
import SwitchyardCore
import Yams

/// Reads configuration-like documents, JSON or YAML, into an order-preserving ``JSONValue``:
/// route tables, the service configuration. YAML is read with its 1.2 core schema (`0.5` is a
/// number, `yes` is text), aliases are bounded (a "billion laughs" document is refused, not
/// expanded), and every error says where, without quoting the document (a configuration holds
/// secrets).
///
/// ```swift
/// let table = try StructuredDocument.read(contentsOf: "routes.yaml")   // throws(DocumentError)
/// table["hosts"]?.arrayValue
/// ```
public enum StructuredDocument {
    /// The largest document read: 64 MiB (`--routes /dev/zero` stops there).
    public static let maximumBytes = 64 << 20

    /// Reads the file at `path`: JSON when its name ends in `.json`, YAML otherwise (YAML is a
    /// superset of JSON).
    public static func read(contentsOf path: String) throws(DocumentError) -> JSONValue {
        let data: [UInt8]
        do { data = try DurableFile.read(path, maximumBytes: maximumBytes) } catch {
            // The file error's message names the file already.
            throw DocumentError(.io, error.message, cause: error)
        }
        if path.hasSuffix(".json") {
            // A key given twice is refused, as the YAML reader refuses it: which one was meant?
            do { return try JSONParser.parse(bytes: data, duplicateKeys: .refuse) } catch {
                throw DocumentError(.jsonSyntax, error.reason, location: SourceLocation(file: path, line: error.line, column: error.column), cause: error)
            }
        }
        switch UTF8Text.decode(data) {
        case .success(let text): return try parse(yaml: text, source: path)
        case .failure(let invalid):
            throw DocumentError(.yamlSyntax, "not UTF-8 text: \(invalid) (save the file as UTF-8)", location: SourceLocation(file: path))
        }
    }

    /// Reads YAML (or JSON) text; `source` names it in errors (a file name, say).
    public static func parse(yaml text: String, source: String? = nil) throws(DocumentError) -> JSONValue {
        // A byte order mark is not YAML: libyaml refuses a first line that is a key after one.
        let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        let node: Yams.Node?
        do { node = try Yams.compose(yaml: text) } catch {
            throw DocumentError(.yamlSyntax, "invalid YAML: \(yamlProblem(error))", location: SourceLocation(file: source), cause: error)
        }
        guard let node else { throw DocumentError(.emptyDocument, "the file is empty", location: SourceLocation(file: source)) }
        // Without aliases a document holds fewer values than bytes: only aliases repeating each
        // other can pass the larger of the two bounds.
        let bound = max(maximumValues, text.utf8.count)
        var budget = bound
        do { return try json(node, budget: &budget, bound: bound) } catch {
            var located = error
            located.location = SourceLocation(file: source, line: error.location?.line)
            throw located
        }
    }

    /// What is wrong with a YAML text, where, without quoting the text: Yams's own description
    /// prints the mapping around a duplicate key, and a service configuration holds secrets.
    static func yamlProblem(_ error: any Error) -> String {
        guard let error = error as? YamlError else { return "\(error)" }
        func place(_ mark: Mark) -> String { "line \(mark.line), column \(mark.column)" }
        switch error {
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _), let .composer(context, problem, mark, _):
            // libyaml's nesting limit names its own C function: say what it means instead.
            let said = problem.hasPrefix("Maximum nesting level reached") ? "nested too deeply (more than libyaml's limit of levels)" : problem
            return "\(place(mark)): \(said)" + (context.map { " (\($0.text), \(place($0.mark)))" } ?? "")
        case let .reader(problem, offset, _, yaml):
            guard let offset, offset <= yaml.utf8.count else { return problem }
            let before = yaml.utf8.prefix(offset)
            let line = before.filter { $0 == 0x0A }.count + 1
            let column = before.count - (before.lastIndex(of: 0x0A).map { before.distance(from: before.startIndex, to: $0) + 1 } ?? 0) + 1
            return "line \(line), column \(column): \(problem)"
        case let .duplicatedKeysInMapping(duplicates, context):
            let keys = duplicates.sorted().map { "'\($0)'" }.joined(separator: ", ")
            return "\(place(context.mark)): the key \(keys) appears more than once in one mapping"
        default:
            return "\(error)"
        }
    }

    /// Most values a YAML document may expand to: aliases let a few hundred bytes stand for
    /// billions of values ("billion laughs"), which must be refused, not expanded.
    static let maximumValues = 100_000

    /// A plain scalar that YAML 1.2's core schema reads as a finite float (`0.5`, `-1.5e3`, `.25`,
    /// `2.`), as a JSON number; nil for anything else (`.inf` and `.nan` stay text).
    static func yamlFloat(_ text: String) -> JSONValue? {
        var digits = 0, dots = 0, exponent = false, index = 0
        let bytes = Array(text.utf8)
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        while index < bytes.count {
            let b = bytes[index]
            if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") { digits += 1 }
            else if b == UInt8(ascii: "."), dots == 0, !exponent { dots += 1 }
            else if b == UInt8(ascii: "e") || b == UInt8(ascii: "E"), digits > 0, !exponent {
                exponent = true
                if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") || bytes[index + 1] == UInt8(ascii: "+") { index += 1 }
                guard index + 1 < bytes.count else { return nil }
            } else { return nil }
            index += 1
        }
        guard digits > 0, let value = Double(text), value.isFinite else { return nil }
        // The text as JSON writes it: `.25`, `2.` and `+1.5` are not JSON numbers.
        let json = bytes.first == UInt8(ascii: "+") || text.hasPrefix(".") || text.hasPrefix("-.") || text.contains(".e") || text.contains(".E") || text.hasSuffix(".")
        return .number(value, text: json ? "\(value)" : text)
    }

    /// The tags a value may carry, written or implied: those of plain values, lists and mappings
    /// (and the timestamps, merge keys and `=` YAML implies for some plain text, read as text). Any other
    /// (`!!python/object/apply:…`, `!!binary`, `!custom`) would be a value this reader does not make.
    static let readTags = Set(([.str, .int, .float, .bool, .null, .map, .seq, .timestamp, .merge, .value, .nonSpecific] as [Tag.Name]).map(\.rawValue))

    static func json(_ node: Yams.Node, budget: inout Int, bound: Int) throws(DocumentError) -> JSONValue {
        budget -= 1
        guard budget >= 0 else {
            throw DocumentError(.documentTooLarge, "the document expands to more than \(bound) values, more than its size allows without YAML aliases repeating each other; refused")
        }
        if case let tag = node.tag.rawValue, !tag.isEmpty, !readTags.contains(tag) {
            throw DocumentError(.yamlSyntax, "the YAML tag \(tag.replacingOccurrences(of: "tag:yaml.org,2002:", with: "!!").displayExcerpt()) is not read here: a document holds plain values, lists and mappings; remove the tag",
                                location: SourceLocation(line: node.mark?.line))
        }
        switch node {
        case .scalar(let s):
            if s.style == .plain {
                if let i = Int(s.string) { return .int(i) }
                if let number = yamlFloat(s.string) { return number }
                if ["true", "True", "TRUE", "false", "False", "FALSE"].contains(s.string) { return .bool(s.string.lowercased() == "true") }
                if ["null", "Null", "NULL", "~", ""].contains(s.string) { return .null }
            }
            return .string(s.string)
        case .sequence(let seq):
            var items: [JSONValue] = []
            for item in seq { items.append(try json(item, budget: &budget, bound: bound)) }
            return .array(items)
        case .mapping(let map):
            var members: [(key: String, value: JSONValue)] = []
            for (key, value) in map { members.append((key.string ?? "", try json(value, budget: &budget, bound: bound))) }
            return .object(members)
        case .alias(let a): return .string("*\(a.anchor)")
        }
    }
}

/// A document that cannot be read: the file (`io`), its syntax (`json-syntax`, `yaml-syntax`),
/// nothing in it (`empty-document`), or aliases that expand past the bound (`document-too-large`);
/// with the file (and line and column, for JSON) when known, and the reader's error underneath.
public typealias DocumentError = DomainError<DocumentErrors>

/// The domain of ``DocumentError``.
public enum DocumentErrors: ErrorDomain {}

extension ErrorCode {
    /// A YAML document that is not well formed.
    public static let yamlSyntax = ErrorCode("yaml-syntax")
    /// A document with nothing in it.
    public static let emptyDocument = ErrorCode("empty-document")
    /// A document that expands to more values than the reader accepts.
    public static let documentTooLarge = ErrorCode("document-too-large")
}
