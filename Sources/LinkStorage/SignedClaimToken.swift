import Crypto
import Foundation
import SwitchyardCore

/// A claim token that needs no database row until it is redeemed: the stored link's code and
/// creation time, the platform, when it was issued and a nonce, signed with HMAC-SHA256. It has the shape of every claim
/// token (43 base64url characters, 32 bytes), so pages, apps and the claim API take it as they
/// take a stored one; single use is enforced when it is redeemed (its hash is recorded then,
/// unique across every node on the database).
///
/// The 32 bytes:
///
/// | Bytes | Holds |
/// | --- | --- |
/// | 0 | `0xA` in the high four bits (the format), the key's slot in the low four |
/// | 1 | the platform (bit 7: Android) and the code's length, 1–14 (bits 0–4) |
/// | 2–5 | when it was issued, seconds since 1970 (big-endian) |
/// | 6–9 | a random nonce |
/// | 10–12 | the low 24 bits of the link's creation time in milliseconds |
/// | 13–23 | the code, six bits a character (the base64url alphabet), zero-padded |
/// | 24–31 | the first 8 bytes of HMAC-SHA256 over bytes 0–23 |
///
/// It expires `claimLifetime` after it was issued, and stands only for the link it was shown
/// with (a link deleted and made again under the same code is another link). A 64-bit tag
/// cannot be found by guessing within the claim API's per-address rate limits; a random (stored)
/// token passes for a signed one with probability 2⁻⁶⁸.
package struct SignedClaimToken: Equatable, Sendable {
    /// The longest code a token can carry; pages of longer codes get a stored token.
    package static let maximumCodeLength = 14

    /// The stored link the claim is for.
    package var code: String
    /// The platform the claim was issued on.
    package var platform: AppPlatform
    /// The low 24 bits of the link's creation time in milliseconds: which link of that code.
    package var instance: UInt32
    /// When the token was issued, in whole seconds since 1970.
    package var issuedAt: UInt32
    /// Four random bytes: two views of one link in one second get different tokens.
    package var nonce: [UInt8]

    /// A claim for the link `code` made at `created`, on `platform`, issued at `date`, with a fresh nonce.
    package init(code: String, created: Date, platform: AppPlatform, issuedAt date: Date) {
        var generator = SystemRandomNumberGenerator()
        self.init(code: code, instance: Self.instance(of: created), platform: platform,
                  issuedAt: UInt32(clamping: Int64(date.timeIntervalSince1970.rounded(.down))),
                  nonce: (0..<4).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    init(code: String, instance: UInt32, platform: AppPlatform, issuedAt: UInt32, nonce: [UInt8]) {
        self.code = code
        self.instance = instance
        self.platform = platform
        self.issuedAt = issuedAt
        self.nonce = nonce
    }

    /// What a token names of a link made at `created`.
    package static func instance(of created: Date) -> UInt32 { UInt32(truncatingIfNeeded: LinkStore.millis(created)) & 0xFF_FFFF }

    /// When it was issued (to the second).
    package var issued: Date { Date(timeIntervalSince1970: Double(issuedAt)) }

    /// The token signed with `key`, or nil when the code cannot be carried (longer than 14
    /// characters, or a character outside the base64url alphabet).
    package func token(signedWith key: ClaimSigningKey) -> String? {
        guard (1...Self.maximumCodeLength).contains(code.utf8.count) else { return nil }
        var bytes: [UInt8] = [0xA0 | key.slot, (platform == .android ? 0x80 : 0) | UInt8(code.utf8.count)]
        bytes += withUnsafeBytes(of: issuedAt.bigEndian, Array.init)
        bytes += nonce
        bytes += [UInt8(truncatingIfNeeded: instance >> 16), UInt8(truncatingIfNeeded: instance >> 8), UInt8(truncatingIfNeeded: instance)]
        var bits: UInt64 = 0, count = 0
        var packed: [UInt8] = []
        for c in code.utf8 {
            guard let value = Self.sextet[Int(c)] else { return nil }
            bits = bits << 6 | UInt64(value)
            count += 6
            while count >= 8 {
                count -= 8
                packed.append(UInt8(truncatingIfNeeded: bits >> UInt64(count)))
            }
        }
        if count > 0 { packed.append(UInt8(truncatingIfNeeded: bits << UInt64(8 - count))) }
        bytes += packed + [UInt8](repeating: 0, count: 11 - packed.count)
        bytes += key.tag(bytes)
        return Base64URL.encode(bytes)
    }

    /// The claim a signed token carries, when one of `keys` signed it; nil for any other text
    /// (a stored token, a forged or altered one).
    package static func read(_ token: String, keys: [ClaimSigningKey]) -> SignedClaimToken? {
        // (`Base64URL.decode` takes one spelling per token: a token is single-use by its text.)
        guard token.utf8.count == 43, let bytes = Base64URL.decode(token), bytes.count == 32, bytes[0] >> 4 == 0xA else { return nil }
        let body = Array(bytes[0..<24])
        let tag = Array(bytes[24...])
        guard keys.contains(where: { $0.slot == bytes[0] & 0x0F && ConstantTime.equals($0.tag(body), tag) }) else { return nil }
        let length = Int(bytes[1] & 0x1F)
        guard (1...maximumCodeLength).contains(length) else { return nil }
        var code = ""
        var bits: UInt64 = 0, count = 0
        for byte in bytes[13..<24] where code.utf8.count < length {
            bits = bits << 8 | UInt64(byte)
            count += 8
            while count >= 6 && code.utf8.count < length {
                count -= 6
                code.unicodeScalars.append(Unicode.Scalar(Base64URL.alphabet[Int((bits >> UInt64(count)) & 0x3F)]))
            }
        }
        let issued = bytes[2..<6].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let instance = bytes[10..<13].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return SignedClaimToken(code: code, instance: instance, platform: bytes[1] & 0x80 != 0 ? .android : .ios, issuedAt: issued,
                                nonce: Array(bytes[6..<10]))
    }

    /// Each base64url character's six-bit value.
    private static let sextet: [UInt8?] = {
        var table = [UInt8?](repeating: nil, count: 256)
        for (i, c) in Base64URL.alphabet.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()
}

/// A key that signs claim tokens. Its slot (0–15, from the key's own hash) tells which key to
/// try, so keys can be added and retired in any order.
package struct ClaimSigningKey: Sendable {
    /// HMAC-SHA256 with the key already taken in: each tag copies it and goes on from there.
    /// Never changed after `init` (a value each use copies), so sharing it is safe.
    nonisolated(unsafe) let keyed: HMAC<SHA256>
    /// Which key a token names.
    package let slot: UInt8

    /// A key from a secret of at least 32 bytes (a configured one, or the database's).
    package init?(secret: String) {
        guard secret.utf8.count >= 32 else { return nil }
        let digest = Array(SHA256.hash(data: Array(("switchyard-claim-key|" + secret).utf8)))
        keyed = HMAC<SHA256>(key: SymmetricKey(data: digest))
        slot = digest[0] & 0x0F
    }

    /// The first 8 bytes of HMAC-SHA256 over `bytes`.
    func tag(_ bytes: [UInt8]) -> [UInt8] {
        var hmac = keyed
        hmac.update(data: bytes)
        return Array(hmac.finalize().prefix(8))
    }
}
