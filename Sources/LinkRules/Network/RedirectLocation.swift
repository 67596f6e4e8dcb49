import Foundation
import SwitchyardCore

/// Turns a redirect's `Location` header into the absolute URL to request next, as browsers do.
///
/// Servers send Locations with raw spaces, non-ASCII text or other characters a URL may not
/// hold. Foundation's `URL(string:)` then encodes the *whole* string again, so an escape already
/// there is encoded twice (`a%2Fb c` became `a%252Fb%20c`). Here only the characters that need
/// it are percent-encoded (UTF-8), existing `%XX` escapes are kept, and a stray `%` becomes `%25`:
/// `/text?x=a%2Fb c` → `/text?x=a%2Fb%20c`.
package enum RedirectLocation {
    /// `location` resolved against `base`, or nil when it cannot be made a URL.
    package static func resolve(_ location: String, against base: String) -> String? {
        // As a browser reads it: `\` is `/`, `/\\host` and `https:\\host` name another host,
        // dot segments are resolved (see `BrowserURL`).
        if let resolved = BrowserURL.resolve(location, against: base) { return encoded(resolved) }
        // From an http(s) page, a Location a browser cannot make a URL of (`https:`, `http://`,
        // a host with a space, a port above 65535) goes nowhere: the chain ends where it is.
        if let colon = base.firstIndex(of: ":"), BrowserURL.specialSchemes[base[..<colon].lowercased()] != nil { return nil }
        let reference = encoded(location.trimmingCharacters(in: .whitespaces))
        return URL(string: reference, relativeTo: URL(string: base))?.absoluteString
    }

    /// `text` with spaces, control characters, non-ASCII characters and `"<>\^`{|}` percent-encoded,
    /// and `%` not followed by two hex digits encoded as `%25`; everything else, escapes included, as it was.
    package static func encoded(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        let hex = Array("0123456789ABCDEF".utf8)
        func isHex(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b) }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let keep: Bool
            if b == UInt8(ascii: "%") {
                keep = i + 2 < bytes.count && isHex(bytes[i + 1]) && isHex(bytes[i + 2])
            } else {
                keep = b > 0x20 && b < 0x7F && !Array(#""<>\^`{|}"#.utf8).contains(b)
            }
            if keep { out.append(b) } else { out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0xF)]] }
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
