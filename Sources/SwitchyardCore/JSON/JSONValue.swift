/// A JSON value that keeps the order of object keys as written.
///
/// Foundation's JSON APIs return dictionaries, which lose key order; the Opener manifest's
/// `redirects` object is ordered (rules are tried in file order), so the loader works on this type.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, kept with its source text so that it can be written back unchanged.
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    /// Object members in source order. Duplicate keys are kept; lookups return the last one.
    case object([(key: String, value: JSONValue)])

    /// Structural equality: numbers by value (not source text), objects member by member in order, duplicate keys included.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a, _), .number(b, _)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// Makes a number value from an integer.
    public static func int(_ value: Int) -> JSONValue { .number(Double(value), text: String(value)) }

    /// Every key that appears more than once in one object, anywhere in this value: the JSON
    /// path of the member (`actions[0].regex`), the key and how many times it appears. Readers
    /// use the last of them (see the subscript); a file that repeats a key says two things.
    public func repeatedKeys(at path: String = "") -> [(path: String, key: String, count: Int)] {
        switch self {
        case .object(let members):
            var counts: [String: Int] = [:]
            for member in members { counts[member.key, default: 0] += 1 }
            var found: [(path: String, key: String, count: Int)] = []
            var reported: Set<String> = []
            for member in members {
                if let n = counts[member.key], n > 1, reported.insert(member.key).inserted { found.append((Self.path(path, member.key), member.key, n)) }
            }
            for member in members { found += member.value.repeatedKeys(at: Self.path(path, member.key)) }
            return found
        case .array(let items):
            return items.enumerated().flatMap { $0.element.repeatedKeys(at: "\(path)[\($0.offset)]") }
        default:
            return []
        }
    }

    /// `parent.key`, or `parent["key"]` for a key that is not a plain name (`details["ABCDE12345.app"]`).
    static func path(_ parent: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F || $0 == 0x2D }
        if plain { return parent.isEmpty ? key : parent + "." + key }
        return parent + "[" + JSONWriter.quote(key) + "]"
    }

    /// The member named `key` of an object (the last one when the key repeats), or nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// The string payload, or nil.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The array payload, or nil.
    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// The object members, or nil.
    public var objectMembers: [(key: String, value: JSONValue)]? {
        if case .object(let m) = self { return m }
        return nil
    }

    /// A short name of the value's type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// True for values a manifest treats as "on": `true` or a non-zero number (`"headers": 1`).
    public var isTruthy: Bool {
        switch self {
        case .bool(let b): return b
        case .number(let n, _): return n != 0
        case .string(let s): return !s.isEmpty && s != "0" && s != "false"
        default: return false
        }
    }
}
