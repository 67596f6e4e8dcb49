import SwitchyardCore
import Testing

/// The one definition of text that is never shown raw (terminals, logs, messages).
@Suite struct DisplayTextTests {
    @Test func controlAndDeceptiveFormatCharactersAreUnsafeToDisplay() {
        let unsafe: [UInt32] = [0x00, 0x07, 0x1B, 0x1F, 0x7F, 0x80, 0x9B, 0x9F, 0x202A, 0x202E, 0x2066, 0x2069, 0x2028, 0x2029, 0x200E, 0x200F, 0x061C,
                                0x200B, 0x2060, 0x2064, 0xFEFF, 0x00AD, 0x034F, 0x180E]
        // The zero width joiners stay: scripts and emoji sequences need them.
        let safe: [UInt32] = [0x20, 0x41, 0x7E, 0xA0, 0xE9, 0x200C, 0x200D, 0x2027, 0x202F, 0x2065, 0x206A, 0x1F600]
        for v in unsafe { #expect(Unicode.Scalar(v)!.isUnsafeToDisplay, "U+\(String(v, radix: 16))") }
        for v in safe { #expect(!Unicode.Scalar(v)!.isUnsafeToDisplay, "U+\(String(v, radix: 16))") }
        #expect(Unicode.Scalar(0x202E)!.isDeceptiveFormat && !Unicode.Scalar(0x202E)!.isControlCharacter)
        #expect(Unicode.Scalar(0x1B)!.isControlCharacter && !Unicode.Scalar(0x1B)!.isDeceptiveFormat)
    }

    @Test func excerptsAreQuotedCutAndReplaceWhatCannotBeShown() {
        #expect("https://a.example/x".displayExcerpt() == "'https://a.example/x'")
        #expect("javascript:\u{1B}]0;pwned\u{07}\u{202E}gpj.exe".displayExcerpt() == #"'javascript:\u{1B}]0;pwned\u{7}\u{202E}gpj.exe'"#)
        let long = "https://a.example/" + String(repeating: "é", count: 100)
        #expect(long.displayExcerpt() == "'https://a.example/" + String(repeating: "é", count: 62) + "…' (\(long.utf8.count) bytes)")
        #expect("abcdef".displayExcerpt(limit: 3) == "'abc…' (6 bytes)")
        #expect("".displayExcerpt() == "''")
    }
}

/// The state directory the relay and nonce files use, and text for terminals.
@Suite struct StateAndTerminalTextTests {
    @Test func theStateDirectoryFollowsXDGAndIgnoresRelativePaths() {
        #expect(StateDirectory.path(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s")
        #expect(StateDirectory.path(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"]) == "/h/.local/state")
        #expect(StateDirectory.path(environment: ["HOME": "/"]).hasSuffix("/.local/state"))
        #expect(!StateDirectory.path(environment: ["HOME": "relative"]).hasPrefix("relative"))
    }

    @Test func terminalTextEscapesControlAndFormatCharacters() {
        #expect("a\u{1B}[2Jb\u{202E}c".terminalEscaped == "a\\u{1B}[2Jb\\u{202E}c")
        #expect("plain café".terminalEscaped == "plain café")
    }
}
