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
        guard let colon = text.firstIndex(of: ":"), isSchemeName(text[..<colon]) else { return nil }
        return text[..<colon].lowercased()
    }

    /// Whether `name` is a scheme's name (RFC 3986): an ASCII letter, then ASCII letters,
    /// digits, "+", "-" or ".".
    public static func isSchemeName(_ name: some StringProtocol) -> Bool {
        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        guard let first = name.utf8.first, isLetter(first) else { return false }
        return name.utf8.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E }
    }

    /// Why `input` is not a URL to work on, or nil: it must be an absolute URL (a scheme, then
    /// something), without spaces, control characters or U+FFFD (what bytes that are not UTF-8
    /// decode to), and with a port that exists.
    public static func problem(_ input: String) -> String? {
        guard scheme(of: input) != nil, let colon = input.firstIndex(of: ":"), input.index(after: colon) < input.endIndex else {
            // A host and path without a scheme ("www.youtube.com/watch?v=x"): offer the https form.
            if let host = input.split(separator: "/", maxSplits: 1).first, host.contains("."), !host.contains(":"),
               !input.contains(" "), host.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-") }) {
                return "not an absolute URL: did you mean https://\(input)?"
            }
            return "not an absolute URL (expected a scheme such as https: followed by the rest of the link)"
        }
        if let scalar = input.unicodeScalars.first(where: { $0.value < 0x21 || $0.isControlCharacter }) {
            return scalar == " " ? "contains a space" : "contains the control character \(String(format: "U+%04X", scalar.value))"
        }
        if input.unicodeScalars.contains("\u{FFFD}") {
            return "contains U+FFFD, the replacement for bytes that are not UTF-8 (percent-encode them)"
        }
        if let port = portText(input) {
            // Read from the text: a parser that cannot hold the number (2^64 and up) reports no
            // port at all, and the URL would be fetched on the scheme's default port instead.
            guard port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return "the port '\(port)' is not a number" }
            let digits = port.drop { $0 == "0" }
            guard digits.count <= 5, Int(digits).map({ $0 <= 65535 }) ?? true else { return "the port \(port) is not from 0 to 65535" }
        }
        return nil
    }

    /// The text after the host's colon in a URL with an authority (`scheme://host:PORT/…`), or
    /// nil when it has no port (an empty one is no port, as in WHATWG's URL standard).
    static func portText(_ input: String) -> String? {
        guard let start = input.range(of: "://")?.upperBound else { return nil }
        let authority = input[start...].prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != "\\" }
        let hostAndPort = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
        let afterHost = hostAndPort.hasPrefix("[") ? hostAndPort.firstIndex(of: "]").map { hostAndPort[$0...] } ?? "" : hostAndPort
        guard let colon = afterHost.lastIndex(of: ":") else { return nil }
        let port = afterHost[afterHost.index(after: colon)...]
        return port.isEmpty ? nil : String(port)
    }
}
