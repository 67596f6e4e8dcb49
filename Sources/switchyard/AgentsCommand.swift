import ArgumentParser
import Foundation
import SwitchyardCore
import UserAgents

struct AgentsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agents",
        abstract: "Read browsers, operating systems and devices from User-Agent strings.",
        subcommands: [AgentsParseCommand.self]
    )
}

struct AgentsParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Browser, OS and device of each User-Agent, by ua-parser's regexes.yaml.",
        discussion: """
            With no arguments, reads one User-Agent per line from stdin (blank lines are skipped). The rules are \
            uap-core's regexes.yaml: Debian's uap-core package installs it at \(AgentsParseCommand.defaultRegexes). \
            With --jsonl, one JSON object per User-Agent: {"ua", "user_agent": {"family", "major", "minor", "patch", \
            "patch_minor"}, "os": {…}, "device": {"family", "brand", "model"}}, null where the string says nothing. \
            Exit status: 0; 1 when a stdin line was over the length limit (skipped); 2 when the rules cannot be read.
            """
    )

    static let defaultRegexes = "/usr/share/uap-core/regexes.yaml"

    @Option(help: "ua-parser's regexes.yaml (default: \(AgentsParseCommand.defaultRegexes)).") var regexes: String?
    @Flag(help: "One JSON object per line.") var jsonl = false
    @Flag(help: "Try every rule in order instead of the literal index (the reference, for comparison).") var linear = false
    @OptionGroup var lineLimit: LineLimitOption
    @Argument(help: "User-Agent strings.") var agents: [String] = []

    func run() throws {
        let path = regexes ?? Self.defaultRegexes
        if regexes == nil, !FileManager.default.fileExists(atPath: path) {
            Output.error("error: no \(path): install Debian's uap-core package (apt install uap-core) or give --regexes FILE")
            throw ExitCode(2)
        }
        let parser: UserAgentParser
        do { parser = try UserAgentParser(contentsOf: path) } catch {
            Output.error("error: \(error)")
            throw ExitCode(2)
        }
        // An over-long line gets its line-too-long error line, so output lines match input lines.
        let inputs = Output.inputs(agents, maximumLineBytes: lineLimit.maxLineBytes, placeholders: true)
        var lines: [String] = []
        // A log holds few distinct User-Agents, each many times: each is parsed once (the last
        // 10,000 kept).
        var known: [String: String] = [:]
        for agent in inputs {
            if let problem = inputs.tooLong(agent) {
                lines.append(jsonl ? JSONWriter.compact(InputLines.refusal(agent, problem, key: "ua")) : "error: \(InputLines.shown(agent)): \(problem.message)")
            } else if let line = known[agent] { lines.append(line) } else {
                let parsed = parser.parse(agent, linear: linear)
                let line = jsonl ? JSONWriter.compact(Self.json(parsed)) : Self.text(parsed).terminalEscaped
                if known.count >= 10_000 { known.removeAll(keepingCapacity: true) }
                known[agent] = line
                lines.append(line)
            }
            if lines.count >= 256 { Output.write(lines); lines.removeAll(keepingCapacity: true) }
        }
        Output.write(lines)
        try inputs.finish()
        if inputs.skipped > 0 { throw ExitCode(1) }
    }

    static func json(_ p: UserAgentParser.Parsed) -> JSONValue {
        func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        func software(_ s: UserAgentParser.Software) -> JSONValue {
            .object([("family", .string(s.family)), ("major", text(s.major)), ("minor", text(s.minor)), ("patch", text(s.patch)), ("patch_minor", text(s.patchMinor))])
        }
        return .object([
            ("ua", .string(p.ua)), ("user_agent", software(p.userAgent)), ("os", software(p.os)),
            ("device", .object([("family", .string(p.device.family)), ("brand", text(p.device.brand)), ("model", text(p.device.model))])),
        ])
    }

    /// `Chrome 124.0.6367 · Android 14 · Pixel 8 (Google)`.
    static func text(_ p: UserAgentParser.Parsed) -> String {
        func software(_ s: UserAgentParser.Software) -> String {
            ([s.family] + [[s.major, s.minor, s.patch, s.patchMinor].compactMap { $0 }.joined(separator: ".")].filter { !$0.isEmpty }).joined(separator: " ")
        }
        let device = p.device.family + (p.device.brand.map { " (\($0))" } ?? "")
        return "\(software(p.userAgent)) · \(software(p.os)) · \(device)"
    }
}
