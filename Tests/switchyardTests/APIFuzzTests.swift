import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing

/// Schemathesis (a tool we did not write) fuzzes the running service against its own OpenAPI
/// document: every operation, a bounded number of generated requests each, with a token. No
/// answer may be a 5xx, and every answer must have a documented status, content type and shape.
@Suite struct APIFuzzTests {
    /// `bash .ci/run --setup` installs it into .build/tools/venv; SWITCHYARD_SCHEMATHESIS or PATH also work.
    static let schemathesis: String? = {
        var candidates = [CLITests.root.appendingPathComponent(".build/tools/venv/bin/schemathesis").path]
        if let chosen = ProcessInfo.processInfo.environment["SWITCHYARD_SCHEMATHESIS"] { candidates.insert(chosen, at: 0) }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/schemathesis" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    @Test(.enabled(if: schemathesis != nil || ServiceProcessTests.toolsRequired, "schemathesis is not installed (bash .ci/run --setup installs it)"))
    func schemathesisFindsNoServerErrorAndNoAnswerOutsideTheDocument() async throws {
        let tool = try #require(Self.schemathesis, "schemathesis is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let created = try await CLITests.run(["token", "create", "--name", "fuzz", "--scope", "links:read", "--scope", "links:write",
                                                  "--scope", "transactions", "--database", database])
        let token = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        // The example configuration without its rate limits (a fuzzer would only meet 429s) and offline.
        let example = try String(contentsOf: CLITests.root.appendingPathComponent("Sources/LinkService/Resources/example-config.yaml"), encoding: .utf8)
        var keep = true
        let lines = example.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if let first = line.first, first != " " { keep = !line.hasPrefix("rateLimit:") && !line.hasPrefix("resolve:") }
            return keep
        }
        let config = directory.appendingPathComponent("config.yaml")
        try Data((lines.joined(separator: "\n") + """

            rateLimit:
              perToken: {perMinute: 1000000, burst: 100000}
              perAddress: {perMinute: 1000000, burst: 100000}
            resolve: {offline: true}

            """).utf8).write(to: config)
        let (log, outcome) = try await blocking { () throws -> (String, (Int32, String)?) in
            let run = try CLITests.withService(CLITests.binary, ["serve", "--config", config.path, "--port", "0", "--database", database]) { service -> (Int32, String) in
                // A dashboard session too, so the /admin pages are reached (not only their sign-in redirect).
                let curl = ChildProcess()
                curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                curl.arguments = ["-s", "-o", "/dev/null", "-D", "-", "--data-urlencode", "token=\(token)", service + "/admin/sign-in"]
                let headers = Pipe()
                curl.standardOutput = headers
                try curl.run()
                let signIn = String(decoding: headers.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                curl.waitUntilExit()
                guard let cookie = signIn.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("set-cookie: sy_admin=") })?
                    .dropFirst("set-cookie: ".count).split(separator: ";").first else { return (-1, "no session cookie from sign-in: \(signIn)") }
                let process = ChildProcess()
                process.executableURL = URL(fileURLWithPath: tool)
                process.currentDirectoryURL = directory   // its .schemathesis/ cache stays out of the checkout
                process.arguments = [
                    "run", service + "/openapi.json", "--url", service, "--max-examples", "40",
                    "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
                    "-H", "Authorization: Bearer \(token)", "-H", "X-Invite-Token: \(token)", "-H", "Cookie: \(cookie)", "--no-color",
                ]
                process.environment = ProcessInfo.processInfo.environment.merging(["SCHEMATHESIS_HOOKS": "", "NO_COLOR": "1"]) { $1 }
                let out = Pipe()
                process.standardOutput = out
                process.standardError = out
                try process.run()
                let data = out.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return (process.terminationStatus, String(decoding: data, as: UTF8.self))
            }
            return (run.log, run.result)
        }
        let (status, report) = try #require(outcome, "the service did not start: \(log)")
        let summary = report.split(separator: "\n").filter { $0.contains("generated") || $0.contains("passed") || $0.contains("failed") }
        print("schemathesis: \(summary.joined(separator: " | "))")
        // Its closing summary as printed, for CI logs and the README.
        if let start = report.range(of: "API Operations:", options: .backwards) { print(report[start.lowerBound...]) }
        #expect(status == 0, "\(report.suffix(6000))")
        // Every operation of the document (counted from the file in the repository).
        let document = try String(contentsOf: CLITests.root.appendingPathComponent("Sources/LinkService/Resources/openapi.json"), encoding: .utf8)
        let paths = try #require((try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any])?["paths"] as? [String: [String: Any]])
        let operations = paths.values.reduce(0) { $0 + $1.keys.filter { ["get", "post", "put", "patch", "delete"].contains($0) }.count }
        #expect(operations >= 31, "HEAD operations are not counted: schemathesis does not run them")
        #expect(report.contains("Tested: \(operations)"), "\(report.suffix(3000))")
        // The dashboard's forms answer only 403 without their session's form token, which the fuzzer
        // cannot know: schemathesis warns "Authentication failed" for them, and that is the point.
        let failures = report.split(separator: "\n").filter { $0.contains("failed") && !$0.contains("Authentication failed") }
        #expect(failures.isEmpty, "\(report.suffix(6000))")
    }
}
