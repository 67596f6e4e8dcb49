import ArgumentParser
import CallbackURL
import Foundation
import SwitchyardCore

struct CallbackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "callback",
        abstract: "Build, parse and verify x-callback-url requests.",
        subcommands: [CallbackBuild.self, CallbackParse.self, CallbackVerify.self]
    )
}

/// A signing key given as ID=FILE (the file holds the secret bytes).
struct KeyArgument {
    var id: String
    var secret: [UInt8]

    /// The shape ID=FILE, checked in `validate()` so a mistake prints the subcommand's usage.
    static func validate(_ text: String) throws {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex, text.index(after: eq) != text.endIndex else {
            throw ValidationError("--key '\(text.displayExcerpt().dropFirst().dropLast())' is not ID=FILE")
        }
        // The key id travels in the signed URL and comes back in messages: printable text only.
        if let scalar = text[..<eq].unicodeScalars.first(where: { $0.isUnsafeToDisplay || $0 == " " }) {
            throw ValidationError("--key: the key id must not contain spaces, control or bidirectional format characters (it holds \(String(format: "U+%04X", scalar.value)))")
        }
    }

    /// Reads the key file: one that cannot be read exits with 2 and the reason (no such file,
    /// permission denied, a directory); one shorter than 16 bytes too.
    init(_ text: String) throws {
        try Self.validate(text)
        let eq = text.firstIndex(of: "=")!
        id = String(text[..<eq])
        let path = String(text[text.index(after: eq)...])
        secret = try Output.readFile(path, maximumBytes: 1 << 20)
        if secret.count < 16 {
            Output.error("error: key file '\(path)' has \(secret.count) byte\(secret.count == 1 ? "" : "s"); a key needs at least 16 random bytes (head -c 32 /dev/urandom > \(path))")
            throw ExitCode(2)
        }
    }
}

struct CallbackBuild: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "build", abstract: "Print an x-callback-url (signed with --key).")
    @Option(help: "Target app's scheme.") var scheme: String
    @Option(help: "Action name.") var action: String
    @Option(help: "x-source") var source: String?
    @Option(help: "x-success") var success: String?
    @Option(help: "x-error") var error: String?
    @Option(help: "x-cancel") var cancel: String?
    @Option(name: .customLong("param"), help: "A parameter name=value (repeatable).") var parameters: [String] = []
    @Option(help: "Sign with ID=FILE (HMAC-SHA256).") var key: String?
    @Option(help: "Request id for a signed request (default: a new UUID).") var id: String?
    @Option(parsing: .unconditional, help: "Seconds until a signed request expires (at most 30 days).") var expiresIn: Double = 300

    func validate() throws {
        // RFC 3986: a scheme is a letter, then letters, digits, "+", "-" or ".".
        let letter = { (b: UInt8) in (65...90).contains(b) || (97...122).contains(b) }
        let bytes = Array(scheme.utf8)
        if !(bytes.first.map(letter) ?? false) || !bytes.allSatisfy({ letter($0) || (48...57).contains($0) || $0 == 43 || $0 == 45 || $0 == 46 }) {
            throw ValidationError("--scheme '\(scheme.displayExcerpt().dropFirst().dropLast())' is not a URL scheme (a letter, then letters, digits, +, - or .)")
        }
        if URLInput.scriptOrLocalSchemes.contains(scheme.lowercased()) {
            throw ValidationError("--scheme \(scheme) is always denied (it runs code or reads files instead of opening an app)")
        }
        for (name, value) in [("--success", success), ("--error", error), ("--cancel", cancel), ("--source", source), ("--action", action)] {
            guard let value else { continue }
            if let scalar = value.unicodeScalars.first(where: { $0.isUnsafeToDisplay || $0 == "\u{FFFD}" }) {
                throw ValidationError("\(name) contains \(String(format: "U+%04X", scalar.value)) (a control, bidirectional or replacement character)")
            }
        }
        for (name, value) in [("--success", success), ("--error", error), ("--cancel", cancel)] {
            if let value, let reason = XCallbackURL.callbackProblem(value) { throw ValidationError("\(name) \(reason)") }
        }
        for p in parameters where p.unicodeScalars.contains(where: { $0.isUnsafeToDisplay || $0 == "\u{FFFD}" }) {
            throw ValidationError("--param '\(p.displayExcerpt().dropFirst().dropLast())' contains a control, bidirectional or replacement character")
        }
        if !(expiresIn > 0 && expiresIn <= 30 * 86400) { throw ValidationError("--expires-in must be a number of seconds above 0, at most 2592000 (30 days)") }
        for p in parameters where !p.contains("=") || p.hasPrefix("=") { throw ValidationError("--param '\(p)' is not name=value (a name before the =)") }
        for p in parameters {
            let name = String(p[..<p.firstIndex(of: "=")!])
            guard let problem = XCallbackURL.reservedParameterProblem(name) else { continue }
            let field = name.lowercased().hasPrefix("x-sy-") ? "" : ": give it with --\(name.lowercased().dropFirst(2)), which checks it"
            throw ValidationError("--param \(problem)\(field)")
        }
        if let key { try KeyArgument.validate(key) }
        // The id comes back from `callback verify` on a terminal: one line of printable text.
        if let id, let scalar = id.unicodeScalars.first(where: { $0.isUnsafeToDisplay || $0 == "\u{FFFD}" }) {
            throw ValidationError("--id must not contain control or bidirectional format characters (it holds \(String(format: "U+%04X", scalar.value)))")
        }
        if id?.isEmpty == true { throw ValidationError("--id is empty") }
    }

    func run() throws {
        var request = XCallbackURL(scheme: scheme, action: action, source: source, success: success, error: error, cancel: cancel)
        for p in parameters {
            let eq = p.firstIndex(of: "=")!  // checked in validate()
            request.parameters.append((String(p[..<eq]), String(p[p.index(after: eq)...])))
        }
        if let key {
            let k = try KeyArgument(key)
            request = CallbackSigner(keyID: k.id, secret: k.secret)
                .sign(request, requestID: id ?? UUID().uuidString.lowercased(), expires: Date().addingTimeInterval(expiresIn))
        }
        Output.line(request.url)
    }
}

