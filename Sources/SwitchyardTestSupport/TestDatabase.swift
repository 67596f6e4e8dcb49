import Foundation
import LinkStorage
import Testing

/// Where the storage tests run: always SQLite; PostgreSQL when SWITCHYARD_TEST_POSTGRES names a
/// server (`.ci/run` starts one). With SWITCHYARD_REQUIRE_TOOLS set, a missing server fails.
public enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// An embedded SQLite file in a temporary directory.
    case sqlite
    /// A database of its own on the PostgreSQL server SWITCHYARD_TEST_POSTGRES names.
    case postgres

    /// The back end's name in test output.
    public var testDescription: String { rawValue }

    /// The PostgreSQL server the tests use (`SWITCHYARD_TEST_POSTGRES`, which `.ci/run` sets), or nil.
    public static var postgresURL: String? { ProcessInfo.processInfo.environment["SWITCHYARD_TEST_POSTGRES"] }
    /// Whether a missing server or tool fails the tests instead of skipping them (`SWITCHYARD_REQUIRE_TOOLS`, set in CI).
    public static var toolsRequired: Bool { ProcessInfo.processInfo.environment["SWITCHYARD_REQUIRE_TOOLS"] != nil }

    /// The back ends to run: PostgreSQL only when a server is configured or required.
    public static var available: [Backend] { postgresURL != nil || toolsRequired ? [.sqlite, .postgres] : [.sqlite] }

    /// A new, empty database of this kind, migrated.
    public func freshStore() async throws -> LinkStore {
        try await LinkStore.open(try await freshLocation())
    }

    /// Where a new, empty database of this kind is (opening it migrates it); open it twice for
    /// two nodes sharing one database.
    public func freshLocation() async throws -> DatabaseLocation {
        switch self {
        case .sqlite:
            return .sqlite(path: Self.temporaryPath("store") + "/links.sqlite")
        case .postgres:
            let url = try #require(Self.postgresURL, "SWITCHYARD_TEST_POSTGRES is not set: run `bash .ci/run`, which starts a PostgreSQL for the tests")
            guard case .postgres(let host, let port, let user, let password, _, let tls) = try DatabaseLocation(parsing: url) else {
                Issue.record("SWITCHYARD_TEST_POSTGRES is not a postgres:// URL"); throw CancellationError()
            }
            // One database per test, so tests run in parallel without seeing each other.
            let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let admin = try await PostgresStore.open(host: host, port: port, user: user, password: password, database: "postgres", tls: tls)
            _ = try await admin.run("CREATE DATABASE \(name)", [])
            await admin.close()
            return .postgres(host: host, port: port, user: user, password: password, database: name, tls: tls)
        }
    }

    /// A new, empty directory under the temporary directory, named after `tag`.
    public static func temporaryPath(_ tag: String) -> String {
        let path = TestTemporary.root.appendingPathComponent("switchyard-\(tag)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
