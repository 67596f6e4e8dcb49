/// A command-line argument that joins a name and a value with a separator: `key=value`
/// (`relay send --meta`, `callback build --param`, `--key ID=FILE`) or `Name: value`
/// (`resolve --header`). Each command says what its names may hold; this is the shape they share.
public struct NamedArgument: Sendable, Equatable {
    /// What stands before the separator.
    public var name: String
    /// What stands after it, separators included.
    public var value: String

    /// Why an argument is not a name, a separator and a value.
    public enum Problem: Error, Sendable, Equatable {
        /// No separator at all.
        case noSeparator
        /// Nothing (or only spaces, where the sides are trimmed) before the separator.
        case noName
        /// A name with a space at either end: ` x-sy-id=1` would read as one name here and
        /// another wherever the name is trimmed.
        case spaceAroundName
    }

    /// `text` split at its first `separator`. With `trimming`, spaces and tabs around the name
    /// and the value are dropped (HTTP header fields); without it, a name with a space at either
    /// end is a problem and the value is kept as written.
    public static func split(_ text: String, at separator: Character, trimming: Bool = false) -> Result<NamedArgument, Problem> {
        guard let at = text.firstIndex(of: separator) else { return .failure(.noSeparator) }
        var name = Substring(text[..<at])
        var value = Substring(text[text.index(after: at)...])
        if trimming {
            name = name.trimmingSpacesAndTabs()
            value = value.trimmingSpacesAndTabs()
        }
        guard let first = name.first, let last = name.last else { return .failure(.noName) }
        if first.isWhitespace || last.isWhitespace { return .failure(.spaceAroundName) }
        return .success(NamedArgument(name: String(name), value: String(value)))
    }
}

extension Substring {
    fileprivate func trimmingSpacesAndTabs() -> Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isBlank($0) }), let end = lastIndex(where: { !isBlank($0) }) else { return self[endIndex...] }
        return self[start...end]
    }
}
