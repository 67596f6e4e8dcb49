import Foundation
@testable import SwitchyardCore
import Testing

@Suite struct JSONValueCodingTests {
    struct Item: Codable, Equatable {
        var name: String
        var count: Int64?
        var ratio: Double?
        var on: Bool?
        var tags: [String]?
        var extra: JSONValue?
        enum CodingKeys: String, CodingKey, CaseIterable { case name, count, ratio, on, tags, extra }
    }

    struct Outer: Codable, Equatable {
        var items: [Item]
        var fields: OrderedMembers<String>?
        enum CodingKeys: String, CodingKey, CaseIterable { case items, fields }
        static func == (a: Outer, b: Outer) -> Bool {
            a.items == b.items && a.fields?.members.map(\.key) == b.fields?.members.map(\.key) && a.fields?.members.map(\.value) == b.fields?.members.map(\.value)
        }
    }

    /// Free-form keys: no `CaseIterable`, so members it does not read are let through.
    struct Loose: Decodable { var name: String }

    func decode<T: Decodable>(_ type: T.Type, _ text: String) throws(JSONDecodingError) -> T {
        // The strict parser is what requests go through; a syntax error is a test bug here.
        try JSONValueDecoder().decode(type, from: try! JSONParser.parse(text))
    }

    func failure<T: Decodable>(_ type: T.Type, _ text: String) -> JSONDecodingError? {
        do {
            _ = try decode(type, text)
            return nil
        } catch { return error }
    }

