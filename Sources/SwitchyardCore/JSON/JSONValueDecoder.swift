import Foundation

/// Decodes `Decodable` types from a `JSONValue` — the strict parser's output — so a request
/// body or a document is read into a typed struct in one step, with every refusal naming its
/// JSON path.
///
/// ```swift
/// struct Body: Decodable {
///     var name: String
///     var limit: Int?
///     enum CodingKeys: String, CodingKey, CaseIterable { case name, limit }
/// }
/// let body = try JSONValueDecoder().decode(Body.self, from: JSONParser.parse(#"{"name": "a", "limt": 3}"#))
/// // JSONDecodingError: limt: unknown field "limt"; did you mean "limit"? (known: name, limit)
/// ```
///
/// The reading is strict: a string is never read as a number or the reverse, an integer must
/// be a whole number in its type's range, and an object whose `CodingKeys` are `CaseIterable`
/// refuses members its keys do not name. A `JSONValue` property receives the value as written
/// (its number text too), for fields whose checks go beyond a type.
public struct JSONValueDecoder: Sendable {
    /// A decoder with the strict reading described above.
    public init() {}

    /// `T` read from `value`, or the first problem found with its path.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws(JSONDecodingError) -> T {
        do { return try ValueDecoder(value: value, codingPath: []).decode(T.self) } catch let error as JSONDecodingError {
            throw error
        } catch let error as DecodingError {
            throw JSONDecodingError(error)
        } catch {
            throw JSONDecodingError(path: "", problem: .invalid("\(error)"))
        }
    }
}

/// Why a `JSONValue` could not be read as a type, and where.
public struct JSONDecodingError: SwitchyardError, Equatable {
    /// What is wrong at `path`.
    public enum Problem: Sendable, Equatable {
        /// A value of another JSON type: `expected` names what fits (`a string`, `a whole number`).
        case wrongType(expected: String, found: String)
        /// A required member is absent.
        case missing
        /// A member named `key` that the type does not read; `known` lists the ones it does.
        case unknownField(key: String, known: [String])
        /// The type refused the value itself (out of range, not one of the allowed values).
        case invalid(String)
    }

    /// The JSON path of the value at fault: `parameters.userId`, `links[3].code`, `` for the whole value.
    public var path: String
    /// What is wrong there.
    public var problem: Problem

    /// A problem at `path`.
    public init(path: String, problem: Problem) {
        self.path = path
        self.problem = problem
    }

    /// A problem at the place `codingPath` names: for a type's own `init(from:)` that refuses
    /// a value the way the decoder would (`try decoder.codingPath`).
    public init(at codingPath: [any CodingKey], _ problem: Problem) {
        self.init(path: Self.path(codingPath), problem: problem)
    }

    /// The first member name of the path (`parameters` for `parameters.userId`), or nil for the whole value.
    public var field: String? {
        guard !path.isEmpty else { return nil }
        let end = path.firstIndex(where: { $0 == "." || $0 == "[" }) ?? path.endIndex
        return end == path.startIndex ? nil : String(path[..<end])
    }

    /// `wrong-type`, `missing-key`, `unknown-field` or `invalid-value`.
    public var code: ErrorCode {
        switch problem {
        case .wrongType: return .wrongType
        case .missing: return .missingKey
        case .unknownField: return .unknownField
        case .invalid: return .invalidValue
        }
    }

    /// The problem in words, starting with what it is about: `maxUses must be a whole number, not a string`.
    public var message: String {
        let subject = path.isEmpty ? "the value" : path
        switch problem {
        case .wrongType(let expected, let found): return "\(subject) must be \(expected), not \(found)"
        case .missing: return "\(subject) is required"
        case .unknownField(let key, let known):
            let meant = DocumentShape.suggestion(for: key, among: known).map { "; did you mean \(JSONWriter.quote($0))?" } ?? ""
            return "unknown field \(JSONWriter.quote(key))\(meant) (known: \(known.joined(separator: ", ")))"
        case .invalid(let reason): return "\(subject): \(reason)"
        }
    }

    /// The path.
    public var location: SourceLocation? { path.isEmpty ? nil : SourceLocation(path: path) }

