import SwitchyardTestSupport
import Foundation
import LinkConfiguration
import SwitchyardDocuments
import SwitchyardCore
import Testing

/// The operator guide's table of configuration keys against the keys `serve` accepts
/// (`ServiceConfiguration.shape`): every key documented, and every documented key real.
@Suite struct ConfigurationReferenceTests {
    static let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../docs/operator-guide.md").standardized

    /// The keys of a shape as the table writes them: `apple[].teamId`, `landing.pages`. Objects
    /// and lists of objects are walked; a map (keys of the user's choosing), a choice of shapes
    /// and a scalar are one key each.
    static func keys(of shape: DocumentShape, at path: String = "") -> [String] {
        switch shape {
        case .object(let members):
            return members.keys.sorted().flatMap { keys(of: members[$0]!, at: path.isEmpty ? $0 : "\(path).\($0)") }
        case .array(.object(let members)):
            return keys(of: .object(members), at: path + "[]")
        default:
            return [path]
        }
    }

    /// The keys in the first column of the table under "### Every key".
    static func documentedKeys() throws -> [String] {
        let text = try String(contentsOf: guide, encoding: .utf8)
        let start = try #require(text.range(of: "### Every key"), "docs/operator-guide.md has no \"### Every key\" section")
        var keys: [String] = []
        for line in text[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("#") { break }
            guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { continue }
            keys.append(String(line[line.index(line.startIndex, offsetBy: 3)..<end]))
        }
        return keys
    }

    @Test func theGuideListsEveryKeyServeAccepts() throws {
        let documented = try Self.documentedKeys()
        #expect(documented.count > 50, "the table was not found or is cut short: \(documented.count) rows")
        // A map is documented as `name.<key>`; its own key counts as documented then.
        let covered = Set(documented.map { $0.replacingOccurrences(of: #"\.<[^>]+>$"#, with: "", options: .regularExpression) })
        // A domain's own keys (`domains[].apple[].teamId`) are the top-level keys of one domain,
        // documented once, at the top level (`domains[].<key>` says so).
        let missing = Self.keys(of: ServiceConfiguration.shape).filter {
            !covered.contains($0) && !($0.hasPrefix("domains[].") && covered.contains(String($0.dropFirst("domains[].".count))))
        }
        #expect(missing.isEmpty, "keys serve accepts that docs/operator-guide.md does not list: \(missing)")
    }

    @Test func everyKeyTheGuideListsIsOneServeAccepts() throws {
        let accepted = Set(Self.keys(of: ServiceConfiguration.shape))
        let unknown = try Self.documentedKeys().filter {
            !accepted.contains($0.replacingOccurrences(of: #"\.<[^>]+>$"#, with: "", options: .regularExpression)) && $0 != "domains[].<key>"
        }
        #expect(unknown.isEmpty, "docs/operator-guide.md lists keys serve refuses: \(unknown)")
    }

    /// The annotated example sets every key and `serve` reads it.
    @Test func theCompleteExampleSetsEveryKeyAndLoads() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Examples/complete-config.yaml").standardized.path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // Every top-level section and every leaf key name appears in it.
        for key in Self.keys(of: ServiceConfiguration.shape) where key != "resolve.manifest" {
            let leaf = key.split(separator: ".").last.map { String($0).replacingOccurrences(of: "[]", with: "") } ?? key
            #expect(text.contains("\(leaf):"), "Examples/complete-config.yaml does not set \(key)")
        }
        setenv("SWITCHYARD_WEBHOOK_SECRET", "0123456789abcdef0123", 1)
        defer { unsetenv("SWITCHYARD_WEBHOOK_SECRET") }
        let configuration = try ServiceConfiguration(contentsOf: path)
        #expect(configuration.webhooks.endpoints.count == 1)
        #expect(configuration.publicURL == "https://rabble.community")
    }

    /// `serve` warns of a publicURL that builds links that never open the app (off the hosts,
    /// or not https), and not of one on the hosts, punycode included.
    @Test(arguments: [
        ("rabble.community", "https://rabble.community", nil),
        ("xn--bcher-kva.example", "https://xn--bcher-kva.example", nil),
        ("xn--bcher-kva.example", "https://xn--bcher-kva.example:8443", nil),
        ("rabble.community", "https://go.rabble.example", "is not on the route table's hosts (rabble.community): "),
        ("rabble.community", "http://rabble.community", "is not https: "),
    ] as [(String, String, String?)])
    func aPublicURLThatBuildsNoAppLinksIsWarned(host: String, publicURL: String, warning: String?) throws {
        let path = TestTemporary.root.appendingPathComponent("warn-\(UUID().uuidString).yaml").path
        try """
            apple: [{teamId: ABCDE12345, bundleId: com.example.app}]
            hosts: [\(host)]
            routes: [{name: item, pattern: "/item/{id}"}]
            service: {publicURL: "\(publicURL)"}
            """.write(toFile: path, atomically: true, encoding: .utf8)
        let warnings = try ServiceConfiguration(contentsOf: path).servingWarnings
        if let warning {
            #expect(warnings.count == 1 && warnings[0].contains(warning), "\(warnings)")
        } else {
            #expect(warnings.isEmpty, "\(warnings)")
        }
    }
}
