import SwitchyardCore
/// What one format of a matching action produced.
public struct ActionResult: Sendable, Equatable {
    /// Index of the action in the manifest file's `actions` array.
    public var action: Int
    /// The action's title from the manifest (empty when it has none).
    public var title: String
    /// Index into that action's `formats`.
    public var format: Int
    /// Identifier of the app this format opens.
    public var appId: String
    /// The app URL; nil when the script returned null or failed.
    public var url: String?
    /// Why the format gave no URL (a script error, a regex timeout), or nil.
    public var error: ScriptError?
}

/// What a matching browser produced.
public struct BrowserResult: Sendable, Equatable {
    /// Index of the browser in the manifest file's `browsers` array.
    public var browser: Int
    /// The browser's identifier.
    public var appId: String
    /// The URL that opens the page in the browser; nil when the script returned null or failed.
    public var url: String?
    /// Why the browser gave no URL, or nil.
    public var error: ScriptError?
}

/// A preview image URL for a web URL.
public struct PreviewResult: Sendable, Equatable {
    /// Index of the rule in the manifest file's `previews` array.
    public var preview: Int
    /// The preview image URL; nil when the rule produced none or failed.
    public var url: String?
    /// The rule's `canSave` flag from the manifest (false when absent), passed on unchanged.
    public var canSave: Bool
    /// Why the rule gave no URL, or nil.
    public var error: ScriptError?
}

/// The result of resolving one input.
public struct Resolution: Sendable, Equatable {
    /// The input as given, before any redirect unwrapping.
    public var input: String
    /// Every format of every matching action, in manifest order.
    public var actions: [ActionResult]
    /// Every browser whose regex matches the (unwrapped) URL, in manifest order; empty unless it is http(s).
    public var browsers: [BrowserResult]
    /// When no action matched the input: the URL that redirects led to, if it differs.
    public var unwrapped: String?
    /// Why following HTTP redirects stopped before the end of the chain (the hop limit, a loop,
    /// the network timeout, a failed request): `unwrapped` is then the last URL reached (nil
    /// for a loop back to the input), not the chain's end. Nil when the chain ended or there
    /// was no redirect to follow.
    public var unwrapStopped: String? = nil
}

extension Resolution {
    /// The `--json` line of the CLI contract, keys in contract order.
    public var json: JSONValue {
        func error(_ e: ScriptError?) -> JSONValue {
            guard let e else { return .null }
            return .object([("code", .string(e.code.name)), ("message", .string(e.message))])
        }
        return .object([
            ("input", .string(input)),
            ("actions", .array(actions.map { a in
                .object([
                    ("action", .int(a.action)), ("title", .string(a.title)), ("format", .int(a.format)),
                    ("appId", .string(a.appId)), ("url", a.url.map(JSONValue.string) ?? .null), ("error", error(a.error)),
                ])
            })),
            ("browsers", .array(browsers.map { b in
                .object([
                    ("browser", .int(b.browser)), ("appId", .string(b.appId)),
                    ("url", b.url.map(JSONValue.string) ?? .null), ("error", error(b.error)),
                ])
            })),
            ("unwrapped", unwrapped.map(JSONValue.string) ?? .null),
        ] + (unwrapStopped.map { [("unwrapStopped", JSONValue.string($0))] } ?? []))
    }
}
