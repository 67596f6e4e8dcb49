import ArgumentParser
import Hummingbird
import LinkService

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the link service: hosts the association files generated from the configuration.",
        discussion: """
            With no --config it serves Switchyard's example configuration (the Plur app). /healthz answers 200 once
            the server is ready. SIGTERM or SIGINT stops it gracefully. Links, tokens and storage are not in this
            version yet.
            """
    )

    @Option(help: "Configuration file (YAML or JSON): apple and android apps, hosts, routes.") var config: String?
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on.") var port = 8080

    func run() async throws {
        guard let path = config ?? ServiceConfiguration.examplePath else {
            Output.error("error: the example configuration is missing from the installation")
            throw ExitCode(2)
        }
        let configuration: ServiceConfiguration
        do { configuration = try ServiceConfiguration(contentsOf: path) } catch {
            Output.error("error: \(error)")
            throw ExitCode(2)
        }
        let host = self.host
        let port = self.port
        let app = LinkService.application(configuration: configuration, host: host, port: port) { channel in
            Output.error("switchyard serve: listening on http://\(host):\(channel.localAddress?.port ?? port) (config: \(path))")
        }
        try await app.runService()
    }
}
