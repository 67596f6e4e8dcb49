extension String {
    /// The text without Foundation's `.whitespaces` at either end (tab, the space separators of
    /// general category Zs, and U+200B ZERO WIDTH SPACE, which Foundation counts as one), or its
    /// `.whitespacesAndNewlines` with `newlines` (also U+000A–U+000D, U+0085, U+2028 and U+2029). Read scalar by scalar: Foundation's `trimmingCharacters(in:)`
    /// goes through NSString on Linux and costs more than the work around it in the batch commands.
    package func trimmingSpaces(newlines: Bool = false) -> String {
        func isSpace(_ s: Unicode.Scalar) -> Bool {
            switch s.value {
            case 0x20, 0x09, 0x200B: return true
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return newlines
            case 0..<0x80: return false
            default: return s.properties.generalCategory == .spaceSeparator
            }
        }
        let scalars = unicodeScalars
        guard let first = scalars.first, let last = scalars.last, isSpace(first) || isSpace(last) else { return self }
        var start = scalars.startIndex, end = scalars.endIndex
        while start < end, isSpace(scalars[start]) { start = scalars.index(after: start) }
        while end > start, isSpace(scalars[scalars.index(before: end)]) { end = scalars.index(before: end) }
        return String(scalars[start..<end])
    }
}
