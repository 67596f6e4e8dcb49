import ArgumentParser
import Foundation
import LinkConfiguration
import LinkService
import SwitchyardCore

struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a first configuration and route table for your app.",
        discussion: """
            Writes switchyard.yaml (the service: your apps, public URL, landing pages) and routes.yaml (the route table \
            it names, which the app routes with too) into --directory. Give the iOS app (--team-id, --bundle-id), the \
            Android app (--package, --fingerprint), or both. On a terminal, what is missing is asked for; otherwise a \
            missing value is an error. The files are checked before they are written: `serve --config switchyard.yaml` \
            serves an AASA and assetlinks that `aasa validate` and `assetlinks validate` pass. Existing files are kept \
            unless --force is given.
            """
    )

    // Taken whatever it starts with, so that "-bad.com" is checked as a domain, not read as an option.
    @Option(parsing: .unconditional, help: "The domain of your universal links and of the service (links.example.com).") var domain: String?
    @Option(help: "Apple team ID (10 characters, Membership details in the developer account).") var teamId: String?
    @Option(help: "iOS bundle ID.") var bundleId: String?
    @Option(help: "App Store ID (digits), once the app is published.") var appStoreId: String?
    @Option(help: "Android package name.") var package: String?
    @Option(help: "SHA-256 fingerprint of an Android signing certificate (repeatable; colons optional).") var fingerprint: [String] = []
    @Option(help: "The app's custom URL scheme (myapp).") var scheme: String?
    @Option(help: "The app's name, for the landing pages (default: the last part of the bundle ID or package).") var name: String?
    @Option(help: "Where to write the files (made if missing).") var directory = "."
    @Flag(help: "Replace existing files.") var force = false

    func run() throws {
        var values = InitValues(domain: domain, teamID: teamId, bundleID: bundleId, appStoreID: appStoreId, package: package,
                                fingerprints: fingerprint, scheme: scheme, name: name)
        if isatty(STDIN_FILENO) == 1 { values.askForMissing(Self.ask) }
        let template: ConfigurationTemplate
        switch values.template() {
        case .failure(let missing): throw Self.usage(missing.message)
        case .success(let made): template = made
        }
        guard !directory.isEmpty else { throw Self.usage("--directory is empty: give a directory (. for this one)") }
        do { _ = try template.files() } catch {
            Output.error("error: \(InitValues.flagged(error.message))")
            throw ExitCode(2)
        }
        let configurationPath: String, routesPath: String
        do { (configurationPath, routesPath) = try template.write(into: directory, replacing: force) } catch {
            Output.error("error: \(error.message)")
            throw ExitCode(2)
        }
        Output.line("wrote \(configurationPath) (the service: apps, public URL, landing pages) and \(routesPath) (the route table, which the app routes with too)")
        // serve reads ./switchyard.yaml and keeps its data in ./.switchyard/: run it from there.
        let safe = directory.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._/-".unicodeScalars.contains($0)) }
        let shown = safe ? directory : "'" + directory.replacingOccurrences(of: "'", with: "'\\''") + "'"
        Output.line((directory == "." ? "next: switchyard serve (it reads ./switchyard.yaml and keeps its data in ./.switchyard/)"
                                      : "next: cd \(shown) && switchyard serve (it reads ./switchyard.yaml and keeps its data in ./.switchyard/)").terminalEscaped)
    }

    /// A usage error of this command: the message and where to read more, status 2.
    private static func usage(_ message: String) -> ExitCode {
        Output.error("error: \(message)\n  See 'switchyard init --help'.")
        return ExitCode(2)
    }

    /// One question on the terminal, asked again with the reason while `check` refuses the answer.
    private static func ask(_ text: String, check: (String) -> String?) -> InitValues.Reply {
        while true {
            FileHandle.standardError.write(Data((text + ": ").utf8))
            guard let line = readLine() else {
                FileHandle.standardError.write(Data("\n".utf8))
                return .end
            }
            let answer = line.trimmingCharacters(in: .whitespaces)
            if answer.isEmpty { return .skip }
            guard let problem = check(answer) else { return .answer(answer) }
            FileHandle.standardError.write(Data(("  \(problem); try again (empty: skip)".terminalEscaped + "\n").utf8))
        }
    }
}
