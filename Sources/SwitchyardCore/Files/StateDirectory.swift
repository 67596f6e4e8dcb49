import Foundation

/// Where a user's state lives under the XDG base directory rules: `$XDG_STATE_HOME` when it is an
/// absolute path (a relative one is invalid and ignored), else `$HOME/.local/state` when `HOME`
/// is absolute, else the account's own home. The inbox and the nonce file live here, so a path
/// that depended on the working directory would let a replay be accepted again elsewhere.
public enum StateDirectory {
    /// The state directory for `environment`.
    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectory(forUser: NSUserName()).map(\.path).flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? "/"
        return (home == "/" ? "" : home) + "/.local/state"
    }
}
