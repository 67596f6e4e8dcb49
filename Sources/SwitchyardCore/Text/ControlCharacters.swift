extension Unicode.Scalar {
    /// A control character: C0 (U+0000–U+001F), DEL (U+007F) or C1 (U+0080–U+009F). Text that
    /// reaches a terminal, a log line or a stored field is checked against this one definition.
    public var isControlCharacter: Bool { value < 0x20 || (0x7F...0x9F).contains(value) }
}
