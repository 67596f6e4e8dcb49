import Foundation
import SwitchyardCore
import Yams

extension LinkRouter {
    /// Loads a route table from a JSON or YAML file (by extension; YAML is a superset of JSON).
    ///
    /// ```yaml
    /// hosts: [rabble.community, www.rabble.community]
    /// routes:
    ///   - name: join
    ///     pattern: /join/{groupId}
    ///     query: {code: code, relay: relay?}
    /// ```
    public init(contentsOf path: String) throws(RouteTableError) {
        let document = try Self.document(contentsOf: path)
        do { try self.init(table: document) } catch { throw RouteTableError("\(path): \(error.message)") }
    }

    /// A route table on its own (a file): only `hosts` and `routes` at the top.
    init(table document: JSONValue) throws(RouteTableError) {
        if let problem = DocumentShape.object(Self.tableKeys).problems(in: document).first { throw RouteTableError(problem) }
        try self.init(document: document)
    }

    /// The keys of a route table and their shapes (a service configuration embeds them).
    public static let tableKeys: [String: DocumentShape] = [
        "hosts": .array(.string),
        "routes": .array(.object(["name": .string, "pattern": .string, "query": .map(.string), "exclude": .bool])),
    ]

    /// Loads a route table from YAML (or JSON) text; `source` names it in error messages. Throws on invalid
    /// YAML, an empty document or a bad table.
    public init(yaml: String, source: String? = nil) throws(RouteTableError) {
        let prefix = source.map { "\($0): " } ?? ""
        let node: Yams.Node?
        do { node = try Yams.compose(yaml: yaml) } catch { throw RouteTableError("\(prefix)invalid YAML: \(Self.yamlProblem(error))") }
        guard let node else { throw RouteTableError("\(prefix)the file is empty") }
        do { try self.init(table: try Self.json(node)) } catch { throw RouteTableError(prefix + error.message) }
    }

    /// The largest route table or configuration file read: 64 MiB.
    package static let maximumDocumentBytes = 64 << 20

    /// Reads a JSON or YAML document (by extension) into a `JSONValue`, keeping key order.
    package static func document(contentsOf path: String) throws(RouteTableError) -> JSONValue {
        // Read up to 64 MiB and no further (`--routes /dev/zero` stops).
        let data: [UInt8]
        do { data = try DurableFile.read(path, maximumBytes: maximumDocumentBytes) } catch { throw RouteTableError(error.message) }
        let text = String(decoding: data, as: UTF8.self)
        if path.hasSuffix(".json") {
            do { return try JSONParser.parse(text) } catch { throw RouteTableError("\(path): \(error)") }
        }
        let node: Yams.Node?
        do { node = try Yams.compose(yaml: text) } catch { throw RouteTableError("\(path): invalid YAML: \(Self.yamlProblem(error))") }
        guard let node else { throw RouteTableError("\(path): the file is empty") }
        do { return try json(node) } catch { throw RouteTableError("\(path): \(error.message)") }
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

    static func json(_ node: Yams.Node) throws(RouteTableError) -> JSONValue {
        var budget = maximumValues
        return try json(node, budget: &budget)
    }

    static func json(_ node: Yams.Node, budget: inout Int) throws(RouteTableError) -> JSONValue {
        budget -= 1
        guard budget >= 0 else {
            throw RouteTableError("the document expands to more than \(maximumValues) values (YAML aliases repeating each other?); refused")
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
            for item in seq { items.append(try json(item, budget: &budget)) }
            return .array(items)
        case .mapping(let map):
            var members: [(key: String, value: JSONValue)] = []
            for (key, value) in map { members.append((key.string ?? "", try json(value, budget: &budget))) }
            return .object(members)
        case .alias(let a): return .string("*\(a.anchor)")
        }
    }

    /// Builds a table from its JSON form: `hosts` and `routes` (each `name`, `pattern`,
    /// optional `query` {item: spec}, optional `exclude`).
    public init(document: JSONValue) throws(RouteTableError) {
        guard case .object = document else { throw RouteTableError("a route table is an object with \"hosts\" and \"routes\"") }
        for key in ["hosts", "routes"] {
            if let value = document[key], let problem = Self.tableKeys[key]!.problems(in: value, at: key).first { throw RouteTableError(problem) }
        }
        var hosts: [String] = []
        if let h = document["hosts"] {
            guard let list = h.arrayValue?.compactMap(\.stringValue), list.count == h.arrayValue?.count else {
                throw RouteTableError("hosts: expected a list of host names")
            }
            hosts = list
        }
        guard let list = document["routes"]?.arrayValue else { throw RouteTableError("routes: expected a list of routes") }
        var routes: [Route] = []
        for (i, r) in list.enumerated() {
            guard let name = r["name"]?.stringValue else { throw RouteTableError("routes[\(i)].name: every route needs a name") }
            guard let pattern = r["pattern"]?.stringValue else { throw RouteTableError("routes[\(i)].pattern: route \(name) needs a pattern") }
            var query: [(String, String)] = []
            if let q = r["query"] {
                guard let members = q.objectMembers else { throw RouteTableError("routes[\(i)].query: expected item: parameter pairs") }
                for m in members {
                    guard let spec = m.value.stringValue else { throw RouteTableError("routes[\(i)].query.\(m.key): expected a parameter name") }
                    query.append((m.key, spec))
                }
            }
            do {
                routes.append(try Route(name: name, pattern: pattern, query: query, exclude: r["exclude"] == .bool(true)))
            } catch { throw RouteTableError("routes[\(i)]: \(error.message)") }
        }
        try self.init(hosts: hosts, routes: routes)
    }
}
