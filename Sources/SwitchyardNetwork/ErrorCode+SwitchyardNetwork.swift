import SwitchyardCore

/// The error and finding codes SwitchyardNetwork uses. Compare with these constants, never with string literals.
extension ErrorCode {
    /// An association file served with a content type other than `application/json`.
    public static let contentType = ErrorCode("content-type")
    /// An association file could not be fetched for a reason other than TLS (no connection, timeout, reset).
    public static let fetchFailed = ErrorCode("fetch-failed")
    /// The server answered with a status other than 200 that is not a redirect.
    public static let httpStatus = ErrorCode("http-status")
    /// A request got no complete response within its time limit.
    public static let networkTimeout = ErrorCode("network-timeout")
    /// An association file URL that is not https; the files must be served over https.
    public static let notHttps = ErrorCode("not-https")
    /// The server answered an association file request with a
    /// redirect, which Apple does not follow for these files.
    public static let redirect = ErrorCode("redirect")
    /// The TLS handshake failed, e.g. a certificate not valid for the host or from an untrusted authority.
    public static let tlsFailed = ErrorCode("tls-failed")
    /// A fetch met more redirects than it may follow.
    public static let tooManyRedirects = ErrorCode("too-many-redirects")
}