struct CallbackParse: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "parse", abstract: "Print an x-callback-url's parts as JSON.")
    @Argument var url: String

    func run() throws {
        let r: XCallbackURL
        do { r = try XCallbackURL(parsing: url) } catch {
            Output.error(Output.escaped("error: \(error)"))
            throw ExitCode(1)
        }
        func opt(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        Output.line(JSONWriter.pretty(.object([
            ("scheme", .string(r.scheme)), ("action", .string(r.action)), ("source", opt(r.source)), ("success", opt(r.success)),
            ("error", opt(r.error)), ("cancel", opt(r.cancel)),
            ("parameters", .object(r.parameters.map { ($0.name, .string($0.value)) })),
        ])))
    }
}

struct CallbackVerify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Check a signed request's signature and expiry; prints its request id.")
    @Argument var url: String
    @Option(help: "A key ID=FILE the request may be signed with (repeatable).") var key: [String] = []
    @Option(help: "File of nonces already accepted, so a replay is refused (default: $XDG_STATE_HOME or ~/.local/state, then switchyard/callback-nonces).")
    var seen: String?

    func validate() throws {
        for k in key { try KeyArgument.validate(k) }
        // Two files for one key id: only one could be used, and which is a guess.
        var ids: Set<Substring> = []
        for k in key {
            let id = k[..<k.firstIndex(of: "=")!]
            if !ids.insert(id).inserted { throw ValidationError("--key \(id) is given more than once; give each key id one file") }
        }
    }

    func run() throws {
        var keys: [String: [UInt8]] = [:]
        for k in key { let parsed = try KeyArgument(k); keys[parsed.id] = parsed.secret }
        // The default place is made when missing; a chosen file's directory must exist: a
        // mistyped path would start a nonce file that knows no earlier request, and a replay
        // would pass as the first use.
        if let seen {
            // The text before the last "/" (trailing ones aside); a bare name is in the working
            // directory. (NSString's deletingLastPathComponent traps on ".".)
            var trimmed = Substring(seen)
            while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
            let parent = trimmed.lastIndex(of: "/").map { $0 == trimmed.startIndex ? "/" : String(trimmed[..<$0]) } ?? ""
            var isDirectory: ObjCBool = false
            if !parent.isEmpty, !(FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) && isDirectory.boolValue) {
                Output.error(Output.escaped("error: --seen '\(seen)': there is no directory '\(parent)' (a new nonce file elsewhere would not know the requests already accepted); create it first"))
                throw ExitCode(2)
            }
        }
        let store = SeenNonces(path: seen ?? Output.stateDirectory + "/switchyard/callback-nonces")
        do {
            let id = try CallbackVerifier(keys: keys, seen: store).verify(try XCallbackURL(parsing: url))
            // The id and the refusal (a key id, a nonce) are the sender's text: escaped.
            Output.line(Output.escaped(id))
        } catch where error.code == .io {
            // The nonce file cannot be used: the request was not judged.
            Output.error("error: \(error.message)")
            throw ExitCode(2)
        } catch {
            Output.error(Output.escaped("refused: \(error)"))
            throw ExitCode(1)
        }
    }
}
