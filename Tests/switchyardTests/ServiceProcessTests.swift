import Foundation
import Testing

/// Drives the built binary as an operator would: tokens from the CLI, and the SIGKILL
/// durability script against SQLite and (when available) PostgreSQL.
@Suite struct ServiceProcessTests {
    static var postgresURL: String? { ProcessInfo.processInfo.environment["SWITCHYARD_TEST_POSTGRES"] }
    static var toolsRequired: Bool { ProcessInfo.processInfo.environment["SWITCHYARD_REQUIRE_TOOLS"] != nil }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func tokenCreatePrintsTheTokenAloneOnTheLastLineAndStoresOnlyItsHash() throws {
        let db = "sqlite:" + (try Self.temporaryDirectory()).appendingPathComponent("t.sqlite").path
        let created = try CLITests.run(["token", "create", "--name", "deploy", "--scope", "links:write", "--database", db])
        #expect(created.status == 0)
        let token = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        #expect(token.hasPrefix("sy_") && token.count == 3 + 12 + 1 + 43)
        #expect(created.stderr.contains("shown once"))
        let file = try Data(contentsOf: URL(fileURLWithPath: String(db.dropFirst("sqlite:".count))))
        let secret = String(token.split(separator: "_", maxSplits: 2)[2])
        #expect(file.range(of: Data(secret.utf8)) == nil, "the secret must not be stored")
        let list = try CLITests.run(["token", "list", "--json", "--database", db])
        #expect(list.stdout.contains(#""name":"deploy","scopes":"links:write""#))
        #expect(!list.stdout.contains(secret))
        #expect(try CLITests.run(["token", "revoke", "deploy", "--database", db]).stdout == "revoked 1 token\n")
        let again = try CLITests.run(["token", "revoke", "deploy", "--database", db])
        #expect(again.status == 1)
        #expect(again.stderr.contains("no active token"))
        let badScope = try CLITests.run(["token", "create", "--name", "x", "--scope", "root", "--database", db])
        #expect(badScope.status != 0)
        #expect(badScope.stderr.contains("unknown scope 'root'"))
        let badDB = try CLITests.run(["token", "create", "--name", "x", "--database", "mysql://x"])
        #expect(badDB.status == 2)
        #expect(badDB.stderr.contains("expected sqlite:PATH or postgres://"))
    }

    static var databases: [String] { postgresURL != nil || toolsRequired ? ["sqlite", "postgres"] : ["sqlite"] }

    @Test(arguments: databases)
    func sigkillDuringCreatesLosesNoAcknowledgedLink(_ kind: String) async throws {
        var arguments = [CLITests.root.appendingPathComponent("Scripts/durability.py").path, "--binary", CLITests.binary.path, "--rounds", "2"]
        if kind == "postgres" {
            arguments += ["--database", try #require(Self.postgresURL, "SWITCHYARD_TEST_POSTGRES is not set; run bash .ci/run")]
        }
        let command = arguments
        let (summary, status) = try await CLITests.blocking { () throws -> (String, Int32) in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3"] + command
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (String(decoding: data, as: UTF8.self), process.terminationStatus)
        }
        #expect(status == 0, "\(summary)")
        #expect(summary.contains(#""missing": 0, "wrong": 0"#), "\(summary)")
        #expect(!summary.contains(#""acknowledged": 0,"#))
    }
}
