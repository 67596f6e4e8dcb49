import Foundation
import UserAgents

/// `switchyard-bench agents --agents FILE [--regexes FILE]`: the CPU of the parse loop alone —
/// every line of FILE parsed whole (browser, OS, device), no cache — as ua-parser's baseline is
/// measured (`Benchmarks/user-agents.py` runs both in one run). Prints µs per User-Agent for each
/// of three rounds.
enum AgentBenchmark {
    static func cpuSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    static func run(agentsPath: String, regexes: String) throws {
        let text = try String(contentsOfFile: agentsPath, encoding: .utf8)
        let agents = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let parser = try UserAgentParser(contentsOf: regexes)
        var sink = 0
        for round in 1...3 {
            let start = cpuSeconds()
            for agent in agents {
                let parsed = parser.parse(agent)
                sink &+= parsed.userAgent.family.utf8.count &+ parsed.os.family.utf8.count &+ parsed.device.family.utf8.count
            }
            let perAgent = (cpuSeconds() - start) / Double(agents.count) * 1e6
            print(String(format: "round %d: %.2f µs per User-Agent (%d User-Agents, parse loop CPU)", round, perAgent, agents.count))
        }
        if sink == 42 { print("") }
    }
}
