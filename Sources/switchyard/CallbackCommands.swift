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

extension CallbackKey {
    /// Checks the shape ID=FILE in `validate()`, so a mistake prints the subcommand's usage.
    static func validate(_ text: String) throws {
        if let problem = argumentProblem(text) { throw ValidationError("--key \(problem)") }
    }

    /// Reads the key, or exits with 2 and the reason (no such file, a directory, under 16 bytes).
    static func read(_ text: String) throws -> CallbackKey { try Output.orExit { try CallbackKey(argument: text) } }
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
    @Option(parsing: .unconditional, help: "Seconds until a signed request expires (at most 30 days; default 300).") var expiresIn: Double?

    func validate() throws {
        if let problem = XCallbackURL.schemeProblem(scheme) { throw ValidationError("--scheme \(problem)") }
        // The id comes back from `callback verify` on a terminal: printable text, as the others.
        for (name, value) in [("--success", success), ("--error", error), ("--cancel", cancel), ("--source", source), ("--action", action), ("--id", id)] {
            if let value, let problem = XCallbackURL.textProblem(value) { throw ValidationError("\(name) \(problem)") }
        }
        for (name, value) in [("--success", success), ("--error", error), ("--cancel", cancel)] {
            if let value, let reason = XCallbackURL.callbackProblem(value) { throw ValidationError("\(name) \(reason)") }
        }
        if let expiresIn, !(expiresIn > 0 && expiresIn <= 30 * 86400) { throw ValidationError("--expires-in must be a number of seconds above 0, at most 2592000 (30 days)") }
        if key == nil && (id != nil || expiresIn != nil) { throw ValidationError("--id and --expires-in are parts of a signed request: give --key too") }
        if action.isEmpty { throw ValidationError("--action is empty") }
        for p in parameters {
            do { _ = try XCallbackURL.parameter(argument: p) } catch { throw ValidationError("--param \(error.message)") }
        }
        if let key { try CallbackKey.validate(key) }
        if id?.isEmpty == true { throw ValidationError("--id is empty") }
    }

    func run() throws {
        var request = XCallbackURL(scheme: scheme, action: action, source: source, success: success, error: error, cancel: cancel)
        request.parameters = try parameters.map { try XCallbackURL.parameter(argument: $0) }  // checked in validate()
        if let key {
            let k = try CallbackKey.read(key)
            request = CallbackSigner(keyID: k.id, secret: k.secret)
                .sign(request, requestID: id ?? UUID().uuidString.lowercased(), expires: Date().addingTimeInterval(expiresIn ?? 300))
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
            Output.error("error: \(error)".terminalEscaped)
            throw ExitCode(1)
        }
        Output.line(JSONWriter.pretty(r.json))
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
        for k in key { try CallbackKey.validate(k) }
        if let id = CallbackKey.repeatedID(in: key) { throw ValidationError("--key \(id) is given more than once; give each key id one file") }
    }

    func run() throws {
        var keys: [String: [UInt8]] = [:]
        for k in key { let parsed = try CallbackKey.read(k); keys[parsed.id] = parsed.secret }
        // The default place is made when missing; a chosen file's directory must exist: a
        // mistyped path would start a nonce file that knows no earlier request, and a replay
        // would pass as the first use.
        if let seen, let parent = SeenNonces.missingDirectory(of: seen) {
            Output.error("error: --seen '\(seen)': there is no directory '\(parent)' (a new nonce file elsewhere would not know the requests already accepted); create it first")
            throw ExitCode(2)
        }
        let store = SeenNonces(path: seen ?? StateDirectory.path() + "/switchyard/callback-nonces")
        do {
            let id = try CallbackVerifier(keys: keys, seen: store).verify(try XCallbackURL(parsing: url))
            // The id and the refusal (a key id, a nonce) are the sender's text: escaped.
            Output.line(id.terminalEscaped)
        } catch where error.code == .io {
            // The nonce file cannot be used: the request was not judged.
            Output.error("error: \(error.message)")
            throw ExitCode(2)
        } catch {
            Output.error("refused: \(error)".terminalEscaped)
            throw ExitCode(1)
        }
    }
}
