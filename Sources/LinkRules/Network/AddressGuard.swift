import SwitchyardCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decides which destinations scripts may reach: by default only public unicast addresses.
/// Loopback, private (RFC 1918, ULA), link-local, CGNAT, multicast, unspecified and reserved
/// ranges are refused; IPv4-mapped and NAT64 IPv6 addresses are judged by their IPv4 part.
public struct AddressGuard: Sendable {
    /// Allow every destination (tests against a local server, intranet deployments).
    public var allowPrivate: Bool

    /// A guard that refuses non-public destinations unless `allowPrivate` is true (default false).
    public init(allowPrivate: Bool = false) { self.allowPrivate = allowPrivate }

    /// The addresses `host` resolves to, or the reason it must not be contacted.
    /// Returns the first allowed address to connect to (so the check and the connection agree).
    public func resolve(host: String, port: Int) throws(FetchError) -> String {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let addresses = Self.lookup(bare, port: port)
        guard let first = addresses.first else {
            throw FetchError(code: .networkError, message: "cannot resolve host '\(bare)'")
        }
        if !allowPrivate {
            for address in addresses where !Self.isPublic(address) {
                throw FetchError(
                    code: .networkRefused,
                    message: "refusing to connect to \(bare) (\(Self.format(address))): loopback, private and link-local destinations are not allowed")
            }
        }
        return Self.format(first)
    }

    /// An IP address as bytes: 4 for IPv4, 16 for IPv6.
    public typealias Address = [UInt8]

    static func lookup(_ host: String, port: Int) -> [Address] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = WorkerPlatform.streamSocketType
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let head = result else { return [] }
        defer { freeaddrinfo(head) }
        var out: [Address] = []
        var node: UnsafeMutablePointer<addrinfo>? = head
        while let n = node {
            if let sa = n.pointee.ai_addr {
                if n.pointee.ai_family == AF_INET {
                    sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                        var addr = sin.pointee.sin_addr
                        out.append(withUnsafeBytes(of: &addr) { Array($0) })
                    }
                } else if n.pointee.ai_family == AF_INET6 {
                    sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                        var addr = sin6.pointee.sin6_addr
                        out.append(withUnsafeBytes(of: &addr) { Array($0) })
                    }
                }
            }
            node = n.pointee.ai_next
        }
        return out
    }

    /// True when `address` is a public unicast address.
    public static func isPublic(_ address: Address) -> Bool {
        if address.count == 4 { return isPublicV4(address) }
        guard address.count == 16 else { return false }
        let a = address
        if a.allSatisfy({ $0 == 0 }) { return false }  // ::
        if a[0..<15].allSatisfy({ $0 == 0 }) && a[15] == 1 { return false }  // ::1
        if a[0..<10].allSatisfy({ $0 == 0 }) && a[10] == 0xFF && a[11] == 0xFF { return isPublicV4(Array(a[12..<16])) }  // ::ffff:v4
        if a[0..<12].allSatisfy({ $0 == 0 }) { return false }  // deprecated IPv4-compatible
        if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B && a[4..<12].allSatisfy({ $0 == 0 }) {
            return isPublicV4(Array(a[12..<16]))  // 64:ff9b::/96 NAT64
        }
        // 64:ff9b:1::/48, the local-use NAT64 prefix (RFC 8215): translated to addresses of the
        // local network, with the IPv4 part placed in more than one way; never public.
        if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B && a[4] == 0 && a[5] == 1 { return false }
        if a[0] == 0x01 && a[1] == 0x00 && a[2..<8].allSatisfy({ $0 == 0 }) { return false }  // 100::/64 discard-only
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && a[3] == 0 { return false }  // 2001::/32 Teredo (an IPv4 tunnel)
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0 && (a[3] & 0xF0 == 0x10 || a[3] & 0xF0 == 0x20) { return false }  // ORCHID
        if a[0] & 0xFE == 0xFC { return false }  // fc00::/7 unique local
        if a[0] == 0xFE && a[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
        if a[0] == 0xFE && a[1] & 0xC0 == 0xC0 { return false }  // fec0::/10 site-local
        if a[0] == 0xFF { return false }  // multicast
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0D && a[3] == 0xB8 { return false }  // documentation
        if a[0] == 0x20 && a[1] == 0x02 { return isPublicV4(Array(a[2..<6])) }  // 6to4
        return true
    }

    static func isPublicV4(_ a: Address) -> Bool {
        switch (a[0], a[1]) {
        case (0, _), (10, _), (127, _): return false
        case (100, 64...127): return false  // CGNAT
        case (169, 254): return false
        case (172, 16...31): return false
        case (192, 168): return false
        case (198, 18...19): return false  // benchmarking
        case (192, 0) where a[2] == 0 || a[2] == 2: return false  // IETF protocol assignments, TEST-NET-1
        case (198, 51) where a[2] == 100, (203, 0) where a[2] == 113: return false  // TEST-NET-2/3
        default: return a[0] < 224  // multicast and reserved above
        }
    }

    static func format(_ address: Address) -> String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        var groups: [String] = []
        for i in stride(from: 0, to: 16, by: 2) { groups.append(String(UInt16(address[i]) << 8 | UInt16(address[i + 1]), radix: 16)) }
        return groups.joined(separator: ":")
    }
}
