import SwitchyardCore

/// The error and finding codes LinkRules uses. Compare with these constants, never with string literals.
extension ErrorCode {
    /// A script's `process` returned without calling its `completionHandler`.
    public static let completionNotCalled = ErrorCode("completion-not-called")
    /// An app or browser reuses the identifier of an earlier one; the later entry is skipped.
    public static let duplicateIdentifier = ErrorCode("duplicate-identifier")
    /// An app whose identifier is the empty string; the app is skipped.
    public static let emptyIdentifier = ErrorCode("empty-identifier")
    /// An entry with both `format` and `script2`; `script2` is used (an error when linting).
    public static let formatAndScript2 = ErrorCode("format-and-script2")
    /// An app defined inline in a format differs from the one with its identifier in `apps`; the one in `apps` is used.
    public static let inlineAppDiffers = ErrorCode("inline-app-differs")
    /// A format with only a legacy `script` and no `script2` (a lint warning: it cannot be run).
    public static let legacyScript = ErrorCode("legacy-script")
    /// The result of a format with only a legacy `script`: it is not run and gives no URL.
    public static let legacyScriptUnsupported = ErrorCode("legacy-script-unsupported")
    /// A format's, browser's or preview's result that is not a link: not a string, not an absolute
    /// URL, or a URL with a control character (which would forge lines on a terminal).
    public static let invalidResult = ErrorCode("invalid-result")
    /// A request refused because the engine is offline; nothing was sent.
    public static let networkDisabled = ErrorCode("network-disabled")
    /// A request that failed on the way: the host did not resolve, or the connection or HTTP exchange failed.
    public static let networkError = ErrorCode("network-error")
    /// A request to a loopback, private or link-local address, refused by `AddressGuard`.
    public static let networkRefused = ErrorCode("network-refused")
    /// A request from an online engine that was given no `Fetcher`; nothing was sent.
    public static let networkUnavailable = ErrorCode("network-unavailable")
    /// A regex shaped so that it can backtrack for a very long time on some inputs (a lint warning).
    public static let regexCatastrophic = ErrorCode("regex-catastrophic")
    /// A regex that does not compile; its entry is skipped.
    public static let regexInvalid = ErrorCode("regex-invalid")
    /// A regex longer than `Pattern.maximumLength` (32 KiB); its entry is skipped.
    public static let regexTooLong = ErrorCode("regex-too-long")
    /// A script's worker process died during the call.
    public static let scriptCrashed = ErrorCode("script-crashed")
    /// A script threw an exception that it did not catch.
    public static let scriptException = ErrorCode("script-exception")
    /// A script stopped because its heap (or its worker process) passed the memory limit.
    public static let scriptMemory = ErrorCode("script-memory")
    /// A script's answer, or a message from its worker, over the size limit.
    public static let scriptOutputTooLarge = ErrorCode("script-output-too-large")
    /// A script that fails to load: a syntax error or an exception at its top level.
    public static let scriptSyntax = ErrorCode("script-syntax")
    /// A script stopped for running past its CPU or wall-clock time limit.
    public static let scriptTimeout = ErrorCode("script-timeout")
    /// A `script2` that defines no `process(url, completionHandler)` function.
    public static let scriptWithoutProcess = ErrorCode("script-without-process")
    /// A script worker process that could not be started, ended before taking the call, or broke the worker protocol.
    public static let scriptWorker = ErrorCode("script-worker")
    /// `testResults` with a different number of entries than `testInputs`; those tests are ignored.
    public static let testCountMismatch = ErrorCode("test-count-mismatch")
    /// An action's regex does not match one of its own test inputs that a template format expects a link for (a lint warning).
    public static let testInputUnmatched = ErrorCode("test-input-unmatched")
}
