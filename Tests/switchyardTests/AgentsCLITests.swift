import SwitchyardTestSupport
import Foundation
import SwitchyardCore
import Testing

/// `switchyard agents parse` through the built binary: one JSON object per User-Agent as the
/// issue's contract writes it, a batch of 100,000 lines in order, and the rules' errors.
@Suite struct AgentsCLITests {
    static var installed: Bool { FileManager.default.fileExists(atPath: "/usr/share/uap-core/regexes.yaml") }
    static var required: Bool { ProcessInfo.processInfo.environment["SWITCHYARD_REQUIRE_TOOLS"] != nil }

    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    static let pixel = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36"

    @Test(.enabled(if: installed || required, "uap-core is not installed (bash .ci/run --setup installs it)"))
    func eachLineIsOneObjectOfTheContract() async throws {
        let run = try await CLITests.run(["agents", "parse", "--jsonl"], stdin: "\(Self.iPhone)\n\n\(Self.pixel)\n")
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "a blank line gives no line: \(run.stdout)")
        let iPhone = try JSONParser.parse(lines[0]), pixel = try JSONParser.parse(lines[1])
        #expect(iPhone.objectMembers?.map(\.key) == ["ua", "user_agent", "os", "device"])
        #expect(iPhone["user_agent"]?.objectMembers?.map(\.key) == ["family", "major", "minor", "patch", "patch_minor"])
        #expect(iPhone["ua"]?.stringValue == Self.iPhone && iPhone["user_agent"]?["family"]?.stringValue == "Mobile Safari")
        #expect(iPhone["os"]?["family"]?.stringValue == "iOS" && iPhone["os"]?["major"]?.stringValue == "17" && iPhone["os"]?["patch"] == .null)
        #expect(iPhone["device"] == .object([("family", .string("iPhone")), ("brand", .string("Apple")), ("model", .string("iPhone"))]))
        #expect(pixel["user_agent"]?["family"]?.stringValue == "Chrome Mobile" && pixel["device"]?["model"]?.stringValue == "Pixel 8")
        // Arguments too, and words for people without --jsonl.
        let words = try await CLITests.run(["agents", "parse", Self.pixel])
        #expect(words.stdout == "Chrome Mobile 124.0.6367.82 · Android 14 · Pixel 8 (Google)\n", "\(words.stdout)")
    }

    @Test(.enabled(if: installed || required, "uap-core is not installed (bash .ci/run --setup installs it)"))
    func aHundredThousandLinesComeOutInOrder() async throws {
        // As a log has them: a few thousand distinct User-Agents, each many times.
        let agents = [Self.iPhone, Self.pixel, "curl/8.5.0", "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"]
        let input = (0..<100_000).map { agents[$0 % agents.count] + " n\($0 % 2_000)" }
        let run = try await CLITests.run(["agents", "parse", "--jsonl"], stdin: input.joined(separator: "\n") + "\n")
        #expect(run.status == 0, "\(run.stderr.prefix(500))")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 100_000)
        for i in [0, 1, 2, 3, 55_555, 99_999] {
            #expect(try JSONParser.parse(String(lines[i]))["ua"]?.stringValue == input[i])
        }
        #expect(try JSONParser.parse(String(lines[3]))["device"]?["family"]?.stringValue == "Spider")
    }

    /// An over-long line is not kept; it gets its line-too-long error line in its place, so the
    /// output's lines still match the input's, and the status is 1.
    @Test(.enabled(if: installed || required, "uap-core is not installed (bash .ci/run --setup installs it)"))
    func anOverLongLineGetsAnErrorLineInItsPlace() async throws {
        let input = "curl/8.5.0\n" + "Mozilla/5.0 " + String(repeating: "A", count: 100_000) + "\n" + Self.iPhone + "\n"
        let run = try await CLITests.run(["agents", "parse", "--jsonl"], stdin: input)
        #expect(run.status == 1)
        let lines = run.stdout.split(separator: "\n").map { try? JSONParser.parse(String($0)) }
        #expect(lines.count == 3, "\(run.stdout.prefix(600))")
        #expect(lines[0]?["ua"]?.stringValue == "curl/8.5.0" && lines[2]?["os"]?["family"]?.stringValue == "iOS")
        #expect(lines[1]?["ua"] == .null && lines[1]?["line"] == .number(2, text: "2") && lines[1]?["error"]?["code"]?.stringValue == "line-too-long", "\(run.stdout.prefix(600))")
        let text = try await CLITests.run(["agents", "parse"], stdin: input)
        #expect(text.status == 1 && text.stdout.split(separator: "\n").count == 3 && text.stdout.contains("error: stdin line 2: "), "\(text.stdout)")
    }

    @Test func rulesThatCannotBeReadExitTwoSayingWhy() async throws {
        let missing = try await CLITests.run(["agents", "parse", "--regexes", "/nonexistent/regexes.yaml", "x"])
        #expect(missing.status == 2 && missing.stderr.contains("/nonexistent/regexes.yaml") && missing.stdout.isEmpty, "\(missing.stderr)")
        let file = TestTemporary.root.appendingPathComponent("regexes-\(UUID().uuidString).yaml")
        try "user_agent_parsers: [{regex: '('}]\nos_parsers: []\ndevice_parsers: []\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let broken = try await CLITests.run(["agents", "parse", "--regexes", file.path, "x"])
        #expect(broken.status == 2 && broken.stderr.contains("user_agent_parsers[0]") && broken.stderr.contains("does not compile"), "\(broken.stderr)")
    }
}
