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

    /// ``json`` written compactly, byte for byte as `JSONWriter.compact(json)` writes it, without
    /// building the value first: `resolve --json` writes one per input.
    public var jsonLine: String {
        var out: [UInt8] = []
        out.reserveCapacity(128 + input.utf8.count * (2 + actions.count + browsers.count) + 96 * (actions.count + browsers.count))
        func text(_ s: String) { JSONWriter.quote(s, into: &out) }
        func raw(_ s: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)) }
        func optional(_ s: String?) { if let s { text(s) } else { raw("null") } }
        func number(_ n: Int) { out += String(n).utf8 }
        func error(_ e: ScriptError?) {
            guard let e else { raw("null"); return }
            raw(#"{"code":"#); text(e.code.name); raw(#","message":"#); text(e.message); raw("}")
        }
        raw(#"{"input":"#); text(input)
        raw(#","actions":["#)
        for (i, a) in actions.enumerated() {
            if i > 0 { raw(",") }
            raw(#"{"action":"#); number(a.action)
            raw(#","title":"#); text(a.title)
            raw(#","format":"#); number(a.format)
            raw(#","appId":"#); text(a.appId)
            raw(#","url":"#); optional(a.url)
            raw(#","error":"#); error(a.error)
            raw("}")
        }
        raw(#"],"browsers":["#)
        for (i, b) in browsers.enumerated() {
            if i > 0 { raw(",") }
            raw(#"{"browser":"#); number(b.browser)
            raw(#","appId":"#); text(b.appId)
            raw(#","url":"#); optional(b.url)
            raw(#","error":"#); error(b.error)
            raw("}")
        }
        raw(#"],"unwrapped":"#); optional(unwrapped)
        if let unwrapStopped { raw(#","unwrapStopped":"#); text(unwrapStopped) }
        raw("}")
        return String(decoding: out, as: UTF8.self)
    }
}
