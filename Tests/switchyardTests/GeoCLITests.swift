import Foundation
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// `switchyard geo lookup` through the built binary, on a database the test writes.
@Suite struct GeoCLITests {
    static var writerInstalled: Bool { MMDBWriter.installed }
    static var required: Bool { ProcessInfo.processInfo.environment["SWITCHYARD_REQUIRE_TOOLS"] != nil }

    static func database() async throws -> String {
        let path = TestTemporary.root.appendingPathComponent("geo-cli-\(UUID().uuidString).mmdb").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../SwitchyardGeoTests/Inputs/write-mmdb.pl").standardized.path
        let spec = #"{"ip_version": 6, "networks": [{"network": "81.2.69.160/27", "data": {"continent": {"code": "EU"}, "country": {"iso_code": "GB"}, "subdivisions": [{"iso_code": "ENG"}], "city": {"names": {"en": "London"}}}}]}"#
        let run = try await CLITests.run(["/usr/bin/perl", script, path], stdin: spec, shell: true)
        try #require(run.status == 0, "\(run.stderr)")
        return path
    }

    @Test(.enabled(if: writerInstalled || required, "libmaxmind-db-writer-perl is not installed (bash .ci/run --setup installs it)"))
    func oneObjectPerAddressWithNullsWhereTheFileHasNone() async throws {
        let db = try await Self.database()
        let run = try await CLITests.run(["geo", "lookup", "--database", db, "--json", "81.2.69.170", "192.0.2.1"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == #"""
            {"address":"81.2.69.170","network":"81.2.69.160/27","continent":"EU","country":"GB","subdivisions":["ENG"],"city":"London"}
            {"address":"192.0.2.1","network":null,"continent":null,"country":null,"subdivisions":[],"city":null}

            """#, "\(run.stdout)")
        // From stdin, in words; an input that is no address is said, and the status is 1.
        let words = try await CLITests.run(["geo", "lookup", "--database", db], stdin: "81.2.69.170\nexample.com\n")
        #expect(words.status == 1 && words.stdout == "81.2.69.170  81.2.69.160/27  EU GB ENG London\n", "\(words.stdout)")
        #expect(words.stderr.contains("'example.com' is not an IPv4 or IPv6 address"), "\(words.stderr)")
    }

    @Test func aDatabaseThatCannotBeUsedIsExitTwoWithThePath() async throws {
        let missing = try await CLITests.run(["geo", "lookup", "--database", "/nonexistent/city.mmdb", "81.2.69.170"])
        #expect(missing.status == 2 && missing.stderr == "error: /nonexistent/city.mmdb: no such file\n" && missing.stdout.isEmpty, "\(missing.stderr)")
        let junk = TestTemporary.root.appendingPathComponent("junk-\(UUID().uuidString).mmdb")
        try Data("not a database\n".utf8).write(to: junk)
        defer { try? FileManager.default.removeItem(at: junk) }
        let bad = try await CLITests.run(["geo", "lookup", "--database", junk.path, "81.2.69.170"])
        #expect(bad.status == 2 && bad.stderr.hasPrefix("error: \(junk.path): not a usable MaxMind database"), "\(bad.stderr)")
    }
}
