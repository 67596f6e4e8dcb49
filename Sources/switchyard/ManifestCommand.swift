import ArgumentParser
import Foundation
import LinkRules
import SwitchyardCore
import SwitchyardNetwork

struct ManifestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Test, lint and minify Opener-format manifests.",
        subcommands: [TestCommand.self, LintCommand.self, MinifyCommand.self]
    )

    struct TestCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Run the manifest's own tests; the last line is 'N passed, N failed, N skipped' (with --json, a summary object).",
            discussion: "Skipped tests need the network while --offline. Exit status 1 on any failure."
        )

        @Argument(help: "The manifest file.") var path: String
        @Flag(help: "No network: tests whose scripts need it are skipped.") var offline = false
        @Flag(help: "One JSON object per test, then {\"summary\":{\"passed\":N,\"failed\":N,\"skipped\":N}}.") var json = false
        @Option(parsing: .unconditional, help: "Seconds a script may run.") var timeLimit: Double = 15
        @Flag(help: "Refuse a manifest with entries that cannot be used, instead of skipping them with a warning.") var strict = false
        @OptionGroup var isolation: ScriptIsolationOption

        func validate() throws {
            if !(timeLimit > 0 && timeLimit <= 3600) { throw ValidationError("--time-limit must be a number of seconds above 0, at most 3600") }
        }

        func run() async throws {
            let manifest = try ManifestOption.load(path, strict: strict)
            let runner = ManifestTestRunner(engine: LinkEngine(manifest: manifest, options: .init(offline: offline, scriptTimeLimit: timeLimit, scriptIsolation: isolation.isolation).withHTTPFetcher()))
            var bar = Output.stderrIsTerminal && !json ? ProgressBar() : nil
            let (summary, outcomes) = await runner.run { done, total, outcome in
                if json { Output.line(JSONWriter.compact(outcome.json)) }
                if let drawn = bar?.update(done: done, total: total) { Output.standardError(Data(drawn.utf8)) }
            }
            if json {
                // The summary as a JSON line too, so that every line of --json output parses.
                Output.line(JSONWriter.compact(summary.json))
            } else {
                Output.write(outcomes.filter { $0.status == .failed }.flatMap(\.failureLines).map(\.terminalEscaped) + [summary.line])
            }
            if summary.failed > 0 { throw ExitCode(1) }
        }
    }

    struct LintCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Find mistakes in a manifest; exit status 1 when there are errors."
        )

        @Argument(help: "The manifest file.") var path: String
        @Flag(help: "One JSON object per finding.") var json = false
        @OptionGroup var isolation: ScriptIsolationOption

        func run() async throws {
            let findings = await ManifestLinter.lint(data: try Output.readFile(path), isolation: isolation.isolation)
            Output.write(json ? findings.map { JSONWriter.compact(ManifestLinter.json($0)) } : ManifestLinter.lines(findings, file: path).map(\.terminalEscaped))
            // A file that is not JSON, or JSON that is not an object, is unreadable input (2), as
            // for every other command that reads a manifest.
            if findings.contains(where: { $0.code == .jsonSyntax || $0.code == .notAnObject }) { throw ExitCode(2) }
            if findings.contains(where: { $0.severity == .error }) { throw ExitCode(1) }
        }
    }

    struct MinifyCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "minify",
            abstract: "Drop tests, docs and notes; write compact JSON that resolves exactly like the input."
        )

        @Argument(help: "The manifest file.") var path: String
        @Option(name: .shortAndLong, help: "Output file (default: stdout).") var output: String?

        func run() throws {
            let bytes = try Output.readFile(path)
            let manifest = try ManifestOption.parse(bytes, source: path, strict: false)
            let text = ManifestMinifier.minify(manifest.document) + "\n"
            try Output.writeFile(output ?? "-", Array(text.utf8), note: "\(bytes.count) → \(text.utf8.count) bytes written to \(output ?? "-")")
        }
    }
}