    @Test func readsEveryKindOfMemberAndKeepsRawValues() throws {
        let item = try decode(Item.self, #"{"name": "a", "count": 1e3, "ratio": 0.25, "on": true, "tags": ["x", "y"], "extra": {"z": 1.50, "a": [null]}}"#)
        #expect(try decode(Item.self, #"{"name": "w", "count": 2.000}"#).count == 2, "a whole number written with zero decimals")
        #expect(item.name == "a" && item.count == 1000 && item.ratio == 0.25 && item.on == true && item.tags == ["x", "y"])
        // A JSONValue member is the value as written: number text and key order kept.
        #expect(item.extra.map(JSONWriter.compact) == #"{"z":1.50,"a":[null]}"#)
        let nulls = try decode(Item.self, #"{"name": "b", "count": null, "extra": null}"#)
        #expect(nulls.count == nil && nulls.extra == nil)
    }

    @Test func keepsTheOrderOfDataKeyedObjects() throws {
        let outer = try decode(Outer.self, #"{"items": [], "fields": {"z": "1", "a": "2", "m": "3"}}"#)
        #expect(outer.fields?.members.map(\.key) == ["z", "a", "m"])
        #expect(outer.fields?.members.map(\.value) == ["1", "2", "3"])
    }

    struct FailureCase: Sendable, CustomStringConvertible {
        let text: String
        let path: String
        let code: String
        let message: String
        var description: String { text }
    }

    @Test(arguments: [
        FailureCase(text: #"{"items": [{"name": 5}]}"#, path: "items[0].name", code: "wrong-type", message: "items[0].name must be a string, not number"),
        FailureCase(text: #"{"items": [{"name": "a"}, {}]}"#, path: "items[1].name", code: "missing-key", message: "items[1].name is required"),
        FailureCase(text: #"{"items": [{"name": "a", "cuont": 2}]}"#, path: "items[0].cuont", code: "unknown-field",
                    message: #"unknown field "cuont"; did you mean "count"? (known: name, count, ratio, on, tags, extra)"#),
        FailureCase(text: #"{"items": [{"name": "a", "count": 1.5}]}"#, path: "items[0].count", code: "invalid-value", message: "items[0].count: must be a whole number, not 1.5"),
        FailureCase(text: #"{"items": [{"name": "a", "count": 1e30}]}"#, path: "items[0].count", code: "invalid-value",
                    message: "items[0].count: 1e30 is out of range (-9223372036854775808…9223372036854775807)"),
        FailureCase(text: #"{"items": [{"name": "a", "count": 0.99999999999999999}]}"#, path: "items[0].count", code: "invalid-value",
                    message: "items[0].count: must be a whole number, not 0.99999999999999999"),
        FailureCase(text: #"{"items": [{"name": "a", "count": "3"}]}"#, path: "items[0].count", code: "wrong-type", message: "items[0].count must be a whole number, not string"),
        FailureCase(text: #"{"items": [{"name": "a", "on": 1}]}"#, path: "items[0].on", code: "wrong-type", message: "items[0].on must be true or false, not number"),
        FailureCase(text: #"{"items": [{"name": "a", "tags": ["x", 2]}]}"#, path: "items[0].tags[1]", code: "wrong-type", message: "items[0].tags[1] must be a string, not number"),
        FailureCase(text: #"{"items": [{"name": null}]}"#, path: "items[0].name", code: "wrong-type", message: "items[0].name must be a string, not null"),
        FailureCase(text: #"{"items": {}}"#, path: "items", code: "wrong-type", message: "items must be an array, not object"),
        FailureCase(text: #"{"items": [], "fields": {"a": 1}}"#, path: "fields.a", code: "wrong-type", message: "fields.a must be a string, not number"),
        FailureCase(text: #"{"items": [], "fields": {"a.b": 1}}"#, path: #"fields["a.b"]"#, code: "wrong-type", message: #"fields["a.b"] must be a string, not number"#),
        FailureCase(text: #"[1]"#, path: "", code: "wrong-type", message: "the value must be an object, not array"),
    ])
    func refusesWithThePathAndWhy(_ c: FailureCase) throws {
        let error = try #require(failure(Outer.self, c.text))
        #expect(error.path == c.path)
        #expect(error.code.name == c.code)
        #expect(error.message == c.message)
        #expect(error.field == c.path.split(whereSeparator: { $0 == "." || $0 == "[" }).first.map(String.init))
    }

    @Test func unknownMembersPassWhereTheKeysAreNotListed() throws {
        #expect(try decode(Loose.self, #"{"name": "a", "other": 1}"#).name == "a")
    }

    @Test func aTypesOwnRefusalKeepsItsPath() throws {
        struct Even: Decodable {
            var n: Int
            init(from decoder: any Decoder) throws {
                n = try decoder.singleValueContainer().decode(Int.self)
                guard n % 2 == 0 else { throw DecodingError.dataCorruptedError(in: try decoder.singleValueContainer(), debugDescription: "\(n) is odd") }
            }
        }
        struct Holder: Decodable { var values: [Even] }
        let error = try #require(failure(Holder.self, #"{"values": [2, 3]}"#))
        #expect(error.path == "values[1]" && error.message == "values[1]: 3 is odd")
    }

    @Test func encodesInDeclarationOrderWithNulls() throws {
        let item = Item(name: "a", count: 3, ratio: 0.5, on: nil, tags: ["t"], extra: .object([("k", .number(2, text: "2.0"))]))
        let value = try JSONValueEncoder().encode(item)
        #expect(JSONWriter.compact(value) == #"{"name":"a","count":3,"ratio":0.5,"on":null,"tags":["t"],"extra":{"k":2.0}}"#)
        let omitted = try JSONValueEncoder(nilMembers: .omitted).encode(item)
        #expect(omitted.objectMembers?.map(\.key) == ["name", "count", "ratio", "tags", "extra"])
    }

    @Test func roundTripsThroughTheDecoder() throws {
        let outer = Outer(items: [Item(name: "x", count: -9, ratio: 1e-3, on: false, tags: [], extra: nil)],
                          fields: OrderedMembers([("b", "1"), ("a", "2")]))
        let encoded = try JSONValueEncoder().encode(outer)
        #expect(JSONWriter.compact(encoded) == #"{"items":[{"name":"x","count":-9,"ratio":0.001,"on":false,"tags":[],"extra":null}],"fields":{"b":"1","a":"2"}}"#)
        #expect(try JSONValueDecoder().decode(Outer.self, from: encoded) == outer)
    }

    @Test func refusesNumbersJSONCannotWrite() {
        struct Ratio: Encodable { var values: [Double] }
        #expect(throws: JSONEncodingError(path: "values[1]", reason: "inf cannot be written in JSON")) {
            try JSONValueEncoder().encode(Ratio(values: [1, .infinity]))
        }
    }

    @Test func jsonValueCodableWithFoundationToo() throws {
        // Through Foundation's coders the value is rebuilt from their containers.
        let value = JSONValue.object([("a", .array([.int(1), .bool(true), .null, .string("s")]))])
        let data = try JSONEncoder().encode(value)
        let back = try JSONDecoder().decode(JSONValue.self, from: data)
        #expect(back == value)
    }
}
