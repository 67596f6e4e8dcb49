import LinkConfiguration
import SwitchyardTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import Testing

/// `/api/resolve` cannot be stalled by slow scripts: requests beyond a few per engine thread are
/// turned away at once with 503 `resolve-busy` and `Retry-After`, and the bounds of scripts and
/// regexes come from the configuration.
@Suite struct ResolveAdmissionTests {
    @Test func requestsBeyondTheAdmissionLimitAreTurnedAwayAtOnce() async throws {
        let manifest = TestTemporary.root.appendingPathComponent("slow-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: manifest) }
        try Data(#"""
            {"apps": [{"identifier": "app", "name": "App", "scheme": "app"}],
             "actions": [{"title": "Slow", "regex": "^https://slow\\.example/", "formats": [{"appId": "app", "script2": "function process(u, done) { while (true) {} }"}]},
                         {"title": "Fast", "regex": "^https://fast\\.example/.*$", "formats": [{"appId": "app", "format": "app://fast"}]}],
             "browsers": [], "redirects": {}}
            """#.utf8).write(to: manifest)
        let h = try await Harness.make(extra: """
            resolve: {manifest: "\(manifest.path)", offline: true, threads: 1, scriptTimeLimit: 1}
            rateLimit:
              perToken: {perMinute: 6000, burst: 200}
              perAddress: {perMinute: 6000, burst: 200}
            """)
        #expect(h.service.configuration.resolveThreads == 1)
        try await h.app().test(.live) { client in
            // One thread, so 4 may wait or run; 12 at once: the others are answered 503 at once.
            // Twelve connections at once (the test client has one): curl, each in its own process.
            let port = try #require(client.port)
            let statuses = try await withThrowingTaskGroup(of: (Int, String?, String).self) { group in
                for i in 0..<12 {
                    group.addTask { try await Self.curl("http://127.0.0.1:\(port)/api/resolve?url=https://slow.example/\(i)") }
                }
                var all: [(Int, String?, String)] = []
                for try await s in group { all.append(s) }
                return all
            }
            let busy = statuses.filter { $0.0 == 503 }
            let done = statuses.filter { $0.0 == 200 }
            #expect(busy.count >= 8 - 1, "\(statuses.map(\.0))")  // at most 4 admitted (one may finish early)
            #expect(busy.allSatisfy { $0.1 == "1" && $0.2 == "resolve-busy" })
            #expect(done.count + busy.count == 12)
            // Once they are done, resolves are answered again; the slow script failed alone.
            let fast = try await client.call(.get, "/api/resolve?url=https://fast.example/x")
            #expect(fast.status == .ok)
            #expect(fast.json?["actions"]?.arrayValue?.first?["url"]?.stringValue == "app://fast")
            let slow = try await client.call(.get, "/api/resolve?url=https://slow.example/again")
            #expect(slow.json?["actions"]?.arrayValue?.first?.at("error.code")?.stringValue == "script-timeout")
        }
    }

    /// Status, Retry-After and error code of a GET, by curl in a child process on its own thread.
    static func curl(_ url: String) async throws -> (Int, String?, String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let process = ChildProcess()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
                    process.arguments = ["-s", "-i", "--max-time", "60", url]
                    let out = Pipe()
                    process.standardOutput = out
                    try process.run()
                    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                    process.waitUntilExit()
                    let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
                    let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? -1
                    let retry = lines.first { $0.lowercased().hasPrefix("retry-after:") }.map { $0.dropFirst(12).trimmingCharacters(in: .whitespaces) }
                    let code = text.range(of: #""code":""#).map { String(text[$0.upperBound...].prefix { $0 != "\"" }) } ?? ""
                    return (status, retry, code)
                })
            }
        }
    }

    @Test func boundsComeFromTheConfigurationAndNonsenseIsRefused() throws {
        for (yaml, message) in [
            ("resolve: {threads: 0}", "resolve.threads: from 1 to 256"),
            ("resolve: {scriptMemoryMB: 1}", "resolve.scriptMemoryMB: from 16 to 65536"),
            ("resolve: {regexTimeLimit: 0}", "resolve.regexTimeLimit: a number of seconds from 0.001 to 3600"),
        ] {
            let file = TestTemporary.root.appendingPathComponent("config-\(UUID().uuidString).yaml")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data("hosts: [e.com]\nroutes: [{name: a, pattern: /a}]\n\(yaml)\n".utf8).write(to: file)
            #expect(throws: ConfigurationError(message, location: SourceLocation(file: file.path))) { try ServiceConfiguration(contentsOf: file.path) }
        }
    }
}
