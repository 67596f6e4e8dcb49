import ArgumentParser

struct Switchyard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchyard",
        abstract: "Get links into the right app: rewrite web links into app links, and check the rules that do it.",
        discussion: """
            Exit status, for every command: 0 success; 1 no result, refused or invalid input (an input that is not \
            a URL, a link no app handles, a URL no route matches, a file with errors, a URL the relay policy \
            refuses); 2 a usage error or input that cannot be read or used (a missing file, permission denied, a \
            manifest that is not JSON, a service configuration that cannot be used), or output that cannot be \
            written (a full disk). With --json, standard output holds only JSON; an error that stops the command \
            is an 'error:' line on standard error.
            """,
        version: "0.1.0",
        subcommands: [
            InitCommand.self, ServeCommand.self, TokenCommand.self, RelayCommand.self, OpenCommand.self, CallbackCommand.self, ResolveCommand.self, UnwrapCommand.self, ManifestCommand.self, RouteCommand.self, RoutesCommand.self,
            AASACommand.self, AssetLinksCommand.self, PlistCommand.self, LinkCommand.self, ImportCommand.self, ExportCommand.self, AgentsCommand.self, GeoCommand.self, ScriptWorkerCommand.self,
        ]
    )
}

extension Switchyard {
    /// The first word of `arguments` in a command's place that names none of that command's
    /// subcommands, with the names it could have been; nil when every such word names one.
    static func unknownCommand(in arguments: [String]) -> (word: String, known: [String])? {
        var subcommands = configuration.subcommands
        for word in arguments {
            if word.hasPrefix("-") || subcommands.isEmpty || word == "help" { return nil }
            let names = subcommands.map { ($0._commandName, $0.configuration.aliases) }
            guard let index = names.firstIndex(where: { $0.0 == word || $0.1.contains(word) }) else {
                return (word, names.map(\.0).filter { $0 != "script-worker" })
            }
            subcommands = subcommands[index].configuration.subcommands
        }
        return nil
    }
}
