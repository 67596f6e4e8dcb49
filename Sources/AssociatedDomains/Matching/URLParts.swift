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

    /// Splits `text`; nil when it is not an absolute URL with a host.
    public init?(_ text: String) {
        guard let parts = URLText.split(text), !parts.host.isEmpty else { return nil }
        (scheme, host, query, fragment) = (parts.scheme, parts.host, parts.query, parts.fragment)
        path = parts.path.isEmpty ? "/" : parts.path
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
