import SwitchyardCore
import ArgumentParser


struct Switchyard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchyard",
        abstract: "Get links into the right app: rewrite web links into app links, and check the rules that do it.",
        discussion: """
            Exit status, for every command: 0 success; 1 no result, refused or invalid input (an input that is not \
            a URL, a link no app handles, a URL no route matches, a file with errors, a URL the relay policy \
            refuses); 2 a usage error or input that cannot be read or used (a missing file, permission denied, a \
            manifest that is not JSON, a service configuration that cannot be used).
            """,
        version: "0.1.0",
        subcommands: [
            ServeCommand.self, TokenCommand.self, RelayCommand.self, OpenCommand.self, CallbackCommand.self, ResolveCommand.self, UnwrapCommand.self, ManifestCommand.self, RouteCommand.self, RoutesCommand.self,
            AASACommand.self, AssetLinksCommand.self, PlistCommand.self, LinkCommand.self, ImportCommand.self, ExportCommand.self, ScriptWorkerCommand.self,
        ]
    )
}
