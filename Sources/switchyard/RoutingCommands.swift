import ArgumentParser
import AssociatedDomains
import LinkRouting
import SwitchyardCore

func loadRouter(_ path: String) throws -> LinkRouter { try Output.orExit { try LinkRouter(contentsOf: path) } }

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

    func run() throws {
        let router = try loadRouter(routes)
        let inputs = Output.inputs(urls, maximumLineBytes: lineLimit.maxLineBytes, placeholders: true)
        // An input that is no URL (or an over-long line) still gets its line.
        let failed = inputs.answerEach(refused: { url, problem in
            [json ? JSONWriter.compact(InputLines.refusal(url, problem, key: "url", members: [("route", .null)])) : "\(InputLines.shown(url)) → error: \(problem.message)"]
        }, answer: { url in
            let answer = router.answer(url)
            // Parameters are percent-decoded (%1B, %0A): escaped for the terminal.
            return (json ? [JSONWriter.compact(answer.json)] : answer.lines.map(\.terminalEscaped), !answer.matched)
        }, write: Output.write)
        try inputs.finish()
        if failed > 0 || inputs.skipped > 0 { throw ExitCode(1) }
    }
}

struct RoutesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "routes", abstract: "Check a route table against association files.", subcommands: [Check.self, Platforms.self])

    struct Platforms: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What the router, iOS and Android 15 do with each URL, side by side; exit 1 where they disagree.",
            discussion: """
                The files are generated from the route table (as `aasa generate` and `assetlinks generate --routes` \
                make them) unless --aasa/--assetlinks name served copies. The URLs are the arguments, or, for every \
                route, an example and its near misses (trailing slash, bare prefix, extra segment, upper case, a \
                wrong type, a missing query item, a query item no route reads, another host). A line is `same` when \
                both platforms open the app exactly for the URLs a route (not excluded) takes; `wider` when both open \
                a URL the router refuses only for a parameter's type (no pattern can say "digits" or "a UUID"); \
                `DIFFER` otherwise (Android's `manifest` counts as opening).
                """)
        @Option(help: "Route table (JSON or YAML).") var routes: String
        @Option(help: "A served AASA to use instead of the generated one.") var aasa: String?
        @Option(name: .customLong("app-id"), help: "TEAMID.bundle.id in the AASA (default: its first app, or a placeholder for the generated one).") var appID: String?
        @Option(help: "A served assetlinks.json to use instead of the generated one.") var assetlinks: String?
        @Option(help: "The Android package in assetlinks.json (default: its first app, or a placeholder for the generated one).") var package: String?
        @Flag(help: "One JSON object per URL.") var json = false
        @Argument(help: "URLs to decide (default: examples built from every route).") var urls: [String] = []

        func run() throws {
            let (served, links) = (try aasa.map(AASACommand.load), try assetlinks.map(AssetLinksCommand.load))
            if let problem = PlatformComparison.appProblem(aasa: served, appID: appID, assetLinks: links, package: package) { try Output.orExit { throw ValidationError(problem) } }
            // Text that is no URL is said in its place (stderr, or an error object with --json); the others are still decided.
            let router = try loadRouter(routes)
            // A file iOS would ignore decides nothing there: said, not compared.
            if served == nil, case let size = JSONWriter.pretty(AssociationGenerator.appSiteAssociation(router: router, appIDs: [appID ?? "ABCDE12345.example.app"])).utf8.count + 1,
               size > AppSiteAssociation.maximumBytes {
                Output.error("error: the AASA made from \(routes) would be \(size) bytes; iOS ignores files over \(AppSiteAssociation.maximumBytes) bytes (128 KB), so no URL would open the app on iOS")
                throw ExitCode(2)
            }
            // Without URLs, the table's near misses: made once, here.
            let asked = urls.isEmpty ? RouteCoverage.probeURLs(router) : urls
            if urls.isEmpty, asked.count >= RouteCoverage.maximumProbes {
                Output.error("note: this table has more near misses than the \(RouteCoverage.maximumProbes) asked about; routes past those are not asked (give URLs to ask about them)")
            }
            let answers = PlatformComparison.answers(urls: asked, router: router, aasa: served, appID: appID, assetLinks: links, package: package)
            for answer in answers {
                if case .refused = answer, !json { Output.error(answer.line) } else { Output.line(json ? JSONWriter.compact(answer.json) : answer.line) }
            }
            let summary = PlatformComparison.summary(answers)
            if !json { Output.error(summary.line) }
            if summary.failed { throw ExitCode(1) }
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every universal-link route is covered by the AASA for the app, and every URL the AASA hands the app has a route.")
        @Option(help: "Route table (JSON or YAML).") var routes: String
        @Option(help: "The AASA file.") var aasa: String
        @Option(name: .customLong("app-id"), help: "TEAMID.bundle.id (default: every app ID in the AASA).") var appID: [String] = []
        @Flag(help: "JSON output.") var json = false

        func run() throws {
            let findings = RouteCoverage.check(router: try loadRouter(routes), aasa: try AASACommand.load(aasa), appIDs: appID)
            if FindingOutput.print(findings, json: json, subject: "\(routes) ↔ \(aasa)") { throw ExitCode(1) }
        }
    }
}

