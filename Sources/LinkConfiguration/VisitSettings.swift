import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SwitchyardCore

/// The `visits` section: whether landing-page visits are recorded one by one (beside the click
/// counts), how long they are kept, and what is kept of the visitor's address.
///
/// ```yaml
/// visits:
///   record: true            # default
///   retentionDays: 90       # default; older records are deleted hourly
///   addresses: anonymized   # default (IPv4 /24, IPv6 /48); or none
///   geo: country            # default; off, country or city
///   geoDatabase: /var/lib/switchyard/dbip-city-lite.mmdb   # any MaxMind-format file
///   countryHeader: CF-IPCountry   # set by your own proxy (needs service.trustForwardedFor)
///   userAgents: /usr/share/uap-core/regexes.yaml   # default when installed; off: not read
///   uniques: true           # default: visitors counted once per link and day
/// ```
package struct VisitSettings: Sendable, Equatable {
    /// What a visit record keeps of the visitor's address (`addresses`).
    package enum Addresses: String, Sendable, Equatable {
        /// The network, not the visitor: the last octet of an IPv4 address and all but the first
        /// 48 bits of an IPv6 address are zeroed.
        case anonymized
        /// No address at all.
        case none
    }

    /// How much of a visitor's place is recorded (`geo`).
    package enum Geo: String, Sendable, Equatable {
        /// Nothing.
        case off
        /// Continent and country.
        case country
        /// Continent, country, region and city.
        case city
    }

    /// Where Debian's `uap-core` package puts ua-parser's `regexes.yaml`.
    package static let installedUserAgentRegexes = "/usr/share/uap-core/regexes.yaml"

    /// Whether each visit is recorded beside the click counts (`record`; default true); counts are kept either way.
    package var record = true
    /// Days a visit record is kept before the hourly clean-up deletes it (`retentionDays`, 1–3650; default 90).
    package var retentionDays = 90
    /// What is kept of the visitor's address (`addresses`: `anonymized`, the default, or `none`).
    package var addresses = Addresses.anonymized

    /// How much of the visitor's place is recorded (`geo`: `off`, `country`, the default, or `city`).
    package var geo = Geo.country
    /// Whether `geo` was written (a default with nothing to read from is no mistake).
    package var geoExplicit = false
    /// The MaxMind-format database the place is looked up in (`geoDatabase`), before the address is cut; nil: none.
    package var geoDatabase: String?
    /// The header a proxy of the operator's sets to the visitor's country (`countryHeader`:
    /// `CF-IPCountry`, `CloudFront-Viewer-Country`, `X-Vercel-IP-Country`), read when there is no
    /// geo database; only with `service.trustForwardedFor`, so a client cannot set it.
    package var countryHeader: String?
    /// ua-parser's `regexes.yaml` the browser, OS and device are read with (`userAgents`: a path,
    /// or `off`); by default Debian's uap-core file when it is installed.
    package var userAgentRegexes: String?
    /// Whether `userAgents` was given (a missing file it names is an error, not a default quietly absent).
    package var userAgentRegexesConfigured = false
    /// Whether visitors are counted once per link and day (`uniques`; default true).
    package var uniques = true

    /// The defaults, as when the configuration has no `visits` section.
    package init() {
        userAgentRegexes = FileManager.default.fileExists(atPath: Self.installedUserAgentRegexes) ? Self.installedUserAgentRegexes : nil
    }

    static let shape = DocumentShape.object(["record": .bool, "retentionDays": .int, "addresses": .string, "geo": .string, "geoDatabase": .string,
                                             "countryHeader": .string, "userAgents": .string, "uniques": .bool])

    /// The country headers proxies and hosts set, as the configuration may name them.
    package static let knownCountryHeaders = ["CF-IPCountry", "CloudFront-Viewer-Country", "X-Vercel-IP-Country", "X-Country-Code", "X-Appengine-Country", "Fastly-Geo-Country"]

    /// Reads the section (its shape was checked already); errors name the key.
    init(_ section: JSONValue) throws(ConfigurationError) {
        self.init()
        record = section["record"] != .bool(false)
        if case .number(let n, _)? = section["retentionDays"] {
            guard n == n.rounded(), (1...3650).contains(n) else { throw ConfigurationError("visits.retentionDays: a whole number of days from 1 to 3650") }
            retentionDays = Int(n)
        }
        if let text = section["addresses"]?.stringValue {
            guard let a = Addresses(rawValue: text) else {
                throw ConfigurationError("visits.addresses: \(JSONWriter.quote(text)) is not one of anonymized, none")
            }
            addresses = a
        }
        if let text = section["geo"]?.stringValue {
            guard let g = Geo(rawValue: text) else { throw ConfigurationError("visits.geo: \(JSONWriter.quote(text)) is not one of off, country, city") }
            geo = g
            geoExplicit = true
        }
        if let path = section["geoDatabase"]?.stringValue {
            guard !path.isEmpty else { throw ConfigurationError("visits.geoDatabase: an empty path") }
            geoDatabase = path
        }
        if let name = section["countryHeader"]?.stringValue {
            guard let known = Self.knownCountryHeaders.first(where: { $0.lowercased() == name.lowercased() }) else {
                throw ConfigurationError("visits.countryHeader: \(JSONWriter.quote(name)) is not one of " + Self.knownCountryHeaders.joined(separator: ", "))
            }
            countryHeader = known
        }
        if let text = section["userAgents"]?.stringValue {
            guard !text.isEmpty else { throw ConfigurationError("visits.userAgents: an empty path (off turns parsing off)") }
            userAgentRegexes = text == "off" ? nil : text
            userAgentRegexesConfigured = true
        }
        uniques = section["uniques"] != .bool(false)
    }

    /// `count` ASCII letters, upper-cased (a continent's or a country's code); nil for anything else.
    package static func letterCode(_ value: String, count: Int) -> String? {
        guard value.utf8.count == count, value.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }) else { return nil }
        return value.uppercased()
    }

    /// An ISO 3166-1 country code as kept, from a geo database or a proxy's header: two ASCII
    /// letters, upper-cased; nil for anything else and for the codes databases and proxies use
    /// for no country (`XX`, `ZZ`, `EU`, `AP`; Cloudflare's `T1` for Tor is no two letters).
    package static func countryCode(_ value: String) -> String? {
        guard let code = letterCode(value, count: 2) else { return nil }
        return ["XX", "ZZ", "EU", "AP"].contains(code) ? nil : code
    }

    /// What is kept of `address` (nil: nothing).
    package func kept(_ address: String?) -> String? {
        guard addresses == .anonymized, let address else { return nil }
        return Self.anonymize(address)
    }

    /// The network of an IP address: IPv4 with its last octet zeroed (`203.0.113.0`), IPv6 with
    /// all but its first 48 bits zeroed (`2001:db8:85a3::`, in RFC 5952 form); nil when the text is not an address.
    package static func anonymize(_ address: String) -> String? {
        let text = withoutZone(address)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            // inet_pton takes only the plain dotted form (four decimal numbers, no leading
            // zeros), so the text before the last dot is already the network's.
            guard let dot = text.utf8.lastIndex(of: UInt8(ascii: ".")) else { return nil }
            return text[..<dot] + ".0"
        }
        switch ipv6(text) {
        case .mappedIPv4(let b)?: return "\(b[0]).\(b[1]).\(b[2]).0"
        case .bytes(let bytes)?: return prefixText(bytes, keeping: 6)
        case nil: return nil
        }
    }

    /// The client a rate limit counts: an IPv4 address as it is, an IPv6 address by its /64 (one
    /// host's usual allocation, so rotating through it makes no new client); text that is no
    /// address as it is.
    package static func rateLimitKey(_ address: String) -> String {
        switch ipv6(withoutZone(address)) {
        case .mappedIPv4(let b)?: return "\(b[0]).\(b[1]).\(b[2]).\(b[3])"
        case .bytes(let bytes)?: return prefixText(bytes, keeping: 8).map { $0 + "/64" } ?? address
        case nil: return address
        }
    }

    private static func withoutZone(_ address: String) -> String {
        address.utf8.firstIndex(of: UInt8(ascii: "%")).map { String(address[..<$0]) } ?? address  // fe80::1%eth0
    }

    /// An IPv6 address's 16 bytes, or the IPv4 address an IPv4-mapped one (::ffff:a.b.c.d)
    /// carries; nil when `text` is no IPv6 address.
    private enum IPv6 { case bytes([UInt8]), mappedIPv4([UInt8]) }
    private static func ipv6(_ text: String) -> IPv6? {
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return .mappedIPv4(Array(bytes[12...])) }
        return .bytes(bytes)
    }

    /// `bytes` with all but the first `count` zeroed, in RFC 5952 form.
    private static func prefixText(_ bytes: [UInt8], keeping count: Int) -> String? {
        var kept = bytes
        for i in count..<16 { kept[i] = 0 }
        var network = in6_addr()
        withUnsafeMutableBytes(of: &network) { $0.copyBytes(from: kept) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &network, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(cString: buffer)
    }

    /// The host a `Referer` header names (lower case), for http, https and `android-app:` (the
    /// package of the app that opened the link); nil for anything else.
    package static func referrerHost(_ referer: String?) -> String? {
        guard let referer, referer.utf8.count <= 4096, let colon = referer.firstIndex(of: ":"),
              case let scheme = referer[..<colon].lowercased(), ["http", "https", "android-app"].contains(scheme),
              // A web referrer's host as a browser reads it (case, escapes, IDNA, IPv4 forms);
              // an Android app's "host" is its package name.
              let host = scheme == "android-app" ? URLComponents(string: referer)?.host?.lowercased() : BrowserURL.host(referer),
              !host.isEmpty, host.utf8.count <= 253,
              host.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }) else { return nil }
        return host
    }
}
