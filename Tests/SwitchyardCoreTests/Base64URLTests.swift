import Foundation
import SwitchyardCore
import Testing

/// Base64URL against Foundation's base64 as the reference: the same text for every length and
/// seeded random bytes, and exactly one spelling read back for each byte string.
@Suite struct Base64URLTests {
    /// Foundation's base64 with the URL alphabet and no padding.
    static func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func encodesAsTheReferenceAndReadsItsOwnTextBack() {
        var rng = SystemRandomNumberGenerator()
        var seed: UInt64 = 0x5EED
        for length in 0..<100 {
            for _ in 0..<20 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let bytes = (0..<length).map { i in UInt8(truncatingIfNeeded: (seed >> UInt64(i % 8 * 8)) &+ UInt64(i) &* 31) }
                let text = Base64URL.encode(bytes)
                #expect(text == Self.reference(bytes), "\(bytes)")
                #expect(Base64URL.decode(text) == bytes, "\(text)")
            }
        }
        let random = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        #expect(Base64URL.decode(Base64URL.encode(random)) == random)
    }

    /// Every other spelling is refused: unused bits set in the last character, a length no byte
    /// string has, padding, the standard alphabet's `+` and `/`, spaces and non-ASCII.
    @Test(arguments: ["QQ", "QR", "QUI", "QUJ", "Q", "QUJDR", "QQ==", "a+b/", "ab c", "abcé", "QUJD="])
    func onlyTheCanonicalSpellingReads(_ text: String) {
        let canonical = Base64URL.decode(text).map(Base64URL.encode)
        #expect(canonical == nil || canonical == text, "\(text) read as another text's bytes")
        if text == "QR" || text == "QUJ" || text == "Q" || text == "QUJDR" || text.contains("=") || text.contains("+") || text.contains(" ") || text.contains("é") {
            #expect(Base64URL.decode(text) == nil, "\(text)")
        } else {
            #expect(Base64URL.decode(text) != nil, "\(text)")
        }
    }
}
