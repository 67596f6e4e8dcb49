import ArgumentParser
import AssociatedDomains
import Foundation
import LinkRouting
import SwitchyardCore

func loadRouter(_ path: String) throws -> LinkRouter {
    do { return try LinkRouter(contentsOf: path) } catch {
        Output.error("error: \(error)")
        throw ExitCode(2)
    }
}

struct RouteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "route",
        abstract: "Route URLs with a route table: which route, which typed parameters (stdin when no URL is given).",
        discussion: "With no URL arguments, reads URLs from stdin, one per line, and writes one result per line. Blank and whitespace-only lines are skipped: they give no output line."
    )
    @Option(help: "Route table (JSON or YAML).") var routes: String
    @Flag(help: "One JSON object per URL.") var json = false
    @OptionGroup var lineLimit: LineLimitOption
    @Argument(help: "URLs.") var urls: [String] = []

    static func json(_ m: RouteMatch) -> JSONValue {
        .object([
            ("route", .string(m.route)),
            ("parameters", .object(m.parameters.keys.sorted().map { k in
                let v = m.parameters[k]!
                switch v {
                case .int(let i): return (k, .int(i))
                case .url(let u, let nested): return (k, .object([("url", .string(u)), ("route", nested.map(json) ?? .null)]))
                default: return (k, .string(v.text))
                }
            })),
        ])
    }

    func run() throws {
        let router = try loadRouter(routes)
        var failed = false
        let inputs = Output.inputs(urls, maximumLineBytes: lineLimit.maxLineBytes, placeholders: true)
        for url in inputs {
            // The same input check as resolve and unwrap: an absolute URL without spaces or
            // control characters; an invalid one (or an over-long line) still gets its line.
            if let problem = inputs.problem(url) {
                failed = true
                if json {
                    Output.line(JSONWriter.compact(.object(InputLines.inputMembers(url, key: "url") + [
                        ("route", .null), ("error", .object([("code", .string(problem.code.name)), ("message", .string(problem.message))])),
                    ])))
                } else {
                    Output.line("\(InputLines.shown(url)) → error: \(problem.message)")
                }
                continue
            }
            // As a browser hands a tapped link to the app: `\\` read as `/`, host case, default
            // port and dot segments settled (BrowserURL).
            let result = router.route(BrowserURL.normalized(url))
            switch result {
            case .matched(let m):
                if json {
                    Output.line(JSONWriter.compact(.object([("url", .string(url))] + (Self.json(m).objectMembers ?? []))))
                } else {
                    // Parameters are percent-decoded (%1B, %0A): escaped for the terminal.
                    Output.line(Output.escaped("\(url) → \(m)"))
                    if let canonical = router.url(for: m), canonical != url { Output.line(Output.escaped("  canonical: \(canonical)")) }
                }
            case .unmatched(let reason):
                failed = true
                if json { Output.line(JSONWriter.compact(.object([("url", .string(url)), ("route", .null), ("reason", .string(reason))]))) } else {
                    Output.line(Output.escaped("\(url) → no route: \(reason)"))
                }
            }
        }
        try inputs.finish()
        if failed || inputs.skipped > 0 { throw ExitCode(1) }
    }
}

struct RoutesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "routes", abstract: "Check a route table against association files.", subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every universal-link route is covered by the AASA for the app, and every URL the AASA hands the app has a route.")
        @Option(help: "Route table (JSON or YAML).") var routes: String
        @Option(help: "The AASA file.") var aasa: String
        @Option(name: .customLong("app-id"), help: "TEAMID.bundle.id (default: every app ID in the AASA).") var appID: [String] = []
        @Flag(help: "JSON output.") var json = false

        func run() throws {
            let router = try loadRouter(routes)
            let association = try AASACommand.load(aasa)
            let ids = appID.isEmpty ? Array(Set((association.applinks?.details ?? []).flatMap(\.appIDs))).sorted() : appID
            var findings: [Finding] = []
            for id in ids { findings += RouteCoverage.check(router: router, aasa: association, appID: id) }
            if FindingOutput.print(findings, json: json, subject: "\(routes) ↔ \(aasa)") { throw ExitCode(1) }
        }
    }
}

struct AssetLinksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "assetlinks", abstract: "Validate and generate Android assetlinks.json.", subcommands: [Validate.self, Generate.self])

    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Validate a file or https://DOMAIN's /.well-known/assetlinks.json; exit 1 on errors.")
        @Argument(help: "A file or an https URL.") var source: String
        @Flag(help: "JSON output.") var json = false
        @Option(help: "A PEM certificate authority to trust when fetching.") var caFile: String?
        @Flag(help: "Fetch from loopback, private and link-local addresses too (a test server); refused by default.") var allowPrivateAddresses = false

        func run() async throws {
            try await SourceValidation.run(source, wellKnownFile: "assetlinks.json", maximumBytes: 1 << 20, caFile: caFile, allowPrivateAddresses: allowPrivateAddresses, json: json) {
                AssetLinks.validate(bytes: $0).1
            }
        }
    }

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Generate assetlinks.json for a package and its signing-key fingerprints.")
        @Option(help: "Android package name.") var package: String
        @Option(help: "SHA-256 fingerprint (repeatable).") var fingerprint: [String]
        @Flag(help: "Also grant get_login_creds (passkeys, passwords).") var loginCredentials = false

        func run() throws {
            let links = AssociationGenerator.assetLinks(packageName: package, fingerprints: fingerprint, loginCredentials: loginCredentials)
            let text = JSONWriter.pretty(links.json)
            let problems = AssetLinks.validate(bytes: Array(text.utf8)).1.filter { $0.severity == .error }
            for p in problems { Output.error(p.description) }
            if !problems.isEmpty { throw ExitCode(2) }
            Output.line(text)
        }
    }
}

struct PlistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "plist", abstract: "Check Info.plist and entitlements for links.", subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "URL schemes, LSApplicationQueriesSchemes, associated domains, and agreement with an AASA.")
        @Option(name: .customLong("info-plist"), help: "Info.plist (XML or binary).") var infoPlist: String
        @Option(help: "The .entitlements file.") var entitlements: String?
        @Option(help: "The domain's AASA file.") var aasa: String?
        @Flag(help: "JSON output.") var json = false

        func run() throws {
            // An Info.plist or entitlements file that cannot be read is unreadable input (status 2,
            // with the reason), not a finding.
            for path in [infoPlist] + (entitlements.map { [$0] } ?? []) { _ = try Output.readFile(path) }
            let association = try aasa.map(AASACommand.load)
            let findings = PlistCheck.check(infoPlist: infoPlist, entitlements: entitlements, aasa: association)
            if FindingOutput.print(findings, json: json, subject: infoPlist) { throw ExitCode(1) }
        }
    }
}
