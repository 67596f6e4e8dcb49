import SwitchyardJSON
import ArgumentParser
import Foundation
import LinkRules

struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Turn web links into app links.",
        discussion: "With no URL arguments, reads URLs from stdin (one per line) and streams one result per line."
    )

    @OptionGroup var manifestOption: ManifestOption

    @Flag(help: "No network: script helpers fail with network-disabled, redirects are not followed.")
    var offline = false

    @Flag(help: "One JSON object per input line.")
    var json = false

    @Flag(help: "Also list browsers in the human output (always present in --json).")
    var browsers = false

    @Option(name: .customLong("header"), help: "A response header 'Name: value' for header actions (repeatable).")
    var headers: [String] = []

    @Option(help: "Seconds a script may run.")
    var timeLimit: Double = 15

    @Flag(help: "Let scripts reach loopback and private addresses.")
    var allowPrivateAddresses = false

    @Argument(help: "URLs to resolve.")
    var urls: [String] = []

    func validate() throws {
        for h in headers where !h.contains(":") {
            throw ValidationError("--header '\(h)' is not 'Name: value'")
        }
        if timeLimit <= 0 { throw ValidationError("--time-limit must be positive") }
    }

    func run() throws {
        let manifest = try manifestOption.load()
        let engine = LinkEngine(manifest: manifest, options: .init(offline: offline, scriptTimeLimit: timeLimit, allowPrivateAddresses: allowPrivateAddresses))
        let parsedHeaders: [(String, String)] = headers.map { h in
            let i = h.firstIndex(of: ":")!
            return (String(h[..<i]).trimmingCharacters(in: .whitespaces), String(h[h.index(after: i)...]).trimmingCharacters(in: .whitespaces))
        }
        let batch = urls.count != 1
        for input in Output.inputs(urls) {
            let r = engine.resolve(input, headers: parsedHeaders)
            if json {
                Output.line(JSONWriter.compact(r.json))
                continue
            }
            if batch { Output.line(input) }
            let indent = batch ? "  " : ""
            if let u = r.unwrapped { Output.line("\(indent)(unwrapped to \(u))") }
            if r.actions.isEmpty { Output.line("\(indent)no app handles this link") }
            for a in r.actions {
                let name = manifest.app(a.appId)?.name ?? a.appId
                Output.line("\(indent)\(name) → \(describe(a.url, a.error))")
            }
            for b in r.browsers where browsers {
                let name = manifest.browsers[b.browser].name
                Output.line("\(indent)\(name) (browser) → \(describe(b.url, b.error))")
            }
        }
    }

    func describe(_ url: String?, _ error: ScriptError?) -> String {
        if let url { return url }
        if let error { return "error: \(error)" }
        return "(no link)"
    }
}

struct UnwrapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unwrap",
        abstract: "Apply the manifest's static redirect table once (first matching rule wins).",
        discussion: "With no URL arguments, reads URLs from stdin, one per line."
    )

    @OptionGroup var manifestOption: ManifestOption

    @Flag(help: "One JSON object per input line.")
    var json = false

    @Argument(help: "URLs to unwrap.")
    var urls: [String] = []

    func run() throws {
        let engine = LinkEngine(manifest: try manifestOption.load(), options: .init(offline: true))
        for input in Output.inputs(urls) {
            let output = engine.unwrap(input)
            if json {
                Output.line(JSONWriter.compact(.object([("input", .string(input)), ("output", .string(output))])))
            } else {
                Output.line(output)
            }
        }
    }
}
