import SwitchyardCore
import PatternMatching

/// Why one format's script produced no result: `script-syntax`, `script-exception`,
/// `script-timeout`, `script-memory`, `script-crashed`, `completion-not-called`,
/// `legacy-script-unsupported`, `regex-timeout`, or a network code (`network-disabled`,
/// `network-refused`, `network-error`, …). Fails that format only, never the whole resolve.
/// Described as `code: message`.
public typealias ScriptError = DomainError<ScriptErrors>

/// The domain of ``ScriptError``.
public enum ScriptErrors: ErrorDomain {
    /// Script errors are described as `code: message`.
    public static var describesWithCode: Bool { true }
}

extension RegexTimeout {
    /// The result a format, browser or preview reports for it.
    public var scriptError: ScriptError {
        ScriptError(code: code, message: message)
    }
}
