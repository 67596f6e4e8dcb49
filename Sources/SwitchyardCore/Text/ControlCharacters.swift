extension Unicode.Scalar {
    /// A control character: C0 (U+0000–U+001F), DEL (U+007F) or C1 (U+0080–U+009F). Text that
    /// reaches a terminal, a log line or a stored field is checked against this one definition.
    public var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }

    /// An invisible format character that makes text read differently from what it is: the
    /// bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
    /// U+202A–U+202E, U+2066–U+2069) and the line and paragraph separators (U+2028, U+2029).
    public var isDeceptiveFormat: Bool {
        (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) || value == 0x2028 || value == 0x2029
            || value == 0x200E || value == 0x200F || value == 0x061C
    }

    /// A control character or a deceptive format character: not to be shown as it is.
    public var isUnsafeToDisplay: Bool { isControlCharacter || isDeceptiveFormat }
}

extension String {
    /// The start of the text for a message, quoted in single quotes, each control or deceptive
    /// format character as "?", at most `limit` characters; a longer text says its size in bytes
    /// (a refused URL may be megabytes long).
    public func displayExcerpt(limit: Int = 80) -> String {
        let head = String(String.UnicodeScalarView(unicodeScalars.prefix(limit).map { $0.isUnsafeToDisplay ? "?" : $0 }))
        return "'" + head + (unicodeScalars.count > limit ? "…' (\(utf8.count) bytes)" : "'")
    }
}
