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

/// One value being built; containers write into their slot, nested ones into slots of their own.
final class Slot {
    enum Storage {
        case empty
        case value(JSONValue)
        case object([(key: String, slot: Slot)])
        case array([Slot])
    }

    var storage: Storage = .empty

    var value: JSONValue {
        switch storage {
        case .empty: return .object([])
        case .value(let v): return v
        case .object(let members): return .object(members.map { ($0.key, $0.slot.value) })
        case .array(let items): return .array(items.map(\.value))
        }
    }

    /// The slot of member `key` (a member encoded twice keeps its first place and its last value).
    func member(_ key: String) -> Slot {
        if case .empty = storage { storage = .object([]) }
        guard case .object(var members) = storage else {
            let slot = Slot()
            storage = .object([(key, slot)])
            return slot
        }
        if let existing = members.first(where: { $0.key == key }) {
            existing.slot.storage = .empty
            return existing.slot
        }
        let slot = Slot()
        members.append((key, slot))
        storage = .object(members)
        return slot
    }

    func appended() -> Slot {
        if case .empty = storage { storage = .array([]) }
        let slot = Slot()
        if case .array(var items) = storage {
            items.append(slot)
            storage = .array(items)
        } else {
            storage = .array([slot])
        }
        return slot
    }
}

struct ValueEncoder: Encoder {
    let slot: Slot
    let codingPath: [any CodingKey]
    let nilMembers: JSONValueEncoder.NilMembers
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func child(_ slot: Slot, _ key: any CodingKey) -> ValueEncoder {
        ValueEncoder(slot: slot, codingPath: codingPath + [key], nilMembers: nilMembers)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = slot.storage {} else { slot.storage = .object([]) }
        return KeyedEncodingContainer(KeyedEncoding<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = slot.storage {} else { slot.storage = .array([]) }
        return UnkeyedEncoding(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleEncoding(encoder: self) }

    func encode<T: Encodable>(_ value: T) throws {
        switch value {
        case let v as JSONValue: slot.storage = .value(v)
        case let v as String: slot.storage = .value(.string(v))
        case let v as Bool: slot.storage = .value(.bool(v))
        case let v as Double: try number(v)
        case let v as Float: try number(Double(v))
        case let v as Int: slot.storage = .value(.number(Double(v), text: String(v)))
        case let v as Int64: slot.storage = .value(.number(Double(v), text: String(v)))
        case let v as Int32: slot.storage = .value(.number(Double(v), text: String(v)))
        case let v as UInt64: slot.storage = .value(.number(Double(v), text: String(v)))
        case let v as UInt: slot.storage = .value(.number(Double(v), text: String(v)))
        default: try value.encode(to: self)
        }
    }

    func number(_ d: Double) throws {
        guard d.isFinite else { throw JSONEncodingError(path: JSONDecodingError.path(codingPath), reason: "\(d) cannot be written in JSON") }
        slot.storage = .value(.number(d, text: JSONValueEncoder.numberText(d)))
    }
}

private struct KeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    func member(_ key: Key) -> ValueEncoder { encoder.child(encoder.slot.member(key.stringValue), key) }

    mutating func encodeNil(forKey key: Key) throws { member(key).slot.storage = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try member(key).encode(Int(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try member(key).encode(Int(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try member(key).encode(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try member(key).encode(Int(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try member(key).encode(Int(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try member(key).encode(UInt64(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try member(key).encode(value) }

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
        member(key).container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { member(key).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { encoder.child(encoder.slot.member("super"), AnyCodingKey("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { member(key) }
}

private struct UnkeyedEncoding: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int {
        if case .array(let items) = encoder.slot.storage { return items.count }
        return 0
    }

    func next() -> ValueEncoder {
        let index = count
        return encoder.child(encoder.slot.appended(), AnyCodingKey(intValue: index))
    }

    mutating func encodeNil() throws { next().slot.storage = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try next().encode(value) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        next().container(keyedBy: keyType)
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { next() }
}

private struct SingleEncoding: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }
    mutating func encodeNil() throws { encoder.slot.storage = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encode(value) }
}
