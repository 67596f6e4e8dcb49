import LinkRequests
import LinkStorage
import SwitchyardCore

extension LinkImport {
    /// What an import did with a file: a plan, and what the store made of its links (nothing
    /// for a dry run). `switchyard import` prints it.
    package struct Report: Sendable {
        /// The file, as the person named it.
        package var source: String
        /// The plan the file gave.
        package var plan: Plan
        /// Whether nothing was stored on purpose.
        package var dryRun: Bool
        /// Each planned link's outcome, in the plan's order (empty for a dry run).
        package var outcomes: [LinkStore.ImportOutcome]
        /// The database kind the links went to (`sqlite`, `postgres`), or nil when none was written.
        package var storeKind: String?
        /// The database the links went to when it was made by this import (a SQLite file that
        /// was not there): said, so a mistyped --database path is seen at once.
        package var newDatabase: String?

        /// Makes the report of storing `plan` with `outcomes`.
        package init(source: String, plan: Plan, dryRun: Bool, outcomes: [LinkStore.ImportOutcome] = [], storeKind: String? = nil) {
            self.source = source
            self.plan = plan
            self.dryRun = dryRun
            self.outcomes = outcomes
            self.storeKind = storeKind
        }

        private func count(_ outcome: LinkStore.ImportOutcome) -> Int { outcomes.filter { $0 == outcome }.count }

        /// Rows left out, in line order: the plan's problems and the links whose code belongs
        /// to a link of another kind.
        package var problems: [Problem] {
            let conflicts = zip(plan.links, zip(plan.lines, outcomes)).filter { $0.1.1 == .conflict }.map { link, place in
                let code = LinkKey.code(of: link.code), on = LinkKey.domain(of: link.code).map { " on \($0)" } ?? ""
                return Problem(line: place.0, message: plan.existing == .keep
                    ? "code \(code)\(on) is taken by a stored link that differs; not imported (nothing stored is overwritten)"
                    : "code \(code)\(on) belongs to a link of another kind in the database; not imported")
            }
            return (plan.problems + conflicts).sorted { $0.line < $1.line }
        }

        /// The report as one JSON object (`--json`).
        package var json: JSONValue {
            var members: [(String, JSONValue)] = [("file", .string(source)), ("rows", .int(plan.rows)), ("dryRun", .bool(dryRun))]
            if dryRun {
                members.append(("valid", .int(plan.links.count - count(.conflict))))
                // A dry run that read the database (links that never overwrite) says what each would be.
                if !outcomes.isEmpty { members += [("created", .int(count(.created))), ("unchanged", .int(count(.unchanged)))] }
            } else {
                members += [("created", .int(count(.created))), ("updated", .int(count(.updated))), ("unchanged", .int(count(.unchanged)))]
            }
            members.append(("problems", .array(problems.map { .object([(plan.linesAreItems ? "item" : "line", .int($0.line)), ("message", .string($0.message))]) })))
            members.append(("ignoredColumns", .array(plan.ignoredColumns.map(JSONValue.string))))
            members.append(("notes", .array(plan.notes.map(JSONValue.string))))
            if !dryRun { members.append(("newDatabase", newDatabase.map(JSONValue.string) ?? .null)) }
            return .object(members)
        }

        /// The report in words: each row left out with its line, the columns ignored, notes, and
        /// a summary. The file's name and values are quoted as they are: escape the lines before
        /// they reach a terminal.
        package var lines: [String] {
            var lines = problems.map { plan.linesAreItems ? "\(source): item \($0.line): \($0.message)" : "\(source):\($0.line): \($0.message)" }
            if !plan.ignoredColumns.isEmpty { lines.append("ignored columns: \(plan.ignoredColumns.joined(separator: ", "))") }
            lines += plan.notes.map { "note: \($0)" }
            if dryRun && !outcomes.isEmpty {
                lines.append("\(plan.rows) row\(plan.rows == 1 ? "" : "s"): \(count(.created)) would be created, \(count(.unchanged)) unchanged, \(problems.count) left out (dry run: nothing stored)")
            } else if dryRun {
                lines.append("\(plan.rows) row\(plan.rows == 1 ? "" : "s"): \(plan.links.count) would be imported, \(problems.count) left out (dry run: nothing stored)")
            } else {
                lines.append("\(plan.rows) row\(plan.rows == 1 ? "" : "s"): \(count(.created)) created, \(count(.updated)) updated, \(count(.unchanged)) unchanged, "
                    + "\(problems.count) left out\(plan.links.isEmpty ? "" : " (\(storeKind ?? "none"), one transaction)")"
                    + (newDatabase.map { "; a new database: \($0)" } ?? ""))
            }
            return lines
        }
    }
}
