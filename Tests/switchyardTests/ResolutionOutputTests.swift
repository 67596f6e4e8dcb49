import Foundation
import LinkRules
import SwitchyardCore
import Testing
@testable import switchyard

/// What `switchyard resolve` writes per input (`ResolutionOutput`): the exit status's count, the
/// stderr reason for an input that is no URL, a batch keeping one answer per input, escaping.
@Suite struct ResolutionOutputTests {
    @Test func answersCountFailuresAndKeepBatchLinesInStep() async throws {
        let manifest = try Manifest(json: #"""
            {"apps": [{"identifier": "tw", "name": "Tw", "scheme": "tw"}],
             "actions": [
                {"title": "Status", "regex": "^https://tw\\.example/\\w+/status/(\\d+)$", "formats": [{"appId": "tw", "format": "tw://status?id=$1"}]},
                {"title": "Any tw", "regex": "^https://tw\\.example/.*$", "formats": [{"appId": "tw", "format": "tw://open"}]}],
             "browsers": [{"name": "Web", "identifier": "web", "scheme": "https", "regex": "^https?://.+$", "format": "$0"}]}
            """#)
        let engine = LinkEngine(manifest: manifest, options: .init(offline: true))
        let problem = (code: ErrorCode.invalidURL, message: "not an absolute URL")

        let single = ResolutionOutput(manifest: manifest, json: false, browsers: false, batch: false)
        let refused = single.refused("nope\u{1B}", problem)
        #expect(refused.failed && refused.lines.isEmpty)
        #expect(refused.message == "error: nope\\u{1B}: not an absolute URL")
        let handled = single.resolved(await engine.resolve("https://tw.example/jack/status/20"))
        #expect(!handled.failed && handled.message == nil && handled.lines == ["Tw → tw://status?id=20", "Tw → tw://open"])
        #expect(single.resolved(await engine.resolve("https://other.example/")).failed)

        let batch = ResolutionOutput(manifest: manifest, json: false, browsers: true, batch: true)
        #expect(batch.refused("nope", problem).lines == ["nope", "  error: not an absolute URL"])
        let withBrowsers = batch.resolved(await engine.resolve("https://tw.example/x\u{202E}"))
        #expect(withBrowsers.lines.first == "https://tw.example/x\\u{202E}" && withBrowsers.lines.contains { $0.hasPrefix("  Web (browser) → ") })

        let json = ResolutionOutput(manifest: manifest, json: true, browsers: false, batch: true)
        let line = try #require(json.refused("nope", problem).lines.first)
        #expect(try JSONParser.parse(line)["error"]?["code"]?.stringValue == "invalid-url")
        #expect(json.refused("nope", problem).message == nil)
    }
}
