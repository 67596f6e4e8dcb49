import SwitchyardCore
import Foundation
import LinkRouting

/// The pieces of a URL as iOS compares them: raw (percent-encoded) text, split without
/// normalisation, so that `percentEncoded: true` really compares what was written.
public struct URLParts: Sendable, Equatable {
    /// The scheme, lower-cased.
    public var scheme: String
    /// The host, lower-cased, without the port.
    public var host: String
    /// The raw path; "/" when the URL has none.
    public var path: String
    /// The raw query without "?", nil when there is none.
    public var query: String?
    /// The raw fragment without "#", nil when there is none.
    public var fragment: String?

    /// Splits `text`; nil when it is not an absolute URL with a host. Non-ASCII characters,
    /// spaces and controls are percent-encoded (UTF-8, upper-case hex) as any browser or app
    /// sends them, so `https://e.com/café` is decided as `https://e.com/caf%C3%A9`.
    public init?(_ text: String) {
        guard let parts = URLText.split(text), !parts.host.isEmpty else { return nil }
        (scheme, host) = (parts.scheme, parts.host)
        query = parts.query.map(Self.encoded)
        fragment = parts.fragment.map(Self.encoded)
        path = parts.path.isEmpty ? "/" : Self.encoded(parts.path)
    }

    /// `text` with every byte a URL cannot carry as it is (non-ASCII, space, controls) as %XX.
    static func encoded(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x7F || $0 <= 0x20 }) else { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        for b in text.utf8 {
            if b >= 0x7F || b <= 0x20 {
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Query items as raw (name, value) pairs, split on `&` and the first `=`.
    public var rawQueryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.fastSplit(UInt8(ascii: "&")).map { item in
            if let eq = item.firstIndex(of: "=") { return (String(item[..<eq]), String(item[item.index(after: eq)...])) }
            return (String(item), "")
        }
    }
}