    /// The path and the message.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }

    init(_ error: DecodingError) {
        switch error {
        case .typeMismatch(_, let c): self.init(path: Self.path(c.codingPath), problem: .invalid(c.debugDescription))
        case .valueNotFound(_, let c): self.init(path: Self.path(c.codingPath), problem: .missing)
        case .keyNotFound(let key, let c): self.init(path: Self.path(c.codingPath + [key]), problem: .missing)
        case .dataCorrupted(let c): self.init(path: Self.path(c.codingPath), problem: .invalid(c.debugDescription))
        @unknown default: self.init(path: "", problem: .invalid("\(error)"))
        }
    }

    /// A coding path written as a JSON path: `links[3].code`, `details["A.b"]`.
    static func path(_ keys: [any CodingKey]) -> String {
        var path = ""
        for key in keys {
            if let index = key.intValue, key.stringValue == "Index \(index)" { path += "[\(index)]" } else { path = JSONValue.path(path, key.stringValue) }
        }
        return path
    }
}

extension ErrorCode {
    /// An object member the reader does not know (a request body's field, a document's key).
    public static let unknownField = ErrorCode("unknown-field")
}

/// An object read or written with its members in order, for objects whose names are data
/// (route parameters, configured fields): `{"userId": "42", "tab": "posts"}`.
public struct OrderedMembers<Value> {
    /// The members, in the order written.
    public var members: [(key: String, value: Value)]

    /// An object of these members.
    public init(_ members: [(key: String, value: Value)] = []) { self.members = members }
}

extension OrderedMembers: Sendable where Value: Sendable {}

extension OrderedMembers: Decodable where Value: Decodable {
    /// Reads every member of an object, in order.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        members = try container.allKeys.map { ($0.stringValue, try container.decode(Value.self, forKey: $0)) }
    }
}

extension OrderedMembers: Encodable where Value: Encodable {
    /// Writes the members as an object, in order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        for (key, value) in members { try container.encode(value, forKey: AnyCodingKey(key)) }
    }
}

/// A coding key of any name or index.
public struct AnyCodingKey: CodingKey, Sendable {
    /// The name.
    public var stringValue: String
    /// The index, for array positions.
    public var intValue: Int?
    /// A key named `name`.
    public init(_ name: String) { stringValue = name }
    /// A key named `stringValue`.
    public init(stringValue: String) { self.stringValue = stringValue }
    /// The key of array position `intValue`.
    public init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

extension JSONValue: Codable {
    /// The value as written, when read by `JSONValueDecoder`; from other decoders, the value
    /// rebuilt from their containers (object key order is whatever they give).
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? ValueDecoder {
            self = decoder.value
            return
        }
        if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            self = .object(try object.allKeys.map { ($0.stringValue, try object.decode(JSONValue.self, forKey: $0)) })
        } else if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(JSONValue.self)) }
            self = .array(items)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { self = .null } else if let b = try? single.decode(Bool.self) { self = .bool(b) } else if let d = try? single.decode(Double.self) {
                self = .number(d, text: JSONValueEncoder.numberText(d))
            } else { self = .string(try single.decode(String.self)) }
        }
    }

    /// Writes the value as it is; `JSONValueEncoder` takes it unchanged, number text included.
    public func encode(to encoder: any Encoder) throws {
        if let encoder = encoder as? ValueEncoder {
            encoder.slot.setSingle(self)
            return
        }
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let b):
            var single = encoder.singleValueContainer()
            try single.encode(b)
        case .number(let d, _):
            var single = encoder.singleValueContainer()
            try single.encode(d)
        case .string(let s):
            var single = encoder.singleValueContainer()
            try single.encode(s)
        case .array(let items):
            var array = encoder.unkeyedContainer()
            for item in items { try array.encode(item) }
        case .object(let members):
            var object = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in members { try object.encode(value, forKey: AnyCodingKey(key)) }
        }
    }
}

// MARK: - The decoder

struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func failure(_ problem: JSONDecodingError.Problem, at path: [any CodingKey]? = nil) -> JSONDecodingError {
        JSONDecodingError(path: JSONDecodingError.path(path ?? codingPath), problem: problem)
    }

    func mismatch(_ expected: String) -> JSONDecodingError {
        failure(.wrongType(expected: expected, found: value.typeName))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch("an object") }
        if let known = Self.knownNames(Key.self) {
            for (key, _) in members where !known.contains(key) {
                throw failure(.unknownField(key: key, known: known), at: codingPath + [AnyCodingKey(key)])
            }
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch("an array") }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleContainer(decoder: self) }

    /// The key names of a `CaseIterable` coding-key type, in declaration order; nil for others.
    static func knownNames<Key: CodingKey>(_ type: Key.Type) -> [String]? {
        guard let all = type as? any CaseIterable.Type else { return nil }
        return names(all)
    }

    private static func names<K: CaseIterable>(_ type: K.Type) -> [String] {
        type.allCases.compactMap { ($0 as? any CodingKey)?.stringValue }
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        switch type {
        case is JSONValue.Type: return value as! T
        case is String.Type: return try string() as! T
        case is Bool.Type: return try bool() as! T
        case is Double.Type: return try number() as! T
        case is Float.Type: return Float(try number()) as! T
        case is Int.Type: return try integer(Int.self) as! T
        case is Int8.Type: return try integer(Int8.self) as! T
        case is Int16.Type: return try integer(Int16.self) as! T
        case is Int32.Type: return try integer(Int32.self) as! T
        case is Int64.Type: return try integer(Int64.self) as! T
        case is UInt.Type: return try integer(UInt.self) as! T
        case is UInt8.Type: return try integer(UInt8.self) as! T
        case is UInt16.Type: return try integer(UInt16.self) as! T
        case is UInt32.Type: return try integer(UInt32.self) as! T
        case is UInt64.Type: return try integer(UInt64.self) as! T
        default: return try T(from: self)
        }
    }

    func string() throws -> String {
        guard case .string(let s) = value else { throw mismatch("a string") }
        return s
    }

    func bool() throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch("true or false") }
        return b
    }

    func number() throws -> Double {
        guard case .number(let d, _) = value else { throw mismatch("a number") }
        return d
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        guard case .number(let d, let text) = value else { throw mismatch("a whole number") }
        if let exact = I(text) { return exact }
        let shown = text.utf8.count <= 40 ? text : String(text.prefix(40)) + "… (\(text.utf8.count) characters)"
        // A fraction is refused as written, also where the nearest double is whole (0.99999999999999999).
        let fraction = text.contains(where: { $0 == "e" || $0 == "E" }) ? nil : text.firstIndex(of: ".").map { text[text.index(after: $0)...] }
        guard d == d.rounded(.towardZero), fraction?.allSatisfy({ $0 == "0" }) ?? true else { throw failure(.invalid("must be a whole number, not \(shown)")) }
        guard let exact = I(exactly: d) else { throw failure(.invalid("\(shown) is out of range (\(I.min)…\(I.max))")) }
        return exact
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(key: String, value: JSONValue)]
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { members.contains { $0.key == key.stringValue } }

    func child(_ key: Key) throws -> ValueDecoder {
        guard let member = members.last(where: { $0.key == key.stringValue }) else {
            throw decoder.failure(.missing, at: codingPath + [key])
        }
        return ValueDecoder(value: member.value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).value == .null }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decode(T.self) }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    mutating func next() throws -> ValueDecoder {
        let path = codingPath + [AnyCodingKey(intValue: currentIndex)]
        guard !isAtEnd else { throw JSONDecodingError(path: JSONDecodingError.path(path), problem: .missing) }
        defer { currentIndex += 1 }
        return ValueDecoder(value: items[currentIndex], codingPath: path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(T.self) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}

private struct SingleContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    func decodeNil() -> Bool { decoder.value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(T.self) }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decode(type) }
    func decode(_ type: String.Type) throws -> String { try decoder.decode(type) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decode(type) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.decode(type) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decode(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decode(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decode(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decode(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decode(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decode(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decode(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decode(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decode(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decode(type) }
}
