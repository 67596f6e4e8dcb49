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
    @Option var wallLimit: Double
    @Flag var offline = false
    @Option var parent: Int32

    /// This executable as a worker.
    static var isolation: ScriptIsolation { .thisExecutable(arguments: ["script-worker"]) }

    func run() async throws {
        guard ScriptWorker.startedByEngine else {
            Output.standardError(Data("error: script-worker is started by switchyard itself (resolve, manifest test, open, serve), with a Unix socket as its stdin and stdout; it is not meant to be run by hand\n".utf8))
            throw ExitCode(2)
        }
        let status = await ScriptWorker.serve(timeLimit: timeLimit, memoryLimit: memoryLimitBytes > 0 ? Double(memoryLimitBytes) : .infinity, wallLimit: wallLimit, offline: offline, parent: parent)
        if status != 0 { throw ExitCode(status) }
    }
}
