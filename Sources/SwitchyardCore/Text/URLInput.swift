import Foundation

/// The check every command and the API apply to a URL someone hands in.
public enum URLInput {
    /// Schemes that run code or read local or in-memory data instead of naming a place
    /// (`javascript:`, `data:`, `file:` …): never opened, followed, stored as a deep link or
    /// signed as a callback, whatever else is configured. The one list every module uses.
    public static let scriptOrLocalSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "blob", "view-source", "filesystem", "jar"]

    /// The scheme of `text`, lower-cased, when it starts with one (RFC 3986: a letter, then
    /// letters, digits, "+", "-" or ".", then ":"); nil otherwise.
    public static func scheme(of text: String) -> String? {
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex else { return nil }
        let name = bytes[..<colon]
        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        guard isLetter(name.first!), name.allSatisfy({ isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }) else { return nil }
        return String(decoding: name, as: UTF8.self).lowercased()
    }

    /// Why `input` is not a URL to work on, or nil: it must be an absolute URL (a scheme, then
    /// something), without spaces, control characters or U+FFFD (what bytes that are not UTF-8
    /// decode to), and with a port that exists.
    public static func problem(_ input: String) -> String? {
        guard scheme(of: input) != nil, let colon = input.firstIndex(of: ":"), input.index(after: colon) < input.endIndex
        else { return "not an absolute URL (expected a scheme such as https: followed by the rest of the link)" }
        if let scalar = input.unicodeScalars.first(where: { $0.value < 0x21 || $0.isControlCharacter }) {
            return scalar == " " ? "contains a space" : "contains the control character \(String(format: "U+%04X", scalar.value))"
        }
        if input.unicodeScalars.contains("\u{FFFD}") {
            return "contains U+FFFD, the replacement for bytes that are not UTF-8 (percent-encode them)"
        }
        if let port = URLComponents(string: input)?.port, !(0...65535).contains(port) {
            return "the port \(port) is not from 0 to 65535"
        }
        return nil
    }
}
