/// Why one format's script produced no result. Fails that format only, never the whole resolve.
public struct ScriptError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable code: `script-syntax`, `script-exception`, `script-timeout`,
    /// `completion-not-called`, `legacy-script-unsupported`, or a network code
    /// (`network-disabled`, `network-refused`, `network-error`, …).
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
