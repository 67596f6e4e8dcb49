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
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The 64 characters, in the order of the values they stand for.
    public static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The bytes, or nil when `text` is not base64url as `encode` writes it: one spelling per
    /// byte string (a last character whose unused bits are set, `+`, `/` or `=` is refused), so
    /// text compared or hashed as it was written names one value.
    public static func decode(_ text: String) -> [UInt8]? {
        var b64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        guard let bytes = Data(base64Encoded: b64).map(Array.init), encode(bytes) == text else { return nil }
        return bytes
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