struct AssetLinksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "assetlinks", abstract: "Validate, explain, decide and generate Android assetlinks.json (with Android 15 dynamic rules).",
                                                    subcommands: [Validate.self, Decide.self, Explain.self, Generate.self])

    /// Reads an assetlinks.json or exits with its findings (status 2).
    static func load(_ path: String) throws -> AssetLinks { try FindingOutput.load(path, maximumBytes: AssetLinks.maximumBytes, AssetLinks.validate(bytes:)) }

    struct Decide: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decide many cases as Android 15 does: one JSON object per stdin line, one result line per case.",
            discussion: """
                Input lines: {"id": …, "assetlinks": [ …statements… ], "domain": "example.com", "package": "com.example.app", "url": "https://…"} \
                ("assetlinks" may be the file's text; "domain", the host the file is served from, is optional: a URL on another \
                host is not_associated). Output lines: {"id": …, "decision": D} with D one of match (a dynamic \
                rule lets it open the app), exclude (an exclude rule matched), no_match (rules exist, none matched: it stays \
                in the browser), manifest (no usable dynamic rules: the app's intent filters decide), not_associated (no \
                handle_all_urls statement for that package, or a URL on another host than "domain"); or {"id": …, "error": {"code", "message"}} for a broken case, \
                and the run goes on (exit status 1 at the end).
                """)
        @Flag(help: "Read JSON Lines from stdin (the only mode).") var jsonl = false

        func run() throws {
            var cases = AndroidDecisionCases()
            try DecisionLines.answer(maximumLineBytes: AssetLinks.maximumBytes + (64 << 10)) { cases.answer($0) }
        }
    }

    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Explain which dynamic rule decides a URL for an app on Android 15.")
        @Argument(help: "The assetlinks.json file.") var file: String
        @Argument(help: "The URL.") var url: String
        @Option(help: "The app's package name.") var package: String
        @Option(help: "The host the file is served from; a URL on another host is not_associated (default: the URL's own host).") var domain: String?
        @Flag(help: "JSON output.") var json = false

        func run() throws {
            let links = try AssetLinksCommand.load(file)
            try Output.refuseNonURLs([url])
            // A file's patterns times the URL's length bound the work; past it, status 1 and why.
            if let problem = links.workProblem(url) {
                // With --json the answer is still one JSON object: the error, as decide gives it.
                if json { Output.line(JSONWriter.compact(.object([("error", .object([("code", .string(ErrorCode.tooMuchWork.name)), ("message", .string(problem))]))]))) }
                Output.error("error: \(problem)")
                throw ExitCode(1)
            }
            let e = links.explain(url, package: package, domain: domain)
            Output.report(json: json, e.json, lines: e.lines(url: url, package: package))
            // An http(s) URL without a host is invalid input (status 1), as for `aasa explain`.
            if e.isInvalidURL { throw ExitCode(1) }
        }
    }

    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Validate a file or https://DOMAIN's /.well-known/assetlinks.json; exit 1 on errors.")
        @Argument(help: "A file or an https URL.") var source: String
        @Flag(help: "JSON output.") var json = false
        @Option(help: "A PEM certificate authority to trust when fetching.") var caFile: String?
        @Flag(help: "Fetch from loopback, private and link-local addresses too (a test server); refused by default.") var allowPrivateAddresses = false

        func run() async throws {
            try await SourceValidation.run(source, wellKnownFile: "assetlinks.json", maximumBytes: AssetLinks.maximumBytes, caFile: caFile, allowPrivateAddresses: allowPrivateAddresses, json: json) {
                AssetLinks.validate(bytes: $0).1
            }
        }
    }

    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Generate assetlinks.json for a package and its signing-key fingerprints.")
        @Option(help: "Android package name.") var package: String
        @Option(help: "SHA-256 fingerprint (repeatable).") var fingerprint: [String]
        @Flag(help: "Also grant get_login_creds (passkeys, passwords).") var loginCredentials = false
        @Option(help: "Route table (JSON or YAML): add Android 15 dynamic rules equal to the AASA components `aasa generate` makes from it.")
        var routes: String?
        @Option(name: .shortAndLong, help: "Output file (default: stdout).") var output: String?

        func run() throws {
            let router = try routes.map(loadRouter)
            if let router, let routes { try AssociationCommands.refuseUnexpressible(router, routes) }
            // Where the two platforms cannot agree, said once on stderr; the file is still written.
            for note in router.map(AssociationGenerator.platformDifferences) ?? [] { Output.error("note: \(note.path): \(note.message)") }
            let (text, errors) = AssociationGenerator.assetLinksFile(packageName: package, fingerprints: fingerprint, loginCredentials: loginCredentials, router: router)
            for e in errors { Output.error(e.description) }
            if !errors.isEmpty { throw ExitCode(2) }
            try Output.writeFile(output ?? "-", Array((text + "\n").utf8))
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
            for path in [infoPlist] + (entitlements.map { [$0] } ?? []) { _ = try Output.readFile(path, maximumBytes: PlistCheck.maximumBytes) }
            let association = try aasa.map(AASACommand.load)
            let findings = PlistCheck.check(infoPlist: infoPlist, entitlements: entitlements, aasa: association)
            if FindingOutput.print(findings, json: json, subject: infoPlist) { throw ExitCode(1) }
        }
    }
}
