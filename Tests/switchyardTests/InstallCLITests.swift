import Foundation
import SwitchyardTestSupport
import Testing

/// The binary as an operator installs it: copied somewhere else with its three resource
/// directories beside it (docs/operator-guide.md, "Installing"), reached through a symbolic
/// link on the PATH. Without them it says what is missing and where it looked.
@Suite(.serialized) struct InstallCLITests {
    static let bundles = ["Switchyard_LinkRules.resources", "Switchyard_LinkService.resources", "Switchyard_LinkPages.resources"]

    /// A copy of the binary under test in a directory of its own, and that directory.
    static func installedCopy() throws -> (binary: String, directory: URL) {
        let directory = TestTemporary.root.appendingPathComponent("install-\(UUID().uuidString)/opt/bin")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let binary = directory.appendingPathComponent("switchyard").path
        try FileManager.default.copyItem(atPath: CLITests.binary.path, toPath: binary)
        return (binary, directory)
    }

    @Test func aCopyWithoutItsResourcesSaysWhatIsMissingAndWhere() async throws {
        let (binary, directory) = try Self.installedCopy()
        let resolve = try await CLITests.run([binary, "resolve", "https://twitter.com/jack/status/20"], shell: true)
        #expect(resolve.status == 2)
        #expect(resolve.stderr == "error: default rules: the default rule set: \(directory.path)/Switchyard_LinkRules.resources/default-rules.json is missing: an installed switchyard needs the Switchyard_*.resources directories of its build beside the binary (see \"Installing\" in docs/operator-guide.md)\n", "\(resolve.stderr)")
        let serve = try await CLITests.run([binary, "serve", "--port", "0"], shell: true)
        #expect(serve.status == 2)
        #expect(serve.stderr.hasPrefix("error: \(directory.path)/Switchyard_LinkService.resources/example-config.yaml is missing: "), "\(serve.stderr)")
    }

    @Test func aCopyWithItsResourcesWorksThroughASymbolicLink() async throws {
        let (binary, directory) = try Self.installedCopy()
        let built = CLITests.binary.deletingLastPathComponent()
        for bundle in Self.bundles.dropLast() {
            try FileManager.default.copyItem(at: built.appendingPathComponent(bundle), to: directory.appendingPathComponent(bundle))
        }
        // Without the pages' bundle (the templates) serve names the file it needs.
        let withoutPages = try await CLITests.run([binary, "serve", "--port", "0"], shell: true)
        #expect(withoutPages.status == 2)
        #expect(withoutPages.stderr.hasPrefix("error: \(directory.path)/Switchyard_LinkPages.resources/landing.mustache is missing: "), "\(withoutPages.stderr)")
        try FileManager.default.copyItem(at: built.appendingPathComponent(Self.bundles[2]), to: directory.appendingPathComponent(Self.bundles[2]))
        // /usr/local/bin/switchyard -> /opt/switchyard/bin/switchyard, as the guide installs it.
        let onPath = directory.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("usr-local-bin")
        try FileManager.default.createDirectory(at: onPath, withIntermediateDirectories: true)
        let link = onPath.appendingPathComponent("switchyard").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: binary)

        let resolve = try await CLITests.run([link, "resolve", "https://twitter.com/jack/status/20"], shell: true)
        #expect(resolve.status == 0, "\(resolve.stderr)")
        #expect(resolve.stdout.contains("twitter://status?id=20"), "\(resolve.stdout)")
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let answers = try await blocking { () throws -> [Int] in
            try CLITests.withService(URL(fileURLWithPath: link), ["serve", "--port", "0", "--database", database]) { service in
                [HTTP.send("GET", service + "/openapi.json").status, HTTP.send("GET", service + "/.well-known/apple-app-site-association").status]
            }.result ?? []
        }
        #expect(answers == [200, 200])
    }
}
