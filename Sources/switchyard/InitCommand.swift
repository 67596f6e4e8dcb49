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
        var values = self
        if isatty(STDIN_FILENO) == 1 { values.ask() }
        guard let domain = values.domain, !domain.isEmpty else {
            throw Self.usage("--domain is missing: the domain of your universal links (links.example.com)")
        }
        if (values.teamId == nil) != (values.bundleId == nil) {
            throw Self.usage(values.teamId == nil ? "--team-id is missing: the iOS app needs its team ID with --bundle-id" : "--bundle-id is missing: the iOS app needs its bundle ID with --team-id")
        }
        if values.package == nil, !values.fingerprint.isEmpty { throw Self.usage("--package is missing: --fingerprint is for an Android app") }
        guard values.teamId != nil || values.package != nil else {
            throw Self.usage("no app: give --team-id and --bundle-id (iOS), --package and --fingerprint (Android), or both")
        }
        let apple = values.teamId.map { (teamID: $0, bundleID: values.bundleId!, appStoreID: values.appStoreId) }
        let android = values.package.map { (package: $0, fingerprints: values.fingerprint) }
        let name = values.name ?? (values.bundleId ?? values.package ?? domain).split(separator: ".").last.map(String.init) ?? domain
        let template = ConfigurationTemplate(domain: domain, apple: apple, android: android, scheme: values.scheme, name: name)
        guard !directory.isEmpty else { throw Self.usage("--directory is empty: give a directory (. for this one)") }
        do { _ = try template.files() } catch {
            Output.error(Output.escaped("error: \(Self.flagged(error.message))"))
            throw ExitCode(2)
        }
        let configurationPath: String, routesPath: String
        do { (configurationPath, routesPath) = try template.write(into: directory, replacing: force) } catch {
            Output.error(Output.escaped("error: \(error.message)"))
            throw ExitCode(2)
        }
        Output.line("wrote \(configurationPath) (the service: apps, public URL, landing pages) and \(routesPath) (the route table, which the app routes with too)")
        // serve reads ./switchyard.yaml and keeps its data in ./.switchyard/: run it from there.
        let safe = directory.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._/-".unicodeScalars.contains($0)) }
        let shown = safe ? directory : "'" + directory.replacingOccurrences(of: "'", with: "'\\''") + "'"
        Output.line(Output.escaped(directory == "." ? "next: switchyard serve (it reads ./switchyard.yaml and keeps its data in ./.switchyard/)"
                                                    : "next: cd \(shown) && switchyard serve (it reads ./switchyard.yaml and keeps its data in ./.switchyard/)"))
    }

    /// A template's error with the option to change named: its messages name the configuration's
    /// keys (`apple[0].scheme: …`), which the person typed as options.
    static func flagged(_ message: String) -> String {
        let options: [(prefix: String, flags: String)] = [
            ("apple[0].scheme", "--scheme"), ("apple[0].appStoreId", "--app-store-id"), ("apple[0].bundleId", "--bundle-id"), ("apple[0].teamId", "--team-id"), ("apple[0]", "--team-id/--bundle-id"),
            ("android[0]", "--package/--fingerprint"), ("android", "--package/--fingerprint"), ("service.deepLinkSchemes[0]", "--scheme"),
            ("service.publicURL", "--domain"), ("domain", "--domain"), ("fingerprint", "--fingerprint"), ("landing.title", "--name"),
            ("name", "--name"), ("bundle ID", "--bundle-id"), ("team ID", "--team-id"), ("App Store ID", "--app-store-id"),
            ("package", "--package"), ("scheme", "--scheme"),
        ]
        for (prefix, flags) in options where message.hasPrefix(prefix + ":") {
            return flags + ":" + message.dropFirst(prefix.count + 1)
        }
        return "cannot write a configuration for these values: " + message
    }

    /// A usage error of this command: the message and where to read more, status 2.
    private static func usage(_ message: String) -> ExitCode {
        Output.error("error: \(message)\n  See 'switchyard init --help'.")
        return ExitCode(2)
    }

    /// Asks for what the options left out, on a terminal. Each answer is checked as it is given
    /// (as `files()` will check it, the questions not yet answered standing in with values that
    /// pass) and asked again with the reason when it cannot be used; an empty answer skips the
    /// question, and the end of input stops asking.
    private mutating func ask() {
        var ended = false
        func question(_ text: String, check: (String) -> String?) -> String? {
            while !ended {
                FileHandle.standardError.write(Data((text + ": ").utf8))
                guard let line = readLine() else {
                    ended = true
                    FileHandle.standardError.write(Data("\n".utf8))
                    return nil
                }
                let answer = line.trimmingCharacters(in: .whitespaces)
                if answer.isEmpty { return nil }
                guard let problem = check(answer) else { return answer }
                FileHandle.standardError.write(Data(Output.escaped("  \(problem); try again (empty: skip)\n").utf8))
            }
            return nil
        }
        if domain == nil {
            domain = question("Domain of your universal links (links.example.com)") { answer in
                var v = self; v.domain = answer; return v.problem(with: "--domain")
            }
        }
        if teamId == nil, package == nil {
            teamId = question("Apple team ID (empty: no iOS app)") { answer in
                var v = self; v.teamId = answer; return v.problem(with: "--team-id")
            }
        }
        if teamId != nil, bundleId == nil {
            bundleId = question("iOS bundle ID") { answer in var v = self; v.bundleId = answer; return v.problem(with: "--bundle-id") }
        }
        if teamId != nil, appStoreId == nil {
            appStoreId = question("App Store ID (empty: not published yet)") { answer in
                var v = self; v.appStoreId = answer; return v.problem(with: "--app-store-id")
            }
        }
        if package == nil {
            package = question("Android package (empty: no Android app)") { answer in
                var v = self; v.package = answer; return v.problem(with: "--package")
            }
        }
        if package != nil, fingerprint.isEmpty {
            let check: (String) -> String? = { answer in var v = self; v.fingerprint = [answer]; return v.problem(with: "--fingerprint") }
            if let first = question("SHA-256 signing-certificate fingerprint", check: check) {
                fingerprint = [first]
                while let another = question("Another signing fingerprint (empty: no more)", check: check) { fingerprint.append(another) }
            }
        }
        if scheme == nil {
            scheme = question("The app's URL scheme (empty: none)") { answer in var v = self; v.scheme = answer; return v.problem(with: "--scheme") }
        }
    }

    /// What the files for these values would be refused for, when it is about `option`; the
    /// values not given yet stand in with ones that pass.
    private func problem(with option: String) -> String? {
        let team = teamId ?? (bundleId != nil || appStoreId != nil ? "ABCDE12345" : nil)
        let apple = team.map { (teamID: $0, bundleID: bundleId ?? "com.example.app", appStoreID: appStoreId) }
        let android = package.map { (package: $0, fingerprints: fingerprint.isEmpty ? [Self.standInFingerprint] : fingerprint) }
        let template = ConfigurationTemplate(domain: domain ?? "links.example.com", apple: apple ?? (android == nil ? (teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: nil) : nil),
                                             android: android, scheme: scheme, name: name ?? "app")
        do { _ = try template.files() } catch {
            let message = Self.flagged(error.message)
            guard let colon = message.firstIndex(of: ":"), message[..<colon].split(separator: "/").contains(where: { $0 == option || "--" + $0 == option }) else { return nil }
            return String(message[message.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// A fingerprint that passes, standing in for one not asked for yet.
    private static let standInFingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
}
