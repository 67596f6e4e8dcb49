import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import SwitchyardCore

// Swift Concurrency runs on NIO's event loops, so a request's handler runs on the thread that
// reads its socket instead of hopping to the cooperative pool and back. Blocking work never runs
// there: the rule engine has its own threads (LinkRules.ScriptExecutor, where a script's network
// call may wait), and SQLite and file syncs use NIO's thread pool. This must happen before any
// task starts, hence main.swift instead of @main.
_ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()

// Before any file is opened: a closed standard descriptor is held with /dev/null.
Output.stdinWasClosed = StandardDescriptors.occupyClosed()

// Past a file-size limit (`ulimit -f`) a write fails with EFBIG and is said, with status 2 and
// no half-written file left, instead of SIGXFSZ ending the command.
signal(SIGXFSZ, SIG_IGN)

/// Parses and runs the command with the documented exit statuses: 0 success; 1 no result,
/// refused or invalid input (the commands throw `ExitCode(1)`); 2 a usage error (argument
/// parser's own code would be 64) or unreadable input.
func runCommandLine() async -> Never {
    // With --help the parser prints the help of the deepest command it recognised and exits 0,
    // even when a word before it names no command (`switchyard nosuch --help`): that is a usage
    // error, as it is without --help.
    let arguments = Array(CommandLine.arguments.dropFirst())
    /// A word where a command was expected that names none: a usage error, with the commands
    /// there and the one probably meant.
    func refuseUnknownCommand() {
        guard let (word, known) = Switchyard.unknownCommand(in: arguments) else { return }
        let name = (["switchyard"] + arguments.prefix { $0 != word }).joined(separator: " ")
        let meant = DocumentShape.suggestion(for: word, among: known).map { "; did you mean '\($0)'?" } ?? ""
        Output.standardError(Data("Error: Unexpected argument '\(word)': it is not a command of \(name)\(meant) (commands: \(known.joined(separator: ", ")))\n".utf8))
        Switchyard.exit(withError: ExitCode(2))
    }
    if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { refuseUnknownCommand() }
    do {
        var command = try Switchyard.parseAsRoot(nil)
        if var asynchronous = command as? any AsyncParsableCommand {
            try await asynchronous.run()
        } else {
            try command.run()
        }
        Switchyard.exit()
    } catch {
        if Switchyard.exitCode(for: error) == .validationFailure {
            refuseUnknownCommand()
            Output.error(Switchyard.fullMessage(for: error))  // the option's text may hold any character: escaped
            Switchyard.exit(withError: ExitCode(2))
        }
        Switchyard.exit(withError: error)
    }
}
await runCommandLine()
