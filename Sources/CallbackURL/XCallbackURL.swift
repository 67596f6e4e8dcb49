import SwitchyardCore
import Foundation

/// An x-callback-url request or response:
/// `scheme://x-callback-url/ACTION?x-source=…&x-success=…&x-error=…&x-cancel=…&param=…`.
/// Nested URLs are percent-encoded as whole query values (every reserved character escaped), so
/// their own queries survive the round trip.
public struct XCallbackURL: Sendable, Equatable {
    /// The target app's URL scheme, before `://`.
    public var scheme: String
    /// The action after `x-callback-url/`, decoded.
    public var action: String
    /// `x-source`: the name of the app that sends the request, for the target app to show.
    public var source: String?
    /// `x-success`: the URL the target app opens when the action succeeds.
    public var success: String?
    /// `x-error`: the URL the target app opens when the action fails.
    public var error: String?
    /// `x-cancel`: the URL the target app opens when the user cancels the action.
    public var cancel: String?
    /// Other parameters, in order.
    public var parameters: [(name: String, value: String)]

    /// A request or response from its parts; `url` gives its text.
    public init(scheme: String, action: String, source: String? = nil, success: String? = nil, error: String? = nil,
                cancel: String? = nil, parameters: [(name: String, value: String)] = []) {
        self.scheme = scheme
        self.action = action
        self.source = source
        self.success = success
        self.error = error
        self.cancel = cancel
        self.parameters = parameters
    }

    /// Equal when every part is, the other parameters compared in order.
    public static func == (a: XCallbackURL, b: XCallbackURL) -> Bool {
        a.scheme == b.scheme && a.action == b.action && a.source == b.source && a.success == b.success && a.error == b.error
            && a.cancel == b.cancel && a.parameters.elementsEqual(b.parameters, by: { $0 == $1 })
    }

    /// The value of the last other parameter named `name`, or nil;
    /// the `x-source` and callback fields are not among them.
    public func parameter(_ name: String) -> String? { parameters.last(where: { $0.name == name })?.value }

    /// The callback fields that are set, by their parameter names: (`x-success`, URL), …
    public var callbacks: [(name: String, url: String)] {
        [("x-success", success), ("x-error", error), ("x-cancel", cancel)].compactMap { name, url in url.map { (name, $0) } }
    }

    /// Why `url` must not be a callback (`x-success`, `x-error`, `x-cancel`) that is signed or
    /// followed: it is no absolute URL, or its scheme runs code or reads files (`javascript:`,
    /// `data:`, `file:` …, `URLInput.scriptOrLocalSchemes`); nil when it may be.
    public static func callbackProblem(_ url: String) -> String? {
        if let problem = URLInput.problem(url) { return "is not a URL: \(problem)" }
        guard let scheme = URLInput.scheme(of: url) else { return nil }
        return URLInput.scriptOrLocalSchemes.contains(scheme) ? "uses the scheme \(scheme):, which is always denied" : nil
    }

    /// Why `name` may not be one of the other parameters: an x-callback-url field (`x-source`,
    /// `x-success`, `x-error`, `x-cancel`, which have fields of their own) or a name of the
    /// signature (`x-sy-…`); nil when it may. Case-insensitive.
    public static func reservedParameterProblem(_ name: String) -> String? {
        let lowered = name.lowercased()
        if ["x-source", "x-success", "x-error", "x-cancel"].contains(lowered) { return "\(lowered) is an x-callback-url parameter" }
        if lowered.hasPrefix("x-sy-") { return "\(lowered): names starting with x-sy- belong to the signature" }
        return nil
    }

    /// The URL text.
    public var url: String {
        var items: [(String, String)] = []
        if let source { items.append(("x-source", source)) }
        if let success { items.append(("x-success", success)) }
        if let error { items.append(("x-error", error)) }
        if let cancel { items.append(("x-cancel", cancel)) }
        items += parameters.map { ($0.name, $0.value) }
        var text = "\(scheme)://x-callback-url/\(Self.encode(action))"
        if !items.isEmpty { text += "?" + items.map { Self.encode($0.0) + "=" + Self.encode($0.1) }.joined(separator: "&") }
        return text
    }

