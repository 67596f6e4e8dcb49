import Crypto
import Foundation
import SwitchyardCore

/// Signs x-callback-url requests: a request id, key id, expiry and nonce go into `x-sy-*`
/// parameters, and `x-sy-sig` is HMAC-SHA256 over a canonical form of the whole request.
///
/// Canonical form (one field per line): `switchyard-callback-v1`, scheme, action, x-source,
/// x-success, x-error, x-cancel, then every other parameter except `x-sy-sig` as
/// `percent(name)=percent(value)`, ordered by name; a name given more than once keeps its values
/// in the order the URL gives them, so swapping `file=a.txt` and `file=b.txt` breaks the
/// signature as changing any byte of any of them does.
///
/// The nonce (`x-sy-nonce`) is 16 to 64 characters of `A–Z a–z 0–9 - _`; the verifier
/// refuses any other as `malformed` (generated nonces are 32 hexadecimal digits).
public struct CallbackSigner: Sendable {
    /// The id of the signing key, sent as `x-sy-kid` so that the verifier knows which secret to check with.
    public var keyID: String
    let secret: [UInt8]

    /// A signer that uses `secret` as the HMAC key and names it `keyID`.
    public init(keyID: String, secret: [UInt8]) {
        self.keyID = keyID
        self.secret = secret
    }

    /// Adds id, key id, expiry, nonce and signature to `request`.
    public func sign(_ request: XCallbackURL, requestID: String, expires: Date, nonce: String? = nil) -> XCallbackURL {
        var r = request
        r.parameters.removeAll { $0.name.hasPrefix("x-sy-") }
        r.parameters += [("x-sy-id", requestID), ("x-sy-kid", keyID), ("x-sy-exp", String(Int64(expires.timeIntervalSince1970))),
                         ("x-sy-nonce", nonce ?? Self.randomNonce())]
        r.parameters.append(("x-sy-sig", Self.signature(r, secret)))
        return r
    }

    static func randomNonce() -> String {
        Hex.random(bytes: 16)
    }

    /// Whether `nonce` has the nonce alphabet and length (16–64 of `A–Z a–z 0–9 - _`).
    public static func isWellFormedNonce(_ nonce: String) -> Bool {
        (16...64).contains(nonce.utf8.count) && nonce.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
    }

    static func canonical(_ r: XCallbackURL) -> String {
        // Ordered by `name=` (encoded names hold no `=`, so for distinct names this is the order
        // of the whole `name=value` texts), ties kept in URL order: the signature covers the order
        // of a repeated name's values.
        struct Field { let key: String; let value: String; let index: Int }
        var fields: [Field] = []
        for (index, p) in r.parameters.enumerated() where p.name != "x-sy-sig" {
            fields.append(Field(key: XCallbackURL.encode(p.name) + "=", value: XCallbackURL.encode(p.value), index: index))
        }
        fields.sort { a, b in a.key != b.key ? a.key < b.key : a.index < b.index }
        let params = fields.map { $0.key + $0.value }
        return (["switchyard-callback-v1", r.scheme.lowercased(), r.action, r.source ?? "", r.success ?? "", r.error ?? "", r.cancel ?? ""]
            .map { XCallbackURL.encode($0) } + params).joined(separator: "\n")
    }

    static func signature(_ r: XCallbackURL, _ secret: [UInt8]) -> String {
        Base64URL.encode(HMAC<SHA256>.authenticationCode(for: Data(canonical(r).utf8), using: SymmetricKey(data: secret)))
    }
}

/// Verifies signed requests: known key, valid signature (constant-time), not expired, nonce not
/// seen before. Seen nonces are kept until their request expires: in memory, or on disk with
/// `seen` so that replays are refused across processes.
public final class CallbackVerifier: Sendable {
    let keys: [String: [UInt8]]
    let now: @Sendable () -> Date
    let durable: SeenNonces?
    private let seen = Locked<[String: Date]>([:])

    /// A verifier for the secrets in `keys` (by key id). With `seen`, nonces are kept on
    /// disk instead of in this object's memory; `now` is the clock, replaceable in tests.
    public init(keys: [String: [UInt8]], seen durable: SeenNonces? = nil, now: @escaping @Sendable () -> Date = { Date() }) {
        self.keys = keys
        self.durable = durable
        self.now = now
    }

    /// The verified request id, or why the request is refused.
    ///
    /// A signed URL carries its scheme and action: give `expectingScheme` and `action` where only
    /// one kind of URL is an answer (your app's scheme and the action of the response), so a signed
    /// request meant for another app or action is never taken for one (`not-allowed`).
    @discardableResult
    public func verify(_ request: XCallbackURL, expectingScheme scheme: String? = nil, action: String? = nil) throws(CallbackError) -> String {
        if let scheme, request.scheme.lowercased() != scheme.lowercased() {
            throw CallbackError(.notAllowed, "the URL is for \(request.scheme.prefix(40)):, not \(scheme):")
        }
        if let action, request.action != action {
            throw CallbackError(.notAllowed, "the URL's action is \"\(request.action.prefix(40))\", not \"\(action)\"")
        }
        // A callback that would run code or read files is refused before anything is recorded,
        // however well signed: the app would open it on the sender's behalf.
        for (name, url) in request.callbacks {
            if let problem = XCallbackURL.callbackProblem(url) { throw CallbackError(.deniedCallback, "\(name) \(problem)") }
        }
        guard let sig = request.parameter("x-sy-sig"), let id = request.parameter("x-sy-id"), let kid = request.parameter("x-sy-kid"),
              let expText = request.parameter("x-sy-exp"), let nonce = request.parameter("x-sy-nonce") else {
            throw CallbackError(.unsigned, "the request carries no complete x-sy-id/kid/exp/nonce/sig")
        }
        guard let key = keys[kid] else { throw CallbackError(.unknownKey, "key id \"\(kid.prefix(40))\" is not configured") }
        // Read before the signature is checked, so that a value that is no number is `malformed`
        // (a changed one still fails the signature).
        guard let exp = Int64(expText) else { throw CallbackError(.malformed, "x-sy-exp is not seconds since 1970") }
        // The nonce is written to the nonce file: a line break or space in it could plant lines.
        guard CallbackSigner.isWellFormedNonce(nonce) else {
            throw CallbackError(.malformed, "x-sy-nonce must be 16 to 64 characters of A-Z, a-z, 0-9, - and _")
        }
        let expected = CallbackSigner.signature(request, key)
        guard ConstantTime.equals(expected, sig) else { throw CallbackError(.badSignature, "the signature does not match the request") }
        let t = now()
        let expiry = Date(timeIntervalSince1970: Double(exp))
        guard expiry > t else { throw CallbackError(.expired, "the request expired at \(expiry.formatted(.iso8601))") }
        if let durable {
            try durable.insert(kid + "/" + nonce, until: expiry, now: t)
            return id
        }
        try seen.withLock { seen throws(CallbackError) in
            seen = seen.filter { $0.value > t }
            if seen[kid + "/" + nonce] != nil { throw CallbackError(.replayed, "nonce \(nonce.prefix(40)) was used before") }
            seen[kid + "/" + nonce] = expiry
        }
        return id
    }
}
