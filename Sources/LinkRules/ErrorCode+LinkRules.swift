import SwitchyardCore

/// The error and finding codes LinkRules uses. Compare with these constants, never with string literals.
extension ErrorCode {
    public static let completionNotCalled = ErrorCode("completion-not-called")
    public static let duplicateIdentifier = ErrorCode("duplicate-identifier")
    public static let emptyIdentifier = ErrorCode("empty-identifier")
    public static let formatAndScript2 = ErrorCode("format-and-script2")
    public static let inlineAppDiffers = ErrorCode("inline-app-differs")
    public static let legacyScript = ErrorCode("legacy-script")
    public static let legacyScriptUnsupported = ErrorCode("legacy-script-unsupported")
    public static let networkDisabled = ErrorCode("network-disabled")
    public static let networkError = ErrorCode("network-error")
    public static let networkRefused = ErrorCode("network-refused")
    public static let networkUnavailable = ErrorCode("network-unavailable")
    public static let regexCatastrophic = ErrorCode("regex-catastrophic")
    public static let regexInvalid = ErrorCode("regex-invalid")
    public static let regexTimeout = ErrorCode("regex-timeout")
    public static let scriptCrashed = ErrorCode("script-crashed")
    public static let scriptException = ErrorCode("script-exception")
    public static let scriptMemory = ErrorCode("script-memory")
    public static let scriptOutputTooLarge = ErrorCode("script-output-too-large")
    public static let scriptSyntax = ErrorCode("script-syntax")
    public static let scriptTimeout = ErrorCode("script-timeout")
    public static let scriptWithoutProcess = ErrorCode("script-without-process")
    public static let scriptWorker = ErrorCode("script-worker")
    public static let testCountMismatch = ErrorCode("test-count-mismatch")
    public static let testInputUnmatched = ErrorCode("test-input-unmatched")
}
