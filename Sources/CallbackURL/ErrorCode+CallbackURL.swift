import SwitchyardCore

/// The error and finding codes CallbackURL uses. Compare with these constants, never with string literals.
extension ErrorCode {
    /// A response names a pending request that was already answered.
    public static let alreadyAnswered = ErrorCode("already-answered")
    /// The `x-sy-sig` signature does not match the request.
    public static let badSignature = ErrorCode("bad-signature")
    /// An x-callback-url, request id or signing parameter that is not well formed.
    public static let malformed = ErrorCode("malformed")
    /// An `x-success`, `x-error` or `x-cancel` that is no URL, or whose scheme runs code or reads
    /// files (`XCallbackURL.callbackProblem`): refused before the signature is checked.
    public static let deniedCallback = ErrorCode("denied-callback")
    /// A callback URL that starts with none of the allowlist's prefixes.
    public static let notAllowed = ErrorCode("not-allowed")
    /// A signed request whose nonce was already used: a replay.
    public static let replayed = ErrorCode("replayed")
    /// A signed request names a key id the verifier has no secret for.
    public static let unknownKey = ErrorCode("unknown-key")
    /// A response for a request id that is not pending.
    public static let unknownRequest = ErrorCode("unknown-request")
    /// A request lacks some of the `x-sy-*` signing parameters.
    public static let unsigned = ErrorCode("unsigned")
}
