@testable import SwitchyardCore
import Testing

@Suite struct JSONParserTests {
    @Test func keepsObjectKeyOrder() throws {
        let value = try JSONParser.parse(#"{"z": 1, "a": 2, "m": {"y": true, "b": null}}"#)
        #expect(value.objectMembers?.map(\.key) == ["z", "a", "m"])
        #expect(value["m"]?.objectMembers?.map(\.key) == ["y", "b"])
        #expect(JSONWriter.compact(value) == #"{"z":1,"a":2,"m":{"y":true,"b":null}}"#)
    }

    struct SyntaxCase: Sendable, CustomStringConvertible {
        let text: String
        let line: Int
        let column: Int
        let reason: String
        var description: String { reason }
    }

    @Test(arguments: [
        SyntaxCase(text: "{\n  \"a\": 1,\n  \"b\": tru\n}", line: 3, column: 8, reason: "invalid literal"),
        SyntaxCase(text: "{\"a\": 1,}", line: 1, column: 9, reason: "expected a string key"),
        SyntaxCase(text: "[1, 2", line: 1, column: 6, reason: "unexpected end of input"),
        SyntaxCase(text: "{\"a\" 1}", line: 1, column: 6, reason: "expected ':'"),
        SyntaxCase(text: "{}\n x", line: 2, column: 2, reason: "after the end of the document"),
        SyntaxCase(text: "\"tab\there\"", line: 1, column: 5, reason: "control character"),
        SyntaxCase(text: "[01]", line: 1, column: 2, reason: "leading zeros"),
    ])
    func reportsLineAndColumn(_ c: SyntaxCase) {
        do {
            _ = try JSONParser.parse(c.text)
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.line == c.line)
            #expect(error.column == c.column)
            #expect(error.reason.contains(c.reason), "\(error.reason)")
        }
    }

    @Test func decodesEscapesAndSurrogates() throws {
        let value = try JSONParser.parse(#"["a\/b", "\u00e9\ud83d\ude00", "line\nbreak"]"#)
        #expect(value.arrayValue?.compactMap(\.stringValue) == ["a/b", "é😀", "line\nbreak"])
    }

    @Test func loneSurrogatesAreReplacedInFilesAndRefusedWhereAsked() throws {
        #expect(try JSONParser.parse(#""a\ud800b""#) == .string("a\u{FFFD}b"))
        #expect(try JSONParser.parse(#""\udc00""#) == .string("\u{FFFD}"))
        #expect(throws: JSONParser.SyntaxError(line: 1, column: 3, reason: "\\uD800 is half of a surrogate pair without its other half; it is not text")) {
            try JSONParser.parse(bytes: Array(#""a\ud800b""#.utf8), loneSurrogates: .refuse)
        }
        #expect(throws: JSONParser.SyntaxError(line: 1, column: 2, reason: "\\uDC00 is half of a surrogate pair without its other half; it is not text")) {
            try JSONParser.parse(bytes: Array(#""\udc00""#.utf8), loneSurrogates: .refuse)
        }
        #expect(try JSONParser.parse(bytes: Array(#""\ud83d\ude00""#.utf8), loneSurrogates: .refuse) == .string("😀"))
    }

    @Test func duplicateKeysAreKeptInFilesAndRefusedWhereAsked() throws {
        let text = "{\"a\": 1,\n \"b\": {\"c\": 2, \"c\": 3}}"
        #expect(try JSONParser.parse(text)["b"]?.objectMembers?.count == 2)
        #expect(throws: JSONParser.SyntaxError(line: 2, column: 16, reason: "the key \"c\" appears twice in one object")) {
            try JSONParser.parse(bytes: Array(text.utf8), duplicateKeys: .refuse)
        }
        // The same key in two objects is no duplicate.
        #expect(throws: Never.self) { try JSONParser.parse(bytes: Array(#"[{"a": 1}, {"a": 2}]"#.utf8), duplicateKeys: .refuse) }
    }

    @Test func refusesHostileNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(deep) }
    }
}
