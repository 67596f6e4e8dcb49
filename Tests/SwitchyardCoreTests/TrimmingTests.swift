import Foundation
import Testing
@testable import SwitchyardCore

/// `trimmingSpaces` trims exactly what Foundation's `.whitespaces` and `.whitespacesAndNewlines` do.
@Suite struct TrimmingTests {
    static let samples: [String] = [
        "", " ", "\t", "plain", "  both ends\t", "\u{00A0}no-break\u{00A0}", "\u{3000}ideographic\u{3000}",
        "\u{2028}line separator\u{2029}", "\u{0085}next line\u{0085}", "\r\nwindows\r\n", "\u{000B}\u{000C}tab-ish",
        "inner  spaces stay", "\u{200B}zero width is not a space\u{200B}", "é accented é", "👩‍👩‍👧 family 👩‍👩‍👧 ",
        " \u{2003}em space\u{2009}thin\u{2009} ", "\u{FEFF}bom\u{FEFF}", "\n", "\t \n \t",
    ]

    @Test(arguments: samples)
    func spacesAsFoundationTrimsThem(_ text: String) {
        #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingSpaces(newlines: true) == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func everySpaceSeparatorAndControlAgrees() {
        // Every scalar of the Basic Multilingual Plane and some beyond, alone and around a word.
        for value in UInt32(0)..<0x1_0400 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            for text in [String(scalar), "\(scalar)x\(scalar)"] {
                #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces), "U+\(String(value, radix: 16))")
                #expect(text.trimmingSpaces(newlines: true) == text.trimmingCharacters(in: .whitespacesAndNewlines), "U+\(String(value, radix: 16))")
            }
        }
    }
}
