import LinkConfiguration
import SwitchyardCore
import ArgumentParser
import LinkRequests
import LinkService
import SwitchyardQR

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
            The same code the service answers at /i/CODE/qr.svg and /i/CODE/qr.png (libqrencode), in the style the \
            domain's qr section gives (by default black on white, error correction level M, a margin of four \
            modules, no logo); the options below change it for this code. The format follows the file's extension \
            (.svg or .png) unless --format says otherwise.
            """
    )

    @Argument(help: "The link's code.") var code: String
    @Option(help: "The link's domain: a domains list's name (default: the first).") var domain: String?
    @Option(name: [.short, .long], help: "File to write (- for stdout).") var output: String
    @Option(help: "svg or png (default: from the file's extension).") var format: String?
    @Option(parsing: .unconditional, help: "PNG size in pixels, 64–2048 (default 512): the largest whole number of pixels per module that fits.") var size: Int?
    @Option(help: "The dark modules' colour, #rrggbb (default: the domain's qr.foreground, else #000000).") var foreground: String?
    @Option(help: "The background colour, #rrggbb, at least 3:1 against the foreground and lighter (default: qr.background, else #ffffff).") var background: String?
    @Option(parsing: .unconditional, help: "Modules of background around the code, 1–16 (default: qr.margin, else 4).") var margin: Int?
    @Option(name: .customLong("error-correction"), help: "L, M, Q or H (default: qr.errorCorrection, else M; H with a logo).") var errorCorrection: String?
    @Option(help: "A PNG or SVG file (at most 256 KiB) for the code's centre, drawn at level H; none: no logo (default: qr.logo).") var logo: String?
    @Option(help: "The service's configuration (its publicURL makes the link's URL; default: ./switchyard.yaml if there is one, else the example).") var config: String?
    @OptionGroup var databaseOption: DatabaseOption

    func validate() throws {
        if case .failure(let problem) = LinkService.qrFormat(output: output, format: format, size: size) { throw ValidationError(problem.message) }
    }

    func run() async throws {
        let configuration = try Output.orExit { try ServiceConfiguration.located(config) }.configuration
        let (png, pixels) = try LinkService.qrFormat(output: output, format: format, size: size).get()
        var options: [String: String] = [:]
        for (name, value) in [("foreground", foreground), ("background", background), ("margin", margin.map(String.init)), ("errorCorrection", errorCorrection)] {
            if let value { options[name] = value }
        }
        var logoFile: QRLogo?
        if logo == "none" { options["logo"] = "none" } else if let logo {
            logoFile = try Output.orExit { () throws -> QRLogo in
                let read: (bytes: [UInt8], complete: Bool)
                do { read = try DurableFile.read(logo, upTo: QRLogo.maximumBytes) } catch { throw ValidationError("--logo: \(error)") }
                guard read.complete else { throw ValidationError("--logo: \(logo): larger than \(QRLogo.maximumBytes) bytes (256 KiB), the most a logo may have") }
                do { return try QRLogo(data: read.bytes) } catch { throw ValidationError("--logo: \(logo): \(error)") }
            }
        }
        let style = try Output.orExit { try LinkService.qrStyle(domain: domain, configuration: configuration, logo: logoFile, options: options) }
        let image = try await databaseOption.withStore(existing: true, describe: { "\($0)\(($0 as? QRRefusal)?.code == .notFound ? " in \(databaseOption.shown)" : "")" }) {
            try await LinkService.qrImage(code: code, domain: domain, in: $0, configuration: configuration, png: png, pixels: pixels, style: style)
        }
        try Output.writeFile(output, image.bytes, note: "wrote \(output) (\(image.width.map { "PNG, \($0)×\($0) px" } ?? "SVG")): \(image.url)")
    }
}
