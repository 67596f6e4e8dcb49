import Crypto
import _CryptoExtras
import Foundation
import SwitchyardCore

/// A protected link's password: stored only as a slow salted hash (scrypt), checked in constant
/// time, and remembered after a correct answer by a signed, expiring cookie value for that link
/// alone. Hashing costs tens of milliseconds of CPU and 16 MB: callers run it on threads of its
/// own, never an event loop.
package enum LinkPassword {
    /// scrypt's cost (N) for new hashes unless told otherwise, block size (r) and parallelism
    /// (p): 16 MB of memory.
    package static let cost = 1 << 14, blockSize = 8, parallelism = 1
    /// The characters a password may have.
    package static let lengths = 1...128

    /// Why a password cannot be used, for people; nil when it can.
    package static func problem(_ password: String) -> String? {
        let count = password.count
        guard lengths.contains(count) else {
            return count == 0 ? "a password needs at least one character" : "a password may have at most \(lengths.upperBound) characters (this one has \(count))"
        }
        if password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a password may not contain control characters (line breaks, tabs)"
        }
        return nil
    }

    /// The stored form of `password` with a fresh random salt, at scrypt cost `cost` (N, a power
    /// of two): `scrypt$N$r$p$` then the salt and the 32-byte key in base64.
    package static func hash(_ password: String, cost: Int = cost) -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for i in salt.indices { salt[i] = UInt8.random(in: 0...255, using: &generator) }
        let key = derive(password, salt: salt, cost: cost, blockSize: blockSize, parallelism: parallelism) ?? []
        return "scrypt$\(cost)$\(blockSize)$\(parallelism)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Whether `password` is the one `stored` was made from, compared in constant time. False for
    /// a stored text this version cannot read, or whose parameters would cost more than 64 MB
    /// (a row written by hand is not a way to stall the service).
    package static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "scrypt", let n = Int(parts[1]), let r = Int(parts[2]), let p = Int(parts[3]),
              n > 1, n & (n - 1) == 0, (1...32).contains(r), (1...4).contains(p), 128 * r * n * p <= 64 << 20,
              let salt = Data(base64Encoded: String(parts[4])), let expected = Data(base64Encoded: String(parts[5])), expected.count == 32,
              let key = derive(password, salt: Array(salt), cost: n, blockSize: r, parallelism: p) else { return false }
        // Equal length (32): differ collects every byte's difference before it is looked at.
        var differ: UInt8 = 0
        for (a, b) in zip(key, expected) { differ |= a ^ b }
        return differ == 0
    }

    private static func derive(_ password: String, salt: [UInt8], cost: Int, blockSize: Int, parallelism: Int) -> [UInt8]? {
        // The same password typed on two systems may come in two Unicode forms: both are hashed as NFC.
        let bytes = Array(password.precomposedStringWithCanonicalMapping.utf8)
        guard let key = try? KDF.Scrypt.deriveKey(from: bytes, salt: salt, outputByteCount: 32, rounds: cost, blockSize: blockSize,
                                                  parallelism: parallelism, maxMemory: 128 * blockSize * cost * parallelism + (1 << 20)) else { return nil }
        return key.withUnsafeBytes { Array($0) }
    }

    // MARK: Unlock cookies

    /// How long a correct password is remembered.
    package static let unlockLifetime: TimeInterval = 24 * 3600

    /// The cookie that remembers the link stored under `key` is unlocked: one name per link
    /// (so several can be open at once), of letters and digits only.
    package static func cookieName(forKey key: String) -> String {
        "switchyard-unlock-" + SHA256.hash(data: Array(key.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// The cookie's value for the link stored under `key` with the password hash `stored`,
    /// valid until `expires`: the expiry (Unix seconds), a dot, and an HMAC-SHA256 tag over the
    /// key and the expiry, keyed by the stored hash. A new password (a new hash) voids every
    /// value made before it; nothing in the value tells anything about the password.
    package static func unlockValue(key: String, stored: String, expires: Date) -> String {
        let seconds = Int64(expires.timeIntervalSince1970.rounded(.down))
        return "\(seconds)." + tag(key: key, stored: stored, seconds: seconds)
    }

    /// Whether `value` (a cookie's) unlocks the link stored under `key` with the hash `stored`
    /// at `now`: made by ``unlockValue(key:stored:expires:)`` for this link and hash, and not
    /// expired. Compared in constant time.
    package static func unlocks(_ value: String, key: String, stored: String, now: Date) -> Bool {
        guard let dot = value.firstIndex(of: "."), let seconds = Int64(value[..<dot]),
              Double(seconds) > now.timeIntervalSince1970, Double(seconds) <= now.timeIntervalSince1970 + unlockLifetime + 60 else { return false }
        let given = Array(value[value.index(after: dot)...].utf8)
        let expected = Array(tag(key: key, stored: stored, seconds: seconds).utf8)
        guard given.count == expected.count else { return false }
        var differ: UInt8 = 0
        for (a, b) in zip(given, expected) { differ |= a ^ b }
        return differ == 0
    }

    private static func tag(key: String, stored: String, seconds: Int64) -> String {
        let secret = SymmetricKey(data: SHA256.hash(data: Array(("switchyard-unlock|" + stored).utf8)))
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(key)|\(seconds)".utf8), using: secret)
        return Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
