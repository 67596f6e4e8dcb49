import ArgumentParser
import Foundation
import LinkRules

/// `switchyard script-worker`: the process a script runs in when scripts are isolated (the
/// default of `resolve`, `manifest test` and `serve`). Started by the engine with a Unix socket
/// as stdin and stdout; not for people.
struct ScriptWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "script-worker",
        abstract: "Run scripts for another switchyard process (internal; started by the engine).",
        shouldDisplay: false
    )

    @Option var timeLimit: Double
    @Option var memoryLimitBytes: Int
    @Flag var offline = false
    @Option var parent: Int32

    /// This executable as a worker: the path of the running binary.
    static var isolation: ScriptIsolation {
        .workerProcesses(executable: Bundle.main.executablePath ?? CommandLine.arguments[0], arguments: ["script-worker"])
    }

    func run() async throws {
        let status = await ScriptWorker.serve(timeLimit: timeLimit, memoryLimit: memoryLimitBytes > 0 ? Double(memoryLimitBytes) : .infinity, offline: offline, parent: parent)
        if status != 0 { throw ExitCode(status) }
    }
}
