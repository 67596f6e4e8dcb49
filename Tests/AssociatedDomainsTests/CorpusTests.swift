import SwitchyardTestSupport
import AssociatedDomains
import Foundation
import SwitchyardCore
import Testing

/// Walks every file of ../shared/fixtures/aasa-corpus: no crash, and every file the index marks
/// broken, suspect or incomplete gets a specific finding.
@Suite struct CorpusTests {
    static let corpus = SharedFixtures.directory.appendingPathComponent("aasa-corpus")

    struct Entry: Sendable {
        var file: String
        var validJSON: Bool
        var notes: String
    }

    static func index(_ platform: String) throws -> [Entry] {
        let path = corpus.appendingPathComponent("index.json").path
        try #require(FileManager.default.fileExists(atPath: path), "fixture missing: \(path)")
        let index = try JSONParser.parse(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        return (index[platform]?.arrayValue ?? []).map {
            Entry(file: $0["file"]?.stringValue ?? "", validJSON: $0["valid_json"] == .bool(true), notes: $0["notes"]?.stringValue ?? "")
        }
    }

    static func bytes(_ file: String) throws -> [UInt8] { Array(try Data(contentsOf: corpus.appendingPathComponent(file))) }

    /// Files the index calls broken in meaning, and the finding code each must get.
    static let expectedApple: [String: String] = [
        "apple/019.json": "placeholder-app-id",
        "apple/023.json": "json-syntax",
        "apple/025.json": "json-syntax",
        "apple/037.json": "numeric-team-id",
        "apple/041.json": "placeholder-app-id",
        "apple/043.json": "no-patterns",
        "apple/047.json": "missing-team-id",
        "apple/049.json": "no-app-ids",
        "apple/061.json": "json-syntax",
        "apple/073.json": "placeholder-app-id",
        "apple/075.json": "unreachable-not",
        "apple/077.json": "missing-team-id",
        "apple/083.json": "malformed-app-id",
        "apple/113.json": "missing-team-id",
        "apple/119.json": "query-single-character",
        "apple/131.json": "json-syntax",
        "apple/135.json": "wrong-type",
        "apple/029.json": "paths-and-components",
        "apple/133.json": "paths-and-components",
        "apple/017.json": "missing-applinks",
    ]

    static let expectedAndroid: [String: String] = [
        "android/007.json": "json-syntax",
        "android/019.json": "unknown-relation",
        "android/023.json": "fingerprint-format",
        "android/025.json": "debug-fingerprint",
        "android/037.json": "placeholder-fingerprint",
        "android/039.json": "debug-fingerprint",
        "android/041.json": "json-syntax",
    ]

    @Test(.needsSharedFixtures) func everyAppleFileIsValidatedAndBrokenOnesGetTheirFinding() throws {
        let entries = try Self.index("apple")
        #expect(entries.count == 76)
        for e in entries {
            let findings = AppSiteAssociation.validate(bytes: try Self.bytes(e.file))
            if !e.validJSON { #expect(findings.first?.code == .jsonSyntax && findings.first?.line != nil, "\(e.file)") }
            let broken = ["BROKEN", "SEMANTIC-BROKEN", "SUSPECT", "INCOMPLETE"].contains { e.notes.hasPrefix($0) }
            if broken { #expect(Self.expectedApple[e.file] != nil, "\(e.file) is marked broken but has no expectation: \(e.notes)") }
            if let code = Self.expectedApple[e.file] {
                #expect(findings.contains { $0.code.name == code }, "\(e.file): expected \(code), got \(findings.map(\.code.name))")
            }
            if !broken && e.validJSON && Self.expectedApple[e.file] == nil {
                #expect(!findings.contains { $0.severity == .error }, "\(e.file) (\(e.notes)) got errors: \(findings)")
            }
        }
    }

    @Test(.needsSharedFixtures) func everyAndroidFileIsValidatedAndBrokenOnesGetTheirFinding() throws {
        let entries = try Self.index("android")
        #expect(entries.count == 21)
        for e in entries {
            let (_, findings) = AssetLinks.validate(bytes: try Self.bytes(e.file))
            if let code = Self.expectedAndroid[e.file] {
                #expect(findings.contains { $0.code.name == code }, "\(e.file): expected \(code), got \(findings.map(\.code.name))")
            } else {
                #expect(!findings.contains { $0.severity == .error }, "\(e.file) (\(e.notes)) got errors: \(findings)")
            }
            let broken = ["BROKEN", "SEMANTIC-BROKEN"].contains { e.notes.hasPrefix($0) } || e.notes.contains("debug-keystore")
            if broken { #expect(Self.expectedAndroid[e.file] != nil, "\(e.file) is marked broken but has no expectation") }
        }
    }
}
