/// The host a request names in its `Host` header (or HTTP/2 `:authority`), in the one form a
/// route table writes hosts: lower-cased, without port or trailing dot, a Unicode host as its
/// punycode. `Links.Example.COM.:443`, `links.example.com` and `links.example.com:8080` are
/// all `links.example.com`; `[::1]:8080` is `[::1]`.
public enum RequestHost {
    /// `authority` as a route table's host, or nil when it names no host (empty, user info, a
    /// character no host may hold).
    public static func normalized(_ authority: String) -> String? {
        var plain = true
        var end = authority.utf8.endIndex
        for i in authority.utf8.indices {
            let b = authority.utf8[i]
            if b == UInt8(ascii: ":") { end = i; break }
            // Lower-case letters, digits, '-' and '.': already the table's form.
            guard (0x61...0x7A).contains(b) || (0x30...0x39).contains(b) || b == 0x2D || b == 0x2E else { plain = false; break }
        }
        if plain {
            var host = Substring(authority[..<end])
            while host.last == "." { host = host.dropLast() }
            guard !host.isEmpty else { return nil }
            if end != authority.utf8.endIndex, !isPort(authority.utf8[authority.utf8.index(after: end)...]) { return nil }
            return String(host)
        }
        guard !authority.utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\")
                                               || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") || $0 <= 0x20 }),
              var host = BrowserURL.host("https://\(authority)/") else { return nil }
        while host.hasSuffix(".") { host.removeLast() }
        return host.isEmpty ? nil : host
    }

    /// Whether `digits` is a port: 1 to 5 digits (an empty port, `host:`, is allowed as browsers allow it).
    private static func isPort(_ digits: String.UTF8View.SubSequence) -> Bool {
        digits.count <= 5 && digits.allSatisfy { (0x30...0x39).contains($0) }
    }
}
