import ArgumentParser
import Foundation
import SwitchyardCore
import SwitchyardGeo

struct GeoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "geo",
        abstract: "Check a MaxMind-format (.mmdb) geo database: where addresses are.",
        subcommands: [GeoLookupCommand.self]
    )
}

struct GeoLookupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "The network, continent, country, subdivisions and city a database gives each address.",
        discussion: """
            Reads the addresses from the arguments, or one per line from stdin. Works with any MaxMind-format \
            file with country or city data (DB-IP's free Lite databases, GeoLite2, a commercial file); nothing is \
            resolved or fetched. With --json, one object per address: {"address", "network", "continent", \
            "country", "subdivisions", "city"}, null (or []) where the file has none. Exit status: 0; 1 when an \
            input is no IPv4 or IPv6 address (said on stderr; with --json its line has "error"); 2 when the \
            database cannot be opened, is not a MaxMind database, or is damaged.
            """
    )

    @Option(help: "The .mmdb file.") var database: String
    @Flag(help: "One JSON object per address.") var json = false
    @Argument(help: "IPv4 or IPv6 addresses.") var addresses: [String] = []

    func run() throws {
        let geo: GeoDatabase
        do { geo = try GeoDatabase(path: database) } catch {
            Output.error("error: \(error.message)")
            throw ExitCode(2)
        }
        let inputs = Output.inputs(addresses, maximumLineBytes: 1024)
        var failed = false
        var lines: [String] = []
        for address in inputs {
            do {
                let place = try geo.lookup(address)
                lines.append(json ? JSONWriter.compact(Self.json(place)) : Self.text(place).terminalEscaped)
            } catch {
                failed = true
                if error.code == .invalidDatabase { Output.write(lines); Output.error("error: \(database): \(error.message)"); throw ExitCode(2) }
                Output.error("error: \(error.message)")
                if json { lines.append(JSONWriter.compact(.object([("address", .string(address)), ("error", .object([("code", .string(error.code.name)), ("message", .string(error.message))]))]))) }
            }
        }
        Output.write(lines)
        try inputs.finish()
        if failed || inputs.skipped > 0 { throw ExitCode(1) }
    }

    static func json(_ p: GeoDatabase.Place) -> JSONValue {
        func text(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
        return .object([
            ("address", .string(p.address)), ("network", text(p.network)), ("continent", text(p.continent)), ("country", text(p.country)),
            ("subdivisions", .array(p.subdivisions.map(JSONValue.string))), ("city", text(p.city)),
        ])
    }

    /// `81.2.69.160  81.2.69.160/27  EU GB ENG London`, or `… not in the database`.
    static func text(_ p: GeoDatabase.Place) -> String {
        guard let network = p.network else { return "\(p.address)  not in the database" }
        let place = ([p.continent, p.country] + p.subdivisions.map(Optional.some) + [p.city]).compactMap { $0 }.joined(separator: " ")
        return "\(p.address)  \(network)  \(place.isEmpty ? "(no place in this record)" : place)"
    }
}
