import Foundation
import HTTPTypes
import Hummingbird

extension Request {
    /// Whether the request came over https: the TLS proxy in front says so
    /// (`X-Forwarded-Proto: https`), or it names the https origin of `publicURL`. Cookies set in
    /// answer are then `Secure`.
    func cameOverHTTPS(publicURL: String) -> Bool {
        if headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https" { return true }
        guard publicURL.hasPrefix("https://"), var authority = (headers[HTTPField.Name("Host")!] ?? head.authority)?.lowercased() else { return false }
        // `host:443` is the same origin as `host` over https.
        if authority.hasSuffix(":443") { authority.removeLast(4) }
        var publicAuthority = String(publicURL.lowercased().dropFirst("https://".count).prefix { $0 != "/" })
        if publicAuthority.hasSuffix(":443") { publicAuthority.removeLast(4) }
        return authority == publicAuthority
    }
}

extension HTTPFields {
    /// The value of the cookie `name` in the request's `Cookie` fields (one or several), spaces
    /// around it trimmed; nil when none names it.
    func cookie(named name: String) -> String? {
        for field in self[values: .cookie] {
            for part in field.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == name { return pair[1].trimmingCharacters(in: .whitespaces) }
            }
        }
        return nil
    }
}
