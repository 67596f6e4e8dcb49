extension Unicode.Scalar {
    /// A control character: C0 (U+0000–U+001F), DEL (U+007F) or C1 (U+0080–U+009F). Text that
    /// reaches a terminal, a log line or a stored field is checked against this one definition.
    public var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }

    /// An invisible format character that makes text read differently from what it is:
    /// bidirectional marks, embeddings, overrides and isolates, the line and paragraph separators,
    /// and characters that draw nothing (zero-width, filler and tag characters; listed below).
    /// The zero width joiners U+200C and U+200D are allowed: scripts and emoji sequences need them.
    public var isDeceptiveFormat: Bool {
        (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x2028 || value == 0x2029
            || value == 0x200E || value == 0x200F || value == 0x061C
            || value == 0x200B || (0x2060...0x2064).contains(value) || value == 0xFEFF || value == 0x00AD || value == 0x034F || value == 0x180E
            // Letters that draw nothing: the Hangul fillers, the half-width one, the braille blank.
            || value == 0x115F || value == 0x1160 || value == 0x3164 || value == 0xFFA0 || value == 0x2800
            // Other format characters that draw nothing: the interlinear annotation marks, the
            // shorthand format controls, the musical symbol formats, the tag characters.
            || (0xFFF9...0xFFFB).contains(value) || (0x1BCA0...0x1BCA3).contains(value) || (0x1D173...0x1D17A).contains(value)
            || (0xE0000...0xE007F).contains(value)
    }

    /// A control character or a deceptive format character: not to be shown as it is.
    public var isUnsafeToDisplay: Bool { isControlCharacter || isDeceptiveFormat }
}

extension String {
    /// The start of the text for a message, quoted in single quotes, each control or deceptive
    /// format character written as `\u{1B}` (as ``terminalEscaped``), at most `limit` characters;
    /// a longer text says its size in bytes (a refused URL may be megabytes long).
    public func displayExcerpt(limit: Int = 80) -> String {
        let head = String(String.UnicodeScalarView(unicodeScalars.prefix(limit))).terminalEscaped
        return "'" + head + (unicodeScalars.count > limit ? "…' (\(utf8.count) bytes)" : "'")
    }

    /// The text for one line of a terminal: each control character (C0, DEL, C1) and each
    /// deceptive format character written as `\u{1B}`, so nothing read from a file, a script or
    /// a URL can move the cursor, retitle the terminal, forge another line or make a link read
    /// differently.
    public var terminalEscaped: String {
        guard unicodeScalars.contains(where: \.isUnsafeToDisplay) else { return self }
        var out = ""
        for scalar in unicodeScalars {
            if scalar.isUnsafeToDisplay { out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
