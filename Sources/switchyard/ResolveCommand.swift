import SwitchyardCore
import ArgumentParser
import LinkRules
import SwitchyardNetwork
import PatternMatching

struct ResolveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Turn web links into app links.",
        discussion: """
            With no URL arguments, reads URLs from stdin (one per line) and streams one result per line, in input \
            order, using every core. Blank and whitespace-only lines are skipped: they give no output line. Exit status: 0 when every input gave an app link; 1 when one did not, was not \
            an absolute URL, or was a stdin line over the length limit (the others are still resolved); 2 usage \
            error or an unreadable manifest.
            """
    )

    @OptionGroup var manifestOption: ManifestOption
    @Flag(help: "No network: script helpers fail with network-disabled, redirects are not followed.") var offline = false
    @Flag(help: "One JSON object per input line.") var json = false
    @Flag(help: "Also list browsers in the human output (always present in --json).") var browsers = false
    @Option(name: .customLong("header"), help: "A response header 'Name: value' for header actions (repeatable).") var headers: [String] = []
    @Option(parsing: .unconditional, help: "Seconds a script may run.") var timeLimit: Double = 15
    @Option(parsing: .unconditional, help: "Seconds one network call may take, its redirects included (a script helper call; all of redirect following).") var networkTimeout: Double = 10
    @Option(parsing: .unconditional, help: "Megabytes one script's heap may hold; past it the script fails with script-memory.") var scriptMemory: Int = 256
    @Option(parsing: .unconditional, help: "Seconds one regex evaluation may take; a longer one fails its action with regex-timeout.") var regexTimeLimit: Double = Pattern.defaultTimeLimit
    @Flag(help: "Let scripts and redirect following reach loopback and private addresses.") var allowPrivateAddresses = false
    @Flag(help: "Try every action's regex in turn instead of using the literal index (the reference behaviour, for comparison).") var linear = false
    @OptionGroup var lineLimit: LineLimitOption
    @OptionGroup var isolation: ScriptIsolationOption
    @Argument(help: "URLs to resolve.") var urls: [String] = []

    func validate() throws {
        for h in headers where LinkEngine.header(argument: h) == nil { throw ValidationError("--header '\(h)' is not 'Name: value' (a field name, a colon, a value on one line)") }
        if !(timeLimit > 0 && timeLimit <= 3600) { throw ValidationError("--time-limit must be a number of seconds above 0, at most 3600") }
        if !(networkTimeout > 0 && networkTimeout <= 3600) { throw ValidationError("--network-timeout must be a number of seconds above 0, at most 3600") }
        if !(16...65536).contains(scriptMemory) { throw ValidationError("--script-memory must be a number of megabytes from 16 to 65536") }
        if !(regexTimeLimit > 0 && regexTimeLimit <= 3600) { throw ValidationError("--regex-time-limit must be a number of seconds above 0, at most 3600") }
    }

    func run() async throws {
        let manifest = try manifestOption.load()
        let engine = LinkEngine(manifest: manifest, options: .init(
            offline: offline, scriptTimeLimit: timeLimit, allowPrivateAddresses: allowPrivateAddresses, useIndex: !linear,
            networkTimeout: networkTimeout, regexTimeLimit: regexTimeLimit,
            scriptMemoryLimit: Double(scriptMemory) * 1_048_576, scriptIsolation: isolation.isolation).withHTTPFetcher())
        let parsedHeaders = headers.compactMap(LinkEngine.header(argument:)).map { ($0.name, $0.value) }
        let inputs = Output.inputs(urls, maximumLineBytes: lineLimit.maxLineBytes, placeholders: true)
        let output = ResolutionOutput(manifest: manifest, json: json, browsers: browsers, batch: urls.count != 1)
        // Arguments too go through the stream: slow links given on the command line wait about
        // one timeout together.
        var failed = 0, unhandled = false
        await engine.resolve(stream: inputs, headers: parsedHeaders, refused: output.refused, resolved: output.resolved) { answers in
            for answer in answers {
                if answer.failed { failed += 1 }
                if let message = answer.message { Output.error(message) }
                if !json, answer.lines.contains(where: { $0.hasSuffix("no app handles this link") }) { unhandled = true }
                Output.write(answer.lines)
            }
        }
        try inputs.finish()
        if offline, unhandled {
            Output.error("note: --offline follows no HTTP redirects: a link that redirects (a short link such as t.co or bit.ly) may reach an app without --offline")
        }
        if failed > 0 || inputs.skipped > 0 { throw ExitCode(1) }
    }
}

struct UnwrapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unwrap",
        abstract: "Apply the manifest's static redirect table once (first matching rule wins).",
        discussion: "With no URL arguments, reads URLs from stdin, one per line, and writes one result per line (an input that is not a URL gets an 'error:' line, and the reason on stderr). Blank and whitespace-only lines are skipped: they give no output line."
    )

    @OptionGroup var manifestOption: ManifestOption
    @Flag(help: "One JSON object per input line.") var json = false
    @OptionGroup var lineLimit: LineLimitOption
    @Argument(help: "URLs to unwrap.") var urls: [String] = []

    func run() throws {
        let engine = LinkEngine(manifest: try manifestOption.load(), options: .init(offline: true))
        let inputs = Output.inputs(urls, maximumLineBytes: lineLimit.maxLineBytes, placeholders: true)
        let invalid = inputs.answerEach(refused: { input, problem in
            if json { return [JSONWriter.compact(InputLines.refusal(input, problem))] }
            // As resolve does: the reason on stderr, and — when several inputs are answered — a
            // line on stdout too, so output lines keep matching input lines.
            let line = "error: \(InputLines.shown(input)): \(problem.message)"
            Output.error(line)
            return urls.count != 1 ? [line] : []
        }, answer: { input in
            let output = engine.unwrap(input)
            // A decoded parameter may hold %1B or %0A: escaped for the terminal.
            return ([json ? JSONWriter.compact(.object([("input", .string(input)), ("output", .string(output))])) : output.terminalEscaped], false)
        }, write: Output.write)
        try inputs.finish()
        if inputs.skipped > 0 || invalid > 0 { throw ExitCode(1) }
    }
}
