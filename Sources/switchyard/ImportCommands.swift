import ArgumentParser
import Foundation
import LinkConfiguration
import LinkImport
import LinkService
import LinkStorage
import SwitchyardCore

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import links into the service's database: Switchyard's own CSV, or an export of Firebase Dynamic Links, Shlink, Kutt, YOURLS, Bitly or Short.io.",
        subcommands: [ImportFirebase.self, ImportCSV.self, ImportShlink.self, ImportKutt.self, ImportYOURLS.self, ImportBitly.self, ImportShortio.self]
    )
}

struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export the service's links.",
        subcommands: [ExportCSV.self]
    )
}

/// What both imports share: the file, the configuration the links are checked against, the
/// database, --dry-run and --json, and the report.
struct ImportOptions: ParsableArguments {
    @Argument(help: "The export file (- for stdin).") var file: String
    @Option(help: "The service's configuration: links are checked against its hosts, schemes and apps (default: ./switchyard.yaml if there is one, else the example).") var config: String?
    @Flag(help: "Check and report, store nothing.") var dryRun = false
    @Flag(help: "Print the report as JSON.") var json = false
    @OptionGroup var databaseOption: DatabaseOption

    func configuration() throws -> ServiceConfiguration { try Output.orExit { try ServiceConfiguration.located(config) }.configuration }

    /// Reads the file, maps it with `read` (a file that is not such an export, or not UTF-8
    /// text, exits 2), then stores and reports the plan as ``run(_:source:)`` does. The links
    /// are checked against `loaded`, else the configuration `--config` locates.
    func run(configuration loaded: ServiceConfiguration? = nil, _ read: (LinkImport, String) throws(LinkImport.Failure) -> LinkImport.Plan) async throws {
        let bytes = try Output.readFile(file == "-" ? "/dev/stdin" : file)
        let plan: LinkImport.Plan
        do { plan = try read(LinkImport(configuration: try loaded ?? configuration()), try LinkImport.text(bytes)) } catch let error as LinkImport.Failure {
            Output.error("error: \(file): \(error)".terminalEscaped)
            throw ExitCode(2)
        }
        try await run(plan, source: file)
    }

    /// Stores the plan (unless --dry-run) and prints the report. Exit 0 when every row was
    /// imported, 1 when a row was left out or conflicted.
    func run(_ plan: LinkImport.Plan, source: String) async throws {
        var report = LinkImport.Report(source: source, plan: plan, dryRun: dryRun)
        let missing = (try? DatabaseLocation(argument: databaseOption.database))?.isMissingFile == true
        if !dryRun && !plan.links.isEmpty {
            if missing { report.newDatabase = databaseOption.shown }
            (report.storeKind, report.outcomes) = try await databaseOption.withStore(describe: { "nothing was imported: \($0)" }) {
                (String?.some($0.kind), try await $0.importLinks(plan.links, keeping: plan.keeping, existing: plan.existing))
            }
        } else if dryRun && plan.existing == .keep && !plan.links.isEmpty && !missing {
            // A dry run of links that never overwrite says which codes clash, reading only.
            report.outcomes = try await databaseOption.withStore(existing: true, describe: { "nothing was checked: \($0)" }) {
                try await $0.importOutcomes(plan.links)
            }
        }
        Output.report(json: json, report.json, lines: report.lines)
        if !report.problems.isEmpty { throw ExitCode(1) }
    }
}

struct ImportFirebase: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fdl",
        abstract: "Import a Firebase Dynamic Links export (CSV): each short link keeps its path.",
        discussion: """
            Header: \(LinkImport.firebaseHeaderHelp)

            Each row becomes a link whose code is the short link's path (https://links.example.com/abc → /abc, also \
            /i/abc), checked as the API checks links: link and every fallback on the configuration's hosts or \
            service.redirectHosts, apn and ibi among its apps. Rows that cannot be used are reported with their line \
            and reason and left out; the others are stored in one transaction. Running it again changes nothing \
            (a link imported before is updated to the file's fields; a link of another kind with the same code is \
            never touched). Exit 0 when every row was imported, 1 when a row was left out, 2 when the file cannot be read or the database cannot be written.
            """
    )

    @OptionGroup var options: ImportOptions

    func run() async throws {
        try await options.run { importer, text throws(LinkImport.Failure) in try importer.firebase(text, now: Date()) }
    }
}

