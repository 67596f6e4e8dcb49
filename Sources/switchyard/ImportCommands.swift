import ArgumentParser
import Foundation
import LinkConfiguration
import LinkService
import LinkStorage
import SwitchyardCore

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import links into the service's database: a Firebase Dynamic Links export, or Switchyard's own CSV.",
        subcommands: [ImportFirebase.self, ImportCSV.self]
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
    @Argument(help: "The CSV file (- for stdin).") var file: String
    @Option(help: "The service's configuration: links are checked against its hosts, schemes and apps (default: ./switchyard.yaml if there is one, else the example).") var config: String?
    @Flag(help: "Check and report, store nothing.") var dryRun = false
    @Flag(help: "Print the report as JSON.") var json = false
    @OptionGroup var databaseOption: DatabaseOption

    func configuration() throws -> ServiceConfiguration { try ServiceConfiguration.forCommandLine(config).configuration }

    func text() throws -> String {
        let bytes = try Output.readFile(file == "-" ? "/dev/stdin" : file)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            Output.error(Output.escaped("error: cannot read '\(file)': not UTF-8 text"))
            throw ExitCode(2)
        }
        return text
    }

    /// Reads the file, maps it with `read` (a file that is not such an export exits 2), then
    /// stores and reports the plan as ``run(_:source:)`` does.
    func run(_ read: (LinkImport, String) throws(LinkImport.Failure) -> LinkImport.Plan) async throws {
        let plan: LinkImport.Plan
        do { plan = try read(LinkImport(configuration: try configuration()), try text()) } catch let error as LinkImport.Failure {
            Output.error(Output.escaped("error: \(file): \(error)"))
            throw ExitCode(2)
        }
        try await run(plan, source: file)
    }

    /// Stores the plan (unless --dry-run) and prints the report. Exit 0 when every row was
    /// imported, 1 when a row was left out or conflicted.
    func run(_ plan: LinkImport.Plan, source: String) async throws {
        var outcomes: [LinkStore.ImportOutcome] = []
        var kind = "none"
        if !dryRun && !plan.links.isEmpty {
            let store = try await databaseOption.open()
            kind = store.kind
            do { outcomes = try await store.importLinks(plan.links) } catch {
                await store.close()
                Output.error(Output.escaped("error: nothing was imported: \(error)"))
                throw ExitCode(1)
            }
            await store.close()
        }
        func count(_ o: LinkStore.ImportOutcome) -> Int { outcomes.filter { $0 == o }.count }
        let conflicts = zip(plan.links, zip(plan.lines, outcomes)).filter { $0.1.1 == .conflict }
            .map { LinkImport.Problem(line: $0.1.0, message: "code \($0.0.code) belongs to a link of another kind in the database; not imported") }
        let problems = (plan.problems + conflicts).sorted { $0.line < $1.line }
        if json {
            var members: [(String, JSONValue)] = [("file", .string(source)), ("rows", .int(plan.rows)), ("dryRun", .bool(dryRun))]
            if dryRun {
                members.append(("valid", .int(plan.links.count)))
            } else {
                members += [("created", .int(count(.created))), ("updated", .int(count(.updated))), ("unchanged", .int(count(.unchanged)))]
            }
            members.append(("problems", .array(problems.map { .object([("line", .int($0.line)), ("message", .string($0.message))]) })))
            members.append(("ignoredColumns", .array(plan.ignoredColumns.map(JSONValue.string))))
            members.append(("notes", .array(plan.notes.map(JSONValue.string))))
            Output.line(JSONWriter.compact(.object(members)))
        } else {
            // The file's name, its columns and its values are the sender's text: escaped.
            for p in problems { Output.line(Output.escaped("\(source):\(p.line): \(p.message)")) }
            if !plan.ignoredColumns.isEmpty { Output.line(Output.escaped("ignored columns: \(plan.ignoredColumns.joined(separator: ", "))")) }
            for note in plan.notes { Output.line(Output.escaped("note: \(note)")) }
            if dryRun {
                Output.line("\(plan.rows) rows: \(plan.links.count) would be imported, \(plan.problems.count) left out (dry run: nothing stored)")
            } else {
                Output.line("\(plan.rows) rows: \(count(.created)) created, \(count(.updated)) updated, \(count(.unchanged)) unchanged, "
                    + "\(problems.count) left out\(plan.links.isEmpty ? "" : " (\(kind), one transaction)")")
            }
        }
        if !problems.isEmpty { throw ExitCode(1) }
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
            never touched). Exit 0 when every row was imported, 1 when a row was left out, 2 when the file cannot be read.
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
            same code and kind is updated to the file's fields; importing the same file again changes nothing.
            """
    )

    @OptionGroup var options: ImportOptions

    func run() async throws {
        try await options.run { importer, text throws(LinkImport.Failure) in try importer.ownLinks(text, now: Date()) }
    }
}

struct ExportCSV: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "csv",
        abstract: "Write every link as CSV (oldest first), for `switchyard import csv`.",
        discussion: "Columns: \(LinkImport.columns.joined(separator: ",")). Times are ISO 8601 UTC; parameters a JSON object."
    )

    @Option(name: [.short, .long], help: "File to write (default: stdout).") var output = "-"
    @OptionGroup var databaseOption: DatabaseOption

    func run() async throws {
        let store = try await databaseOption.open(existing: true)
        let text: String, count: Int
        do { (text, count) = try await LinkImport.export(from: store) } catch {
            await store.close()
            Output.error(Output.escaped("error: \(error)"))
            throw ExitCode(1)
        }
        await store.close()
        if output == "-" {
            Output.standardOutput(Data(text.utf8))
        } else {
            try Output.writeFile(output, Array(text.utf8))
            Output.error(Output.escaped("wrote \(output): \(count) link\(count == 1 ? "" : "s")"))
        }
    }
}
