import Foundation

/// Encodes `Encodable` types into a `JSONValue`, keeping members in the order they are encoded
/// (for synthesized conformances, the order the properties are declared), so responses and
/// documents are written from typed structs and read the same every time.
///
/// ```swift
/// struct Answer: Encodable { var code: String; var expiresAt: String? }
/// JSONWriter.compact(try JSONValueEncoder().encode(Answer(code: "a1", expiresAt: nil)))
/// // {"code":"a1","expiresAt":null}
/// ```
public struct JSONValueEncoder: Sendable {
    /// What an optional property that is nil becomes.
    public enum NilMembers: Sendable {
        /// A member whose value is `null`: every field of an answer is always present.
        case null
        /// No member.
        case omitted
    }

    /// What nil optionals become; `null` unless chosen otherwise.
    public var nilMembers: NilMembers

    /// An encoder writing nil optionals as `nilMembers` says.
    public init(nilMembers: NilMembers = .null) { self.nilMembers = nilMembers }

    /// `value` as a JSON value; refuses numbers JSON cannot write (infinity, NaN) with their path.
    public func encode<T: Encodable>(_ value: T) throws(JSONEncodingError) -> JSONValue {
        let slot = Slot()
        do { try ValueEncoder(slot: slot, codingPath: [], nilMembers: nilMembers).encode(value) } catch let error as JSONEncodingError {
            throw error
        } catch {
            throw JSONEncodingError(path: "", reason: "\(error)")
        }
        return slot.value
    }

    /// The text a number is written with: whole numbers without a fraction (`3`, not `3.0`).
    static func numberText(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }
}

/// A value `JSONValueEncoder` cannot write, and where it is.
public struct JSONEncodingError: SwitchyardError, Equatable {
    /// The JSON path of the value.
    public var path: String
    /// Why it cannot be written.
    public var reason: String
    /// `invalid-value`.
    public var code: ErrorCode { .invalidValue }
    /// The path and the reason.
    public var message: String { path.isEmpty ? reason : "\(path): \(reason)" }
    /// The path and the reason.
    public var description: String { message }
}

// MARK: - The encoder

/// One value being built. Containers write into their slot: a member or element that is a
/// plain value is kept as it is, and only one that encodes itself (a struct, an array) gets a
/// slot of its own.
final class Slot {
    enum Child {
        case value(JSONValue)
        case nested(Slot)

        var value: JSONValue {
            switch self {
            case .value(let v): return v
            case .nested(let slot): return slot.value
            }
        }
    }

    enum Kind { case empty, single, object, array }

    var kind = Kind.empty
    var single = JSONValue.null
    var keys: [String] = []
    var children: [Child] = []

    var value: JSONValue {
        switch kind {
        case .empty: return .object([])
        case .single: return single
        case .object: return .object(zip(keys, children).map { ($0, $1.value) })
        case .array: return .array(children.map(\.value))
        }
    }

    func become(_ kind: Kind) {
        guard self.kind != kind else { return }
        self.kind = kind
        keys = []
        children = []
    }

    /// Sets member `key` (a member encoded twice keeps its first place and its last value).
    func set(_ key: String, _ child: Child) {
        become(.object)
        if let i = keys.firstIndex(of: key) { children[i] = child } else {
            keys.append(key)
            children.append(child)
        }
    }

    func append(_ child: Child) {
        become(.array)
        children.append(child)
    }

    func setSingle(_ value: JSONValue) {
        kind = .single
        single = value
    }
}

struct ValueEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    let nilMembers: JSONValueEncoder.NilMembers
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.become(.object)
        return KeyedEncodingContainer(KeyedEncoding<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.become(.array)
        return UnkeyedEncoding(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleEncoding(encoder: self) }

    /// `value` as a child of a container at `key`: a plain value as it is, anything else in a
    /// slot of its own.
    func child<T: Encodable>(_ value: T, at key: @autoclosure () -> any CodingKey) throws -> Slot.Child {
        if let plain = try Self.plain(value, path: { codingPath + [key()] }) { return .value(plain) }
        let nested = Slot()
        try value.encode(to: ValueEncoder(slot: nested, codingPath: codingPath + [key()], nilMembers: nilMembers))
        return .nested(nested)
    }

    /// The JSON value of a string, number, boolean or `JSONValue`; nil for any other type.
    static func plain<T: Encodable>(_ value: T, path: () -> [any CodingKey]) throws -> JSONValue? {
        switch value {
        case let v as String: return .string(v)
        case let v as Int: return .number(Double(v), text: String(v))
        case let v as Int64: return .number(Double(v), text: String(v))
        case let v as Bool: return .bool(v)
        case let v as JSONValue: return v
        case let v as Double: return try number(v, path)
        case let v as Int32: return .number(Double(v), text: String(v))
        case let v as UInt64: return .number(Double(v), text: String(v))
        case let v as UInt: return .number(Double(v), text: String(v))
        case let v as Float: return try number(Double(v), path)
        default: return nil
        }
    }

    static func number(_ d: Double, _ path: () -> [any CodingKey]) throws -> JSONValue {
        guard d.isFinite else { throw JSONEncodingError(path: JSONDecodingError.path(path()), reason: "\(d) cannot be written in JSON") }
        return .number(d, text: JSONValueEncoder.numberText(d))
    }

    /// Encodes `value` into this encoder's own slot.
    func encode<T: Encodable>(_ value: T) throws {
        if let plain = try Self.plain(value, path: { codingPath }) { return slot.setSingle(plain) }
        try value.encode(to: self)
    }
}

private struct KeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil(forKey key: Key) throws { encoder.slot.set(key.stringValue, .value(.null)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { encoder.slot.set(key.stringValue, try encoder.child(value, at: key)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { encoder.slot.set(key.stringValue, .value(.bool(value))) }
    mutating func encode(_ value: String, forKey key: Key) throws { encoder.slot.set(key.stringValue, .value(.string(value))) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try encode(value as Double?, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encode(value as Float?, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { encoder.slot.set(key.stringValue, .value(.number(Double(value), text: String(value)))) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { encoder.slot.set(key.stringValue, .value(.number(Double(value), text: String(value)))) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(UInt64(value), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try encode(Int(value), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try encode(UInt64(value), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { encoder.slot.set(key.stringValue, .value(.number(Double(value), text: String(value)))) }

    private mutating func encode<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }

    // Nil optionals become `null` members unless the encoder omits them.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try put(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try put(value, key) }

    private mutating func put<T: Encodable>(_ value: T?, _ key: Key) throws {
        if let value { try encode(value, forKey: key) } else if encoder.nilMembers == .null { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        nested(key).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { nested(key).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { nested(AnyCodingKey("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { nested(key) }

    private func nested(_ key: any CodingKey) -> ValueEncoder {
        let slot = Slot()
        encoder.slot.set(key.stringValue, .nested(slot))
        return ValueEncoder(slot: slot, codingPath: codingPath + [key], nilMembers: encoder.nilMembers)
    }
}

private struct UnkeyedEncoding: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.slot.children.count }

    mutating func encodeNil() throws { encoder.slot.append(.value(.null)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = count
        encoder.slot.append(try encoder.child(value, at: AnyCodingKey(intValue: index)))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nested().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nested().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { nested() }

    private func nested() -> ValueEncoder {
        let index = count
        let slot = Slot()
        encoder.slot.append(.nested(slot))
        return ValueEncoder(slot: slot, codingPath: codingPath + [AnyCodingKey(intValue: index)], nilMembers: encoder.nilMembers)
    }
}

private struct SingleEncoding: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    mutating func encodeNil() throws { encoder.slot.setSingle(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encode(value) }
}
