import SwitchyardCore

/// The error and finding codes SwitchyardNetwork uses. Compare with these constants, never with string literals.
extension ErrorCode {
    public static let contentType = ErrorCode("content-type")
    public static let fetchFailed = ErrorCode("fetch-failed")
    public static let httpStatus = ErrorCode("http-status")
    public static let networkTimeout = ErrorCode("network-timeout")
    public static let notHttps = ErrorCode("not-https")
    public static let redirect = ErrorCode("redirect")
    public static let tlsFailed = ErrorCode("tls-failed")
    public static let tooManyRedirects = ErrorCode("too-many-redirects")
}
