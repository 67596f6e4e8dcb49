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

    var arguments: XCallbackURL.Arguments {
        XCallbackURL.Arguments(scheme: scheme, action: action, source: source, success: success, error: error, cancel: cancel,
                               parameters: parameters, key: key, id: id, expiresIn: expiresIn)
    }

    func validate() throws {
        if let problem = arguments.problem { throw ValidationError(problem) }
    }

    func run() throws {
        Output.line(try Output.orExit { try arguments.request(now: Date()) }.url)
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
        let keys = try Output.orExit { try CallbackKey.secrets(arguments: key) }
        // A mistyped --seen would start a nonce file that knows no earlier request: refused.
        let store: SeenNonces
        do { store = try SeenNonces(commandLine: seen) } catch {
            Output.error("error: \(error.message)")
            throw ExitCode(2)
        }
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