struct ImportCSV: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "csv",
        abstract: "Import links written by `switchyard export csv` (codes, clicks and creation times kept).",
        discussion: """
            Header: \(LinkImport.columns.joined(separator: ",")). Every row is checked as POST /api/links checks a link; \
            rows that cannot be used are reported and left out, the others stored in one transaction. A link with the \
            same code and kind is updated to the file's fields; importing the same file again changes nothing. A row's \
            domain (empty, or a file without the column: the first) must be one of the configuration's.
            """
    )

    @OptionGroup var options: ImportOptions

    func run() async throws {
        try await options.run { importer, text throws(LinkImport.Failure) in try importer.ownLinks(text, now: Date()) }
    }
}

/// What the imports of other shorteners share: the format (told from the file unless given) and
/// the domain the links go to.
struct ForeignImportOptions: ParsableArguments {
    @Option(help: "The domain the links go to (a domains list's name; default: the domain that serves the host each link had, else the first).") var domain: String?

    /// Reads `product`'s export (its format told from the file) and imports it.
    func run(_ options: ImportOptions, product: String) async throws {
        let configuration = try options.configuration()
        let index = try domain.map { try ExportCSV.domainIndex(named: $0, in: configuration) }
        try await options.run(configuration: configuration) { importer, text throws(LinkImport.Failure) in
            guard let format = ForeignFormat.detect(product: product, text: text) else {
                throw LinkImport.Failure("not an export this command reads" + (ForeignFormat.reads(product: product).map { ": it reads " + $0 } ?? ""))
            }
            return importer.foreign(try format.read(text), format: format, domain: index, now: Date())
        }
    }
}

/// Text shared by the imports of other shorteners.
private let foreignDiscussion = """
    Each link becomes an imported link served at its old path (https://your-domain/CODE), checked as the API checks a \
    link: its target must be on the configuration's hosts or service.redirectHosts (add the hosts your links point to \
    there first; --dry-run lists what is refused); a target the app's route table routes also opens the app. Title, \
    tags, creation time, clicks, expiry and use limit are kept where the export has them. A code a stored link \
    already has on that domain is reported and left as it is (never overwritten); importing the same file again \
    changes nothing. Exit 0 when every row was imported, 1 when a row was left out or clashed, 2 when the file cannot \
    be read or the database cannot be written. See docs/migrating.md.
    """

struct ImportShlink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shlink",
        abstract: "Import Shlink's short URLs: the web client's CSV export, or the REST API's JSON.",
        discussion: """
            Reads the CSV the Shlink web client exports (createdAt,domain,shortCode,shortUrl,longUrl,title,tags,visits; \
            the earlier client's createdAt,shortUrl,longUrl,title,tags,visits too), or the answer of \
            GET /rest/v3/short-urls?itemsPerPage=-1 (shortCode, longUrl, dateCreated, tags, meta.validUntil, \
            meta.maxVisits, domain, title, visitsSummary.total). JSON is told from CSV by its first character.

            \(foreignDiscussion)
            """
    )
    @OptionGroup var options: ImportOptions
    @OptionGroup var foreign: ForeignImportOptions

    func run() async throws { try await foreign.run(options, product: "shlink") }
}

struct ImportKutt: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kutt",
        abstract: "Import Kutt's links: the answer of its API's GET /api/v2/links.",
        discussion: """
            Reads {"total", "limit", "skip", "data": [...]} (or the data list alone): address (the code), target, \
            description (kept as the title), created_at, expire_in, visit_count, domain. Kutt answers 50 links at a time: \
            import each page's file, or join their data lists. Banned and password-protected links are reported and \
            left out (the export does not carry the password).

            \(foreignDiscussion)
            """
    )
    @OptionGroup var options: ImportOptions
    @OptionGroup var foreign: ForeignImportOptions

    func run() async throws { try await foreign.run(options, product: "kutt") }
}

struct ImportYOURLS: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "yourls",
        abstract: "Import YOURLS's links: a mysqldump of its yourls_url table, or CSV.",
        discussion: """
            Reads a mysqldump of the links table (yourls_url, or another prefix's …url: keyword, url, title, \
            timestamp, clicks; times read as UTC, as mysqldump writes them), or CSV: the Import/Export plugin's \
            source,target,hits, or the table's own columns keyword,url,title,timestamp,ip,clicks. A file starting \
            with SQL (--, /*, CREATE, INSERT, …) is read as a dump. YOURLS has no tags, expiry or use limit.

            \(foreignDiscussion)
            """
    )
    @OptionGroup var options: ImportOptions
    @OptionGroup var foreign: ForeignImportOptions

    func run() async throws { try await foreign.run(options, product: "yourls") }
}

