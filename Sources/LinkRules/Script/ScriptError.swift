import SwitchyardCore

/// Why one format's script produced no result. Fails that format only, never the whole resolve.
public struct ScriptError: SwitchyardError, Equatable {
    /// `script-syntax`, `script-exception`, `script-timeout`, `script-memory`, `script-crashed`,
    /// `completion-not-called`, `legacy-script-unsupported`, `regex-timeout`, or a network code
    /// (`network-disabled`, `network-refused`, `network-error`, …).
    public var code: ErrorCode
    public var message: String

    public init(code: ErrorCode, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
