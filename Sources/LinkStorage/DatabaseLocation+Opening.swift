import Foundation
import SwitchyardCore

extension DatabaseLocation {
    /// The location given as `text` (`--database`), or the default SQLite file when nil.
    public init(argument text: String?) throws(StoreError) {
        self = try text.map { (t: String) throws(StoreError) in try DatabaseLocation(parsing: t) } ?? .defaultSQLite
    }

    /// The location as a person needs to see it: a SQLite file by its absolute path (a command
    /// run from another directory opens another file), PostgreSQL without its password.
    public var shown: String {
        if case .sqlite(let path) = self {
            // Made absolute by hand: standardizing a relative "~/x" would expand the tilde, which
            // SQLite does not (it opens ./~/x).
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            return "sqlite:" + URL(fileURLWithPath: absolute).standardizedFileURL.path
        }
        return description
    }

    /// True for a SQLite file that is not there yet (opening it makes a new database).
    public var isMissingFile: Bool {
        if case .sqlite(let path) = self { return !FileManager.default.fileExists(atPath: path) }
        return false
    }
}

extension LinkStore {
    /// Opens the store at `location` as ``open(_:pool:)`` does. With `existing`, a SQLite file
    /// that is not there is an error that names it: a command that only reads (or removes) makes
    /// no database, so a mistyped path is not a new empty one.
    public static func open(_ location: DatabaseLocation, pool: ConnectionPoolRunner = .store, existing: Bool) async throws(StoreError) -> LinkStore {
        if existing, location.isMissingFile, case .sqlite(let path) = location {
            throw StoreError(.missing, "no database at \(path) (--database sqlite:\(path)); this command reads one and makes none — `switchyard serve` or `switchyard token create` make it")
        }
        return try await open(location, pool: pool)
    }
}
