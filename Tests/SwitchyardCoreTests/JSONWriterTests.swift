import Foundation
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// The writer works on UTF-8 bytes and copies unescaped runs whole; what it writes must read back
/// as the same value, in our parser and in Foundation's, with every escape JSON and JavaScript need.
@Suite struct JSONWriterTests {
    @Test func escapesWhatJSONAndJavaScriptNeed() {
        #expect(JSONWriter.quote("a\"b\\c/d") == #""a\"b\\c/d""#)
        #expect(JSONWriter.quote("\n\r\t\u{08}\u{0C}\u{01}\u{1F}") == #""\n\r\t\b\f\u0001\u001f""#)
        #expect(JSONWriter.quote("x\u{2028}y\u{2029}z") == #""x\u2028y\u2029z""#)
        // Other characters starting with the byte E2 (U+2013, U+20AC, U+2192) stay as they are.
        #expect(JSONWriter.quote("–€→") == "\"–€→\"")
        #expect(JSONWriter.quote("é👍") == "\"é👍\"")
        #expect(JSONWriter.quote("") == "\"\"")
    }

    /// Text that would read differently in a terminal or a log than what it holds is escaped:
    /// a bidi override, zero-width and filler characters, a tag character (outside the BMP: a
    /// surrogate pair), the soft hyphen, C1 controls. Letters beside them are not.
    @Test func escapesDeceptiveFormatCharacters() throws {
        #expect(JSONWriter.quote("moc.\u{202E}evil") == #""moc.\u202eevil""#)
        #expect(JSONWriter.quote("a\u{200B}b\u{FEFF}c\u{3164}") == #""a\u200bb\ufeffc\u3164""#)
        #expect(JSONWriter.quote("tag\u{E0041}") == #""tag\udb40\udc41""#)
        #expect(JSONWriter.quote("soft\u{AD}\u{9B}x") == #""soft\u00ad\u009bx""#)
        #expect(JSONWriter.quote("ü\u{200D}ẞ👩‍💻") == "\"ü\u{200D}ẞ👩‍💻\"")
        let text = "x\u{202E}y\u{E0041}z\u{2066}\u{AD}"
        #expect(try JSONParser.parse(JSONWriter.quote(text)) == JSONValue.string(text))
    }

    @Test func compactAndPrettyKeepOrderAndShape() throws {
        let value = try JSONParser.parse(#"{"z": [1, "a\nb", {}], "a": {"k": [], "n": null, "t": true}}"#)
        #expect(JSONWriter.compact(value) == #"{"z":[1,"a\nb",{}],"a":{"k":[],"n":null,"t":true}}"#)
        #expect(JSONWriter.pretty(value) == """
            {
              "z": [
                1,
                "a\\nb",
                {}
              ],
              "a": {
                "k": [],
                "n": null,
                "t": true
              }
            }
            """)
    }

    @Test func randomStringsReadBackTheSame() throws {
        var rng = SeededGenerator(seed: 11)
        let pieces = ["a", "\"", "\\", "\n", "\u{00}", "\u{1F}", "\u{7F}", "é", "\u{2028}", "\u{2029}", "\u{2027}", "€", "👍", "/", " ", "\u{202E}", "\u{200B}", "\u{E0041}", "\u{AD}", "ẞ"]
        for _ in 0..<2_000 {
            let s = (0..<Int.random(in: 0...12, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let key = (0..<Int.random(in: 0...3, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let text = JSONWriter.compact(.object([(key, .array([.string(s)]))]))
            let unsafe = text.unicodeScalars.contains(where: \.isUnsafeToDisplay)
            #expect(!unsafe)
            let ours = try JSONParser.parse(text)
            #expect(ours.objectMembers?.first?.key == key)
            #expect(ours[key]?.arrayValue?.first?.stringValue == s)
            let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String]]
            #expect(foundation?[key]?.first == s, "\(text)")
        }
    }
}
