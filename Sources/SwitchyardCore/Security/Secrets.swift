import Foundation

/// Comparison whose time does not depend on where two strings differ (tokens, signatures).
public enum ConstantTime {
    /// Whether `a` and `b` have the same UTF-8 bytes, in a time that depends only on the longer length, not on where they differ.
    public static func equals(_ a: String, _ b: String) -> Bool { equals(Array(a.utf8), Array(b.utf8)) }

    /// Whether `x` and `y` hold the same bytes, in a time that depends only on the longer length.
    public static func equals(_ x: [UInt8], _ y: [UInt8]) -> Bool {
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { difference |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return difference == 0
    }
}

/// Base64url without padding (RFC 4648 §5): tokens, ids, signatures, cursors.
public enum Base64URL {
    /// `bytes` as base64url text: `-` and `_` for `+` and `/`, no `=` padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        switch input.count - i {
        case 1:
            let n = UInt32(input[i]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
        case 2:
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        default: break
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The 64 characters, in the order of the values they stand for.
    public static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's value in `alphabet`, 255 for a byte that is not in it.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    /// The bytes, or nil when `text` is not base64url as `encode` writes it: one spelling per
    /// byte string (a last character whose unused bits are set, `+`, `/` or `=` is refused), so
    /// text compared or hashed as it was written names one value.
    public static func decode(_ text: String) -> [UInt8]? {
        var digits: [UInt32] = []
        digits.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            let value = values[Int(byte)]
            guard value != 255 else { return nil }
            digits.append(UInt32(value))
        }
        guard digits.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count * 3 / 4)
        var i = 0
        while i + 4 <= digits.count {
            let n = digits[i] << 18 | digits[i + 1] << 12 | digits[i + 2] << 6 | digits[i + 3]
            out += [UInt8(n >> 16), UInt8(n >> 8 & 255), UInt8(n & 255)]
            i += 4
        }
        switch digits.count - i {
        case 2:
            guard digits[i + 1] & 15 == 0 else { return nil }  // bits no byte carries
            out.append(UInt8((digits[i] << 18 | digits[i + 1] << 12) >> 16))
        case 3:
            guard digits[i + 2] & 3 == 0 else { return nil }
            let n = digits[i] << 18 | digits[i + 1] << 12 | digits[i + 2] << 6
            out += [UInt8(n >> 16), UInt8(n >> 8 & 255)]
        default: break
        }
        return out
    }

    /// `count` bytes from the system's secure generator, encoded (32 bytes → 43 characters).
    public static func random(bytes count: Int) -> String {
        var rng = SystemRandomNumberGenerator()
        return encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }
}

/// Lowercase hexadecimal: hashes, signatures, random ids.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lowercase hex, two digits a byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `count` bytes from the system's secure generator, as hex (16 bytes → 32 digits).
    public static func random(bytes count: Int) -> String {
        var rng = SystemRandomNumberGenerator()
        return encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }
}
