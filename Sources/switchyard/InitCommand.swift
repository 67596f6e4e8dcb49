import ArgumentParser
import Foundation
import LinkConfiguration
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
    @Option(help: "The app's name, for the landing pages (default: from the bundle ID or package, com.acme.app → Acme).") var name: String?
    @Option(help: "Where to write the files (made if missing).") var directory = "."
    @Flag(help: "Replace existing files.") var force = false
    @Option(help: "Add this app's domain, under this name, to the switchyard.yaml already in --directory (a domains list; a configuration of one domain becomes its first entry) instead of writing a new one.") var addDomain: String?

    func run() throws {
        var values = InitValues(domain: domain, teamID: teamId, bundleID: bundleId, appStoreID: appStoreId, package: package,
                                fingerprints: fingerprint, scheme: scheme, name: name)
        if isatty(STDIN_FILENO) == 1 { values.askForMissing(Self.ask) }
        do throws(InitValuesError) {
            let lines: [String]
            if let addDomain { lines = try values.add(named: addDomain, into: directory, replacing: force) } else { lines = try values.write(into: directory, replacing: force) }
            Output.write(lines.map(\.terminalEscaped))
        } catch {
            // A usage error says where to read more; either way, status 2.
            Output.error("error: \(error.message)" + (error.usage ? "\n  See 'switchyard init --help'." : ""))
            throw ExitCode(2)
        }
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