struct ExportCSV: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "csv",
        abstract: "Write every link as CSV (oldest first), for `switchyard import csv`.",
        discussion: "Columns: \(LinkImport.columns.joined(separator: ",")). Times are ISO 8601 UTC; parameters and utm JSON objects; tags separated by spaces; domain the name of the link's domain, empty for the first (every link, with one domain)."
    )

    @Option(name: [.short, .long], help: "File to write (default: stdout).") var output = "-"
    @Option(help: "Only the links of the domain of this name (a domains list's name; needs the configuration that names it).") var domain: String?
    @Option(help: "The service's configuration, for --domain (default: ./switchyard.yaml if there is one, else the example).") var config: String?
    @OptionGroup var databaseOption: DatabaseOption

    func run() async throws {
        var only: [String?]?
        if let domain {
            let configuration = try Output.orExit { try ServiceConfiguration.located(config) }.configuration
            only = [try Self.domainIndex(named: domain, in: configuration) == 0 ? nil : domain]
        }
        let (text, count, protected) = try await databaseOption.withStore(existing: true) { try await LinkImport.export(from: $0, domains: only) }
        // A password is kept only as a hash, which no export carries: said, so a copy made with
        // `import csv` is not thought protected.
        let passwords = protected == 0 ? "" : "; \(protected) of them protected: their passwords are not exported, so links imported from this file are open to everyone until each is given one again (PATCH \"password\")"
        try Output.writeFile(output, Array(text.utf8), note: "wrote \(output): \(count) link\(count == 1 ? "" : "s")\(passwords)")
    }

    /// The index of the domain `--domain` names in `configuration`; exit 2 naming the domains
    /// there are when none is named so (`export csv` and the imports of other shorteners).
    static func domainIndex(named name: String, in configuration: ServiceConfiguration) throws -> Int {
        let names = configuration.servedDomains.map(\.domainName)
        guard let index = names.firstIndex(of: name) else {
            Output.error("error: --domain \(name.debugDescription): no domain of the configuration is named so (domains: \(names.joined(separator: ", ")))")
            throw ExitCode(2)
        }
        return index
    }
}

struct ImportBitly: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bitly",
        abstract: "Import Bitly's links: the answer of its API's GET /v4/groups/{group_guid}/bitlinks.",
        discussion: """
            Reads {"links": [...], "pagination": {...}} (or the links list alone), as Bitly's API answers \
            GET https://api-ssl.bitly.com/v4/groups/GROUP/bitlinks?size=100&archived=both: id (domain/back-half: the code, \
            and the host it had), long_url, title, tags, created_at, expiration_at, and custom_bitlinks (the other \
            back-halves of a Bitlink, each imported as a link of its own to the same target). Deleted Bitlinks are \
            reported and left out. The list carries no click counts, so the links start at 0. Bitly answers 100 at a \
            time: import each page's file (following pagination.next), or join their links lists. Bitly's CSV export is \
            not read: its columns are documented nowhere we could check.

            \(foreignDiscussion)
            """
    )
    @OptionGroup var options: ImportOptions
    @OptionGroup var foreign: ForeignImportOptions

    func run() async throws { try await foreign.run(options, product: "bitly") }
}

struct ImportShortio: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shortio",
        abstract: "Import Short.io's links: the answer of its API's GET /api/links?domain_id=….",
        discussion: """
            Reads {"count", "links": [...], "nextPageToken"} (or the links list alone), as Short.io's API answers \
            GET https://api.short.io/api/links?domain_id=ID&limit=150: path (the code; the domain's root link is left \
            out), originalURL, title, tags, createdAt and expiresAt (ISO 8601 or milliseconds), clicksLimit (kept as \
            the use limit), and the host of shortURL. Links with a password are reported and left out (the export does \
            not carry it). The list carries no click counts, so the links start at 0. Import each page's file \
            (following nextPageToken). Short.io's CSV export is not read: its columns are documented nowhere we could check.

            \(foreignDiscussion)
            """
    )
    @OptionGroup var options: ImportOptions
    @OptionGroup var foreign: ForeignImportOptions

    func run() async throws { try await foreign.run(options, product: "shortio") }
}
