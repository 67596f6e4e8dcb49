import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
import SwitchyardJSON
import Testing

/// A real browser: headless Chromium loads a landing page from the running service. The
/// screenshot it takes is kept under .build/test-artifacts/ (not committed).
@Suite struct BrowserTests {
    static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(chromium))
        // Root needs --no-sandbox; a fresh profile keeps runs independent.
        let profile = Backend.temporaryPath("chromium")
        process.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile)"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: profile)
        return String(decoding: data, as: UTF8.self)
    }

    @Test(.enabled(if: chromium != nil || Backend.toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func headlessChromiumRendersTheLandingPageForAnIPhone() async throws {
        _ = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let h = try await Harness.make()
        try await h.app().test(.live) { client in
            let created = try await client.call(.post, "/api/invite", body: #"{"groupId": "g-browser", "relay": "wss://relay.rabble.community"}"#,
                                                headers: [HTTPField.Name("X-Invite-Token")!: h.writer])
            let code = try #require(created.json?["code"]?.stringValue)
            let url = "http://127.0.0.1:\(try #require(client.port))/i/\(code)"
            let iPhone = LandingPageTests.iPhone
            let dom = try Self.run(["--user-agent=\(iPhone)", "--virtual-time-budget=2000", "--dump-dom", url])
            #expect(dom.contains(#"<meta property="og:title" content="Plur">"#), "\(dom.prefix(400))")
            #expect(dom.contains(#"<meta property="og:url" content="https://rabble.community/i/\#(code)">"#))
            #expect(dom.contains(#"<meta name="twitter:card" content="summary">"#))
            #expect(dom.contains(#"id="open-app""#) && dom.contains(#"href="plur://join-community?group-id=g-browser&amp;code=\#(code)&amp;relay=wss%3A%2F%2Frelay.rabble.community""#))
            #expect(dom.contains(#"href="https://apps.apple.com/app/id1234567890""#))
            #expect(!dom.contains("play.google.com"))

            let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/test-artifacts").standardized
            try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
            let shot = artifacts.appendingPathComponent("landing-iphone.png")
            try? FileManager.default.removeItem(at: shot)
            _ = try Self.run(["--user-agent=\(iPhone)", "--window-size=390,844", "--hide-scrollbars", "--screenshot=\(shot.path)", url])
            let png = try Data(contentsOf: shot)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            #expect(png.count > 2000)
            // The browser's two visits were counted.
            try await h.service.flushClicks()
            #expect(try await h.store.link(code: code)?.clicks == 2)
        }
    }
}
