import SwitchyardCore

/// The type of a route parameter: `{name}` (string), `{name:int}`, `{name:uuid}`,
/// `{name:a|b|c}` (one of these values), `{name:url}` (a whole URL embedded in the rest of the
/// path, query included), `{name:*}` (the rest of the path, any number of segments).
public enum ParameterType: Sendable, Equatable, CustomStringConvertible {
    case string
    case int
    case uuid
    case oneOf([String])
    case url
    case rest

    /// Type names a pattern may use; anything else must be an enum of two or more values (`a|b`).
    static let names = ["string", "int", "uuid", "url", "*", "path"]
    /// Names other tools use for the same types, suggested when written here.
    static let otherNames = ["integer": "int", "number": "int", "uint": "int", "digits": "int", "str": "string", "text": "string",
                             "guid": "uuid", "uri": "url", "rest": "path", "all": "path"]

    init(_ spec: Substring) throws(RouteTableError) {
        switch spec {
        case "", "string": self = .string
        case "int": self = .int
        case "uuid": self = .uuid
        case "url": self = .url
        case "*", "path": self = .rest
        default:
            let values = spec.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard values.count >= 2, values.allSatisfy({ !$0.isEmpty }) else {
                let hint = (Self.otherNames[spec.lowercased()] ?? DocumentShape.suggestion(for: String(spec), among: Self.names)).map { " — did you mean \($0)?" } ?? ""
                throw RouteTableError("unknown parameter type \(JSONWriter.quote(String(spec)))\(hint) (types: \(Self.names.joined(separator: ", ")); an enum lists two or more values separated by |)")
            }
            if let twice = values.enumerated().first(where: { i, v in values[..<i].contains(v) })?.element {
                throw RouteTableError("the enum \(JSONWriter.quote(String(spec))) lists \(JSONWriter.quote(twice)) twice")
            }
            self = .oneOf(values)
        }
    }

    /// The type in words, for messages: `string`, `integer`, `UUID`, `one of a, b`, `URL`, `path`.
    public var description: String {
        switch self {
        case .string: return "string"
        case .int: return "integer"
        case .uuid: return "UUID"
        case .oneOf(let values): return "one of " + values.joined(separator: ", ")
        case .url: return "URL"
        case .rest: return "path"
        }
    }

    /// Why `text` is no value of this type, for messages: `is not an integer`, `is out of the
    /// integer range`, `is not a UUID`, `is not one of a, b`.
    public func mismatch(_ text: String) -> String {
        switch self {
        case .int:
            let digits = text.first == "-" || text.first == "+" ? text.dropFirst() : text[...]
            return !digits.isEmpty && digits.allSatisfy({ $0.isASCII && $0.isNumber }) ? "is out of the integer range" : "is not an integer"
        case .uuid: return "is not a UUID"
        case .url: return "is not a URL"
        case .oneOf: return "is not " + description
        case .string, .rest: return "is not a \(description)"
        }
    }

    /// The typed value of `text`, or nil when it does not fit.
    public func value(_ text: String) -> RouteValue? {
        switch self {
        case .string: return text.isEmpty ? nil : .string(text)
        case .int: return Int(text).map(RouteValue.int)
        case .uuid: return UUIDText.parse(text).map(RouteValue.uuid)
        case .oneOf(let values): return values.contains(where: { ExactText.same($0, text) }) ? .string(text) : nil
        // What matching accepts as an embedded URL (scheme://…), so a URL built from a value
        // routes back to the same route (javascript:…, //host or plain text would not).
        case .url: return URLText.split(text) == nil ? nil : .url(text, nested: nil)
        case .rest: return .string(text)
        }
    }
}

/// A parameter's typed value.
public indirect enum RouteValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case string(String)
    case int(Int)
    /// A UUID in canonical lower-case form.
    case uuid(String)
    /// An embedded URL, and the route it leads to in the same table, if any.
    case url(String, nested: RouteMatch?)

    /// The value as text, as it goes into a URL.
    public var text: String {
        switch self {
        case .string(let s), .uuid(let s): return s
        case .int(let i): return String(i)
        case .url(let u, _): return u
        }
    }

    /// The value as text, the same as `text`.
    public var description: String { text }
}

/// One segment of a route's path.
package enum Segment: Sendable, Equatable {
    case literal(String)
    case parameter(name: String, type: ParameterType)
}

/// A query item a route reads: item name → parameter, optional or required.
public struct QueryParameter: Sendable, Equatable {
    /// The query item's name in the URL.
    public var item: String
    /// The parameter name the item's value is bound to in a match.
    public var parameter: String
    /// The type the value must have (never `url` or `rest`).
    public var type: ParameterType
    /// Whether the URL may leave the item out (a spec ending in `?`); a missing required item means the route does not match.
    public var optional: Bool
}

enum UUIDText {
    static func parse(_ s: String) -> String? {
        guard s.utf8.count == 36 else { return nil }
        for (i, b) in s.utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard b == UInt8(ascii: "-") else { return nil }
            } else {
                guard (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46) else { return nil }
            }
        }
        return s.lowercased()
    }
}
