import Foundation

/// Comparison whose time does not depend on where two strings differ (tokens, signatures).
public enum ConstantTime {
    /// Whether `a` and `b` have the same UTF-8 bytes, in a time that depends only on the longer length, not on where they differ.
    public static func equals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
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

    /// The bytes, or nil when `text` is not base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        var b64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        return Data(base64Encoded: b64).map(Array.init)
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
