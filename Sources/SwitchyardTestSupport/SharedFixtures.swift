import Foundation
import Testing

/// The shared fixtures beside the repository (`../shared/fixtures`: the Opener manifest sample,
/// the AASA and assetlinks corpus, the URL Standard's conformance data). They are not in the
/// repository: a plain clone runs without them and the tests that read them are skipped, saying
/// why; with `SWITCHYARD_REQUIRE_TOOLS` set (as `.ci/run` does) those tests run, and a missing
/// fixture fails.
public enum SharedFixtures {
    /// `../shared/fixtures` next to the repository, or the directory `SWITCHYARD_FIXTURES` names.
    public static let directory: URL = {
        if let given = ProcessInfo.processInfo.environment["SWITCHYARD_FIXTURES"], !given.isEmpty { return URL(fileURLWithPath: given) }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    }()

    /// Whether the directory is there.
    public static var present: Bool { FileManager.default.fileExists(atPath: directory.path) }

    /// Whether the environment asks for every tool and fixture (`SWITCHYARD_REQUIRE_TOOLS`).
    public static var required: Bool { ProcessInfo.processInfo.environment["SWITCHYARD_REQUIRE_TOOLS"] != nil }

    /// The path of `relative` inside the fixtures directory.
    public static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test when the shared fixtures are beside the repository, or when they are
    /// required (then a missing one fails); otherwise skips it, naming what is missing.
    public static var needsSharedFixtures: Self {
        .enabled(if: SharedFixtures.present || SharedFixtures.required,
                 Comment(rawValue: "\(SharedFixtures.directory.standardized.path) is missing: the shared fixtures are not part of the repository (SWITCHYARD_REQUIRE_TOOLS makes this a failure)"))
    }
}
