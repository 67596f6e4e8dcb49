import SwitchyardTestSupport
import SwitchyardCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `relay watch --http`: the launcher page in a real headless Chromium, and its guards.
@Suite struct LauncherTests {
    static var chromium: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static var toolsRequired: Bool { ProcessInfo.processInfo.environment["SWITCHYARD_REQUIRE_TOOLS"] != nil }

    /// Starts the watcher with the launcher; returns the process, the launcher URL and the record file.
    static func startWatcher() throws -> (ChildProcess, String, String) {
        let dir = try ServiceProcessTests.temporaryDirectory()
        let record = dir.appendingPathComponent("handled.jsonl").path
        let process = ChildProcess()
        process.executableURL = CLITests.binary
        process.arguments = ["relay", "watch", "--inbox", dir.appendingPathComponent("inbox").path, "--record", record, "--http", "127.0.0.1:0"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let r = text.range(of: "launcher on "), let end = text[r.upperBound...].firstIndex(of: "\n") {
                return (process, String(text[r.upperBound..<end]), record)
            }
        }
        process.terminate()
        throw CancellationError()
    }

    /// The run's token, as the page embeds it (what a scripted check reads before it drives the page).
    static func token(of base: String) async throws -> String {
        let page = String(decoding: try await URLSession.shared.data(from: URL(string: base)!).0, as: UTF8.self)
        return try #require(page.range(of: #"var token = ""#).map { String(page[$0.upperBound...].prefix(32)) })
    }

