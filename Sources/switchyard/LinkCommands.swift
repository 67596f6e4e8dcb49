import LinkConfiguration
import SwitchyardCore
import ArgumentParser
import LinkRequests
import LinkService

struct LinkCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "link",
        abstract: "Work with the service's stored links.",
        subcommands: [LinkQR.self]
    )
}

struct LinkQR: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "qr",
        abstract: "Write the QR code of a stored link's page (publicURL/i/CODE; an imported Firebase link's own path) as SVG or PNG.",
        discussion: """
            The same code the service answers at /i/CODE/qr.svg and /i/CODE/qr.png (libqrencode, error correction \
            level M, a quiet zone of four modules). The format follows the file's extension (.svg or .png) unless \
            --format says otherwise.
            """
    )

    @Argument(help: "The link's code.") var code: String
    @Option(help: "The link's domain: a domains list's name (default: the first).") var domain: String?
    @Option(name: [.short, .long], help: "File to write (- for stdout).") var output: String
    @Option(help: "svg or png (default: from the file's extension).") var format: String?
    @Option(parsing: .unconditional, help: "PNG size in pixels, 64–2048 (default 512): the largest whole number of pixels per module that fits.") var size: Int?
    @Option(help: "The service's configuration (its publicURL makes the link's URL; default: ./switchyard.yaml if there is one, else the example).") var config: String?
    @OptionGroup var databaseOption: DatabaseOption

    func validate() throws {
        if case .failure(let problem) = LinkService.qrFormat(output: output, format: format, size: size) { throw ValidationError(problem.message) }
    }

    func run() async throws {
        let configuration = try Output.orExit { try ServiceConfiguration.located(config) }.configuration
        let (png, pixels) = try LinkService.qrFormat(output: output, format: format, size: size).get()
        let image = try await databaseOption.withStore(existing: true, describe: { "\($0)\(($0 as? QRRefusal)?.code == .notFound ? " in \(databaseOption.shown)" : "")" }) {
            try await LinkService.qrImage(code: code, domain: domain, in: $0, configuration: configuration, png: png, pixels: pixels)
        }
        try Output.writeFile(output, image.bytes, note: "wrote \(output) (\(image.width.map { "PNG, \($0)×\($0) px" } ?? "SVG")): \(image.url)")
    }
}
