import SwitchyardCore
/// Base64 (RFC 4648) for the `btoa`/`atob` script helpers.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i]
            let b1 = i + 1 < bytes.count ? bytes[i + 1] : 0
            let b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 0x3F)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes with `atob`'s leniency: ASCII whitespace ignored, padding optional.
    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        for b in text.utf8 where b != 0x20 && b != 0x09 && b != 0x0A && b != 0x0C && b != 0x0D {
            values.append(b)
        }
        if values.count % 4 == 0, values.last == UInt8(ascii: "=") {
            values.removeLast()
            if values.last == UInt8(ascii: "=") { values.removeLast() }
        }
        if values.count % 4 == 1 { return nil }
        var sextets: [UInt8] = []
        for b in values {
            guard let index = alphabet.firstIndex(of: b) else { return nil }
            sextets.append(UInt8(index))
        }
        var out: [UInt8] = []
        var i = 0
        while i + 1 < sextets.count {
            out.append(sextets[i] << 2 | sextets[i + 1] >> 4)
            if i + 2 < sextets.count { out.append(sextets[i + 1] << 4 | sextets[i + 2] >> 2) }
            if i + 3 < sextets.count { out.append(sextets[i + 2] << 6 | sextets[i + 3]) }
            i += 4
        }
        return out
    }
}

/// Arbitrary-precision conversion for `base64DigitsToBase10String`.
enum BigDecimal {
    /// The decimal representation of the number whose base-64 digits (most significant first) are `digits`.
    static func fromBase64Digits(_ digits: [Int]) -> String {
        var decimal: [UInt8] = [0]  // least significant first
        for d in digits {
            var carry = d
            for i in decimal.indices {
                let v = Int(decimal[i]) * 64 + carry
                decimal[i] = UInt8(v % 10)
                carry = v / 10
            }
            while carry > 0 {
                decimal.append(UInt8(carry % 10))
                carry /= 10
            }
        }
        while decimal.count > 1 && decimal.last == 0 { decimal.removeLast() }
        return String(decimal.reversed().map { Character(Unicode.Scalar($0 + 48)) })
    }
}