    /// Parses an x-callback-url; errors say what is wrong. Never traps on hostile input.
    public init(parsing text: String) throws(CallbackError) {
        guard text.utf8.count <= 65_536 else { throw CallbackError(.malformed, "longer than 64 KiB") }
        guard let sep = text.range(of: "://") else {
            let hasScheme = URLInput.scheme(of: text) != nil
            throw CallbackError(.malformed, hasScheme ? "not an x-callback-url: no // after the scheme (expected scheme://x-callback-url/action)"
                                                      : "no scheme (expected scheme://x-callback-url/action)")
        }
        let scheme = String(text[..<sep.lowerBound])
        guard URLInput.isSchemeName(scheme) else {
            throw CallbackError(.malformed, "invalid scheme \"\(scheme.prefix(40))\"")
        }
        var rest = text[sep.upperBound...]
        // Nothing after "#" is signed, and a builder never writes one (a nested URL's "#" is
        // "%23"): a fragment is refused rather than dropped.
        if rest.contains("#") { throw CallbackError(.malformed, "a fragment (#…) is not part of an x-callback-url") }
        let query: Substring?
        if let q = rest.firstIndex(of: "?") { query = rest[rest.index(after: q)...]; rest = rest[..<q] } else { query = nil }
        guard rest.lowercased().hasPrefix("x-callback-url/") else { throw CallbackError(.malformed, "the host must be x-callback-url") }
        guard let action = Self.decode(rest.dropFirst("x-callback-url/".count)), !action.isEmpty else {
            throw CallbackError(.malformed, "no action after x-callback-url/")
        }
        self.init(scheme: scheme, action: action)
        var reserved: Set<String> = []
        for item in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring, value: Substring
            if let eq = item.firstIndex(of: "=") { name = item[..<eq]; value = item[item.index(after: eq)...] } else { name = item; value = "" }
            guard let n = Self.decode(name), let v = Self.decode(value) else { throw CallbackError(.malformed, "bad percent-encoding in \"\(item.prefix(40))\"") }
            // The callback fields and the signature's names appear once, in lower case: a second
            // x-success before the signed one would be what another reader takes, unchecked.
            if Self.reservedParameterProblem(n) != nil {
                let lowered = n.lowercased()
                guard n == lowered else { throw CallbackError(.malformed, "\(n.prefix(40)) must be written in lower case") }
                guard reserved.insert(lowered).inserted else { throw CallbackError(.malformed, "\(lowered) appears more than once") }
            }
            // An empty field would sign as an absent one (the canonical form writes both as
            // nothing), so "x-source=" added to a signed URL would verify: refused.
            if ["x-source", "x-success", "x-error", "x-cancel"].contains(n), v.isEmpty {
                throw CallbackError(.malformed, "\(n) is empty; leave it out instead")
            }
            switch n {
            case "x-source": source = v
            case "x-success": success = v
            case "x-error": error = v
            case "x-cancel": cancel = v
            default: parameters.append((n, v))
            }
        }
    }

    static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    public static func encode<S: StringProtocol>(_ s: S) -> String {
        var out = ""
        for b in s.utf8 {
            if unreserved.contains(b) { out.unicodeScalars.append(Unicode.Scalar(b)) } else { out += String(format: "%%%02X", b) }
        }
        return out
    }

    /// Decodes %XX; nil on a malformed escape or invalid UTF-8. A `+` is a plus sign, as RFC 3986,
    /// Foundation's `URLComponents` and LinkRouting read it (`phone=+15551234`), not a space.
    public static func decode<S: StringProtocol>(_ s: S) -> String? {
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%") {
                guard it.count >= 2, let hi = hex(it.popFirst()!), let lo = hex(it.popFirst()!) else { return nil }
                bytes.append(hi << 4 | lo)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// A callback failure: `malformed`, `unsigned`, `unknown-key`, `bad-signature`, `expired`,
/// `replayed`, `unknown-request`, `already-answered`, `not-allowed`, `denied-callback` or `io`. Its description
/// starts with the code (`bad-signature: …`).
public typealias CallbackError = DomainError<CallbackErrors>

/// The domain of ``CallbackError``.
public enum CallbackErrors: ErrorDomain {
    /// Callback errors are described with their code first (`bad-signature: …`).
    public static var describesWithCode: Bool { true }
}

extension XCallbackURL {
    /// The request's parts as one JSON object (`switchyard callback parse`), parameters in order
    /// of their first appearance; a name given more than once has the array of its values, so
    /// no value is lost to a reader that keeps one member per name.
    public var json: JSONValue {
        func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        var names: [String] = []
        var values: [String: [String]] = [:]
        for (name, value) in parameters {
            if values[name] == nil { names.append(name) }
            values[name, default: []].append(value)
        }
        let members = names.map { name -> (String, JSONValue) in
            let given = values[name]!
            return (name, given.count == 1 ? .string(given[0]) : .array(given.map(JSONValue.string)))
        }
        return .object([
            ("scheme", .string(scheme)), ("action", .string(action)), ("source", optional(source)), ("success", optional(success)),
            ("error", optional(error)), ("cancel", optional(cancel)),
            ("parameters", .object(members)),
        ])
    }
}

extension XCallbackURL {
    /// Why `scheme` cannot be a target app's scheme, or nil: RFC 3986 syntax (a letter, then
    /// letters, digits, `+`, `-` or `.`), and never a scheme that runs code or reads files.
    public static func schemeProblem(_ scheme: String) -> String? {
        if !URLInput.isSchemeName(scheme) {
            return "\(scheme.displayExcerpt()) is not a URL scheme (a letter, then letters, digits, +, - or .)"
        }
        if URLInput.scriptOrLocalSchemes.contains(scheme.lowercased()) {
            return "\(scheme) is always denied (it runs code or reads files instead of opening an app)"
        }
        if ["http", "https"].contains(scheme.lowercased()) { return "\(scheme) is the web's scheme, not an app's" }
        return nil
    }

    /// A parameter written `name=value` (`callback build --param`): the pair, or why it cannot
    /// be one of the request's other parameters — a control, bidirectional or replacement
    /// character, no name before the `=`, or a name with a field of its own (`x-success`, given
    /// as its own option so that it is checked) or of the signature (`x-sy-…`).
    public static func parameter(argument text: String) throws(CallbackError) -> (name: String, value: String) {
        if text.unicodeScalars.contains(where: { $0.isUnsafeToDisplay || $0 == "\u{FFFD}" }) {
            throw CallbackError(.malformed, "\(text.displayExcerpt()) contains a control, bidirectional or replacement character")
        }
        let pair: NamedArgument
        switch NamedArgument.split(text, at: "=") {
        case .success(let split): pair = split
        case .failure(.spaceAroundName):
            throw CallbackError(.malformed, "the name '\(text.prefix { $0 != "=" })' starts or ends with a space")
        case .failure: throw CallbackError(.malformed, "'\(text)' is not name=value (a name before the =)")
        }
        let name = pair.name
        if let problem = reservedParameterProblem(name) {
            let lowered = name.lowercased()
            throw CallbackError(.malformed, problem + (lowered.hasPrefix("x-sy-") ? "" : ": give it with --\(lowered.dropFirst(2)), which checks it"))
        }
        return (name, pair.value)
    }

    /// Why `text` cannot be a part of a request, or nil: a control, bidirectional or replacement
    /// character would make it read differently where it is shown.
    public static func textProblem(_ text: String) -> String? {
        guard let scalar = text.unicodeScalars.first(where: { $0.isUnsafeToDisplay || $0 == "\u{FFFD}" }) else { return nil }
        return "contains \(String(format: "U+%04X", scalar.value)) (a control, bidirectional or replacement character)"
    }
}
