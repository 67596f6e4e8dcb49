import ArgumentParser


struct Switchyard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchyard",
        abstract: "Get links into the right app: rewrite web links into app links, and check the rules that do it.",
        version: "0.1.0",
        subcommands: [
            ServeCommand.self, TokenCommand.self, RelayCommand.self, OpenCommand.self, CallbackCommand.self, ResolveCommand.self, UnwrapCommand.self, ManifestCommand.self, RouteCommand.self, RoutesCommand.self,
            AASACommand.self, AssetLinksCommand.self, PlistCommand.self,
        ]
    )
}
