import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Paths of the shared fixtures beside the repository (`SharedFixtures`). Tests that need one
/// carry `.needsSharedFixtures`: skipped in a plain clone, failing when required and missing.
enum Fixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let directory = SharedFixtures.directory
    static var openerSample: String { directory.appendingPathComponent("opener/openerManifest-v4-sample.json").path }
    static var defaultRules: String { repositoryRoot.appendingPathComponent("Sources/LinkRules/Resources/default-rules.json").path }

    static func require(_ path: String) throws -> String {
        try #require(FileManager.default.fileExists(atPath: path), "fixture missing: \(path) — the shared fixtures must sit beside the repository")
        return path
    }
}