    /// Runs headless Chromium on `url`; returns the DOM it ends with.
    static func dumpDOM(_ chromium: String, _ url: String) async throws -> String {
        let browser = ChildProcess()
        browser.executableURL = URL(fileURLWithPath: chromium)
        let profile = try ServiceProcessTests.temporaryDirectory().path
        browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile)",
                             "--virtual-time-budget=3000", "--dump-dom", url]
        let out = Pipe()
        browser.standardOutput = out
        browser.standardError = FileHandle.nullDevice
        return try await blocking {
            try browser.run()
            let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            browser.waitUntilExit()
            return dom
        }
    }

    static func waitForRecord(_ record: String, containing needle: String) async throws -> String {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
            if text.contains(needle) { return text }
            try await Task.sleep(for: .milliseconds(50))
        }
        return (try? String(contentsOfFile: record, encoding: .utf8)) ?? ""
    }

    @Test(.enabled(if: chromium != nil || toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func clickingOpenInChromiumReachesTheHandler() async throws {
        let chromium = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let (watcher, base, record) = try await blocking { try Self.startWatcher() }
        defer { watcher.stopInBackground() }
        // The fragment with the run's token makes the page fill the field and click Open, through
        // the same handler as a person's click.
        let token = try await Self.token(of: base)
        let dom = try await Self.dumpDOM(chromium, base + "#open=plur%3A%2F%2Fgroup%2Ffrom-the-browser%3Fx%3D1&token=" + token)
        let handled = try await Self.waitForRecord(record, containing: "plur://group/from-the-browser?x=1")
        #expect(handled.contains(#""source":"launcher","url":"plur://group/from-the-browser?x=1""#), "\(handled)")
        #expect(dom.contains(#"<span id="status" class="ok">queued "#), "\(dom.suffix(1500))")
        #expect(dom.contains("window.switchyard = {openURL: openURL}"))
    }

    /// The seed apps' pages call `window.squirrel.openURL(url)` or post `{url}` to the
    /// `squirrel.openURL` message handler; in a desktop browser both reach the handler too.
    @Test(.enabled(if: chromium != nil || toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func theSeedAppsNamesReachTheHandlerInChromium() async throws {
        let chromium = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let (watcher, base, record) = try await blocking { try Self.startWatcher() }
        defer { watcher.stopInBackground() }
        let token = try await Self.token(of: base)
        for (fragment, url) in [("squirrel", "plur://group/via-squirrel"), ("message", "plur://group/via-message-handler")] {
            let browser = ChildProcess()
            browser.executableURL = URL(fileURLWithPath: chromium)
            let profile = try ServiceProcessTests.temporaryDirectory().path
            browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(profile)",
                                 "--virtual-time-budget=3000", "--dump-dom",
                                 base + "#\(fragment)=" + url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&token=" + token]
            browser.standardOutput = FileHandle.nullDevice
            browser.standardError = FileHandle.nullDevice
            try browser.run()
            await browser.waitForExit()
            let handled = try await Self.waitForRecord(record, containing: url)
            #expect(handled.contains(#""source":"launcher","url":"\#(url)""#), "\(fragment): \(handled)")
        }
    }

    /// Any web page can send the browser to the launcher with a fragment: without the run's token
    /// the fragment only fills the field, and nothing reaches the inbox (it queued before).
    @Test(.enabled(if: chromium != nil || toolsRequired, "chromium is not installed (bash .ci/run --setup installs it)"))
    func aFragmentWithoutTheTokenOnlyFillsTheField() async throws {
        let chromium = try #require(Self.chromium, "chromium is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let (watcher, base, record) = try await blocking { try Self.startWatcher() }
        defer { watcher.stopInBackground() }
        let forged = "plur%3A%2F%2Fgroup%2Fforged"
        for fragment in ["#open=\(forged)", "#open=\(forged)&token=" + String(repeating: "0", count: 32), "#squirrel=\(forged)", "#message=\(forged)"] {
            let dom = try await Self.dumpDOM(chromium, base + fragment)
            if fragment.hasPrefix("#open") {
                #expect(dom.contains(#"<span id="status" class="">press Open to send this URL</span>"#), "\(fragment): \(dom.suffix(1500))")
            }
        }
        // A request with the token afterwards is recorded; the forged ones never were.
        let token = try await Self.token(of: base)
        _ = try await Self.dumpDOM(chromium, base + "#open=plur%3A%2F%2Fgroup%2Fafter&token=" + token)
        let handled = try await Self.waitForRecord(record, containing: "plur://group/after")
        #expect(handled.contains("plur://group/after"))
        #expect(!handled.contains("forged"), "\(handled)")
    }

    @Test func postsNeedTheRunTokenAndALoopbackHost() async throws {
        let (watcher, base, record) = try await blocking { try Self.startWatcher() }
        defer { watcher.stopInBackground() }
        let (data, response) = try await URLSession.shared.data(from: URL(string: base)!)
        let page = String(decoding: data, as: UTF8.self)
        let token = try #require(page.range(of: #"var token = ""#).map { String(page[$0.upperBound...].prefix(32)) })
        // Never framed by another site (clickjacking with a URL filled in).
        let headers = try #require(response as? HTTPURLResponse)
        #expect(headers.value(forHTTPHeaderField: "X-Frame-Options") == "DENY")
        #expect(headers.value(forHTTPHeaderField: "Content-Security-Policy") == "frame-ancestors 'none'")
        func post(_ token: String?, host: String? = nil, url: String = "plur://group/posted") async throws -> Int {
            var request = URLRequest(url: URL(string: base + "open")!)
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: ["url": url])
            if let token { request.setValue(token, forHTTPHeaderField: "X-Switchyard-Token") }
            if let host { request.setValue(host, forHTTPHeaderField: "Host") }
            return (try await URLSession.shared.data(for: request).1 as! HTTPURLResponse).statusCode
        }
        #expect(try await post(nil) == 403)
        #expect(try await post(String(repeating: "0", count: 32)) == 403)
        #expect(try await post(token, host: "evil.example") == 403)
        // The whole Host is read, not only what comes before its first colon.
        let authority = try #require(URL(string: base)?.host).appending(":\(try #require(URL(string: base)?.port))")
        for host in [authority + ".evil.example", authority + "@evil.example", authority + ":x", "127.0.0.1:", "[::1]evil"] {
            #expect(try await post(token, host: host) == 403, "\(host)")
        }
        // Two Host fields (no browser sends that): refused, whichever comes first.
        let port = try #require(URL(string: base)?.port)
        for hosts in [[authority, "evil.example"], ["evil.example", authority]] {
            let script = """
                import socket, sys
                body = b'{"url": "plur://group/two-hosts"}'
                head = "POST /open HTTP/1.1\\r\\n" + "".join("Host: %s\\r\\n" % h for h in sys.argv[3:]) + \\
                    "X-Switchyard-Token: %s\\r\\nContent-Type: application/json\\r\\nContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n" % (sys.argv[2], len(body))
                s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                s.sendall(head.encode() + body)
                print(s.recv(100).decode().split("\\r\\n")[0])
                """
            let r = try await CLITests.run(["/usr/bin/python3", "-c", script, String(port), token] + hosts, shell: true)
            #expect(r.stdout.hasPrefix("HTTP/1.1 403"), "\(hosts): \(r.stdout) \(r.stderr)")
        }
        // The one URL policy: C1 controls and bidirectional overrides are refused here too.
        #expect(try await post(token, url: "plur://group/\u{9B}2J") == 400)
        #expect(try await post(token, url: "plur://group/a\u{202E}gpj.exe") == 400)
        #expect(try await post(token) == 200)
        #expect(try await Self.waitForRecord(record, containing: "plur://group/posted").contains("plur://group/posted"))
        let bad = try await CLITests.run(["relay", "watch", "--http", "0.0.0.0:8080"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--http must be a loopback HOST:PORT"))
    }
}
