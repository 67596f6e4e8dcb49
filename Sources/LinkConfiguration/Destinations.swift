import SwitchyardCore

/// Where a link may send someone: the schemes no deep link or fallback may use, and the stores
/// a landing page may link to. The configuration checks its app schemes against them and the
/// link API checks every deep link and fallback.
package enum Destinations {
    /// Schemes that are never a deep link or a fallback.
    package static let forbiddenSchemes: Set<String> = URLInput.scriptOrLocalSchemes.union(["about"])
    /// Schemes that open a web page in a browser (or, like Android's `intent:`, may fall back to
    /// one): as an app scheme they would be an open redirect, so the configuration refuses them.
    package static let browserSchemes: Set<String> = [
        "intent", "x-safari-http", "x-safari-https", "googlechrome", "googlechromes", "firefox", "firefox-focus",
        "opera-http", "opera-https", "microsoft-edge-http", "microsoft-edge-https", "brave", "x-web-search",
        "view-source", "ftp", "ws", "wss", "itms-services",
    ]

    /// The store hosts a landing page may send a visitor to without `service.redirectHosts`, for
    /// the configuration's own apps.
    package static let storeHosts: Set<String> = ["apps.apple.com", "itunes.apple.com", "play.google.com"]
}
