import LinkRequests
import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import SwitchyardNetwork

/// Who sent a request: the peer's address, or with `service.trustForwardedFor` (N proxies of the
/// operator's own in front) the address the outermost of those proxies saw.
struct ClientAddresses: Sendable {
    /// How many proxies of the operator's stand in front (`service.trustForwardedFor`); 0: none.
    let trustedProxies: Int

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The client's address for a request the router took; "unknown" when nothing says.
    func address(_ request: Request, _ context: ServiceContext) -> String {
        address(forwardedFor: { request.headers[values: Self.forwardedFor] }, peer: { context.remoteAddress?.ipAddress }) ?? "unknown"
    }

    /// The entry of X-Forwarded-For N from the right when N proxies are trusted (each proxy
    /// appends the address it got the request from; entries further left are whatever the
    /// client sent). Else, or when that entry is empty or no address, the peer's.
    func address(forwardedFor: String?, peer: () -> String?) -> String? {
        address(forwardedFor: { forwardedFor.map { [$0] } ?? [] }, peer: peer)
    }

    /// The same, with `forwardedFor` giving the header's lines (read only when they are trusted).
    func address(forwardedFor lines: () -> [String], peer: () -> String?) -> String? {
        let hops = trustedProxies
        if hops > 0, case let lines = lines(), !lines.isEmpty {
            let forwardedFor = lines.joined(separator: ",")
            let entries = forwardedFor.split(separator: ",", omittingEmptySubsequences: false)
            // Fewer entries than proxies: the request skipped the outer ones; the left-most is
            // still a proxy's.
            let entry = entries[max(0, entries.count - hops)].trimmingCharacters(in: .whitespaces)
            // Some proxies write `address:port` or `[v6]:port`: the port is not the client's, and
            // a new port per connection must not make a new client. What is not an address is
            // not believed either.
            if let address = Self.address(inForwardedEntry: entry) { return address }
        }
        return peer()
    }

    /// The IP address an X-Forwarded-For entry names (`203.0.113.7`, `203.0.113.7:4711`,
    /// `2001:db8::1`, `[2001:db8::1]:443`), in the form it was written; nil for anything else
    /// (`unknown`, a name, an empty entry).
    static func address(inForwardedEntry entry: String) -> String? {
        var text = Substring(entry)
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            text = text[text.index(after: text.startIndex)..<close]
        } else if text.contains("."), let colon = text.firstIndex(of: ":"), !text[text.index(after: colon)...].contains(":") {
            text = text[..<colon]
        }
        let candidate = String(text)
        return HTTPFetcher.isAddressLiteral(candidate) ? candidate : nil
    }
}
