import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing

/// `switchyard link qr` through the built binary: a link made through the running service's API,
/// then its QR code written to files and read back by zbarimg.
@Suite struct LinkQRCLITests {
    static let zbarimg: String? = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func read(_ file: URL) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: try #require(zbarimg))
        process.arguments = ["-q", "--raw", file.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    @Test(.enabled(if: zbarimg != nil || ServiceProcessTests.toolsRequired, "zbarimg is not installed (bash .ci/run --setup installs zbar-tools)"))
    func linkQRWritesACodeThatReadsAsTheLinksURL() async throws {
        _ = try #require(Self.zbarimg, "zbarimg is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let created = try await CLITests.run(["token", "create", "--name", "t", "--scope", "links:write", "--database", database])
        let token = try #require(created.stdout.split(separator: "\n").last.map(String.init))
        let answer = try await blocking { () throws -> String in
            let run = try CLITests.withService(CLITests.binary, ["serve", "--port", "0", "--database", database]) { service in
                _ = HTTP.send("POST", service + "/api/links", token: token, body: #"{"code": "xmasgem", "deepLink": "plur://group/brief", "expiresIn": 1}"#)
                return HTTP.send("POST", service + "/api/links", token: token, body: #"{"code": "summer25", "deepLink": "plur://group/poster"}"#).body
            }
            return run.result ?? run.log
        }
        #expect(answer.contains(#""url":"https://rabble.community/i/summer25""#), "\(answer)")

        let png = directory.appendingPathComponent("poster.png")
        let r = try await CLITests.run(["link", "qr", "summer25", "-o", png.path, "--size", "400", "--database", database])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("(PNG, "), "\(r.stderr)")
        #expect(try Self.read(png) == "https://rabble.community/i/summer25")

        let svg = directory.appendingPathComponent("poster.svg")
        #expect(try await CLITests.run(["link", "qr", "summer25", "-o", svg.path, "--database", database]).status == 0)
        #expect(try String(contentsOf: svg, encoding: .utf8).contains("<svg"))

        let missing = try await CLITests.run(["link", "qr", "nosuch", "-o", png.path, "--database", database])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no link with code 'nosuch'"), "\(missing.stderr)")
        let noFormat = try await CLITests.run(["link", "qr", "summer25", "-o", directory.appendingPathComponent("x.gif").path, "--database", database])
        #expect(noFormat.status == 2)
        #expect(noFormat.stderr.contains("--format svg or --format png"), "\(noFormat.stderr)")
        // An expired link's page answers 410: no code for it, as GET /i/{code}/qr.png.
        try await Task.sleep(for: .seconds(1.2))
        let expired = directory.appendingPathComponent("brief.png")
        let gone = try await CLITests.run(["link", "qr", "xmasgem", "-o", expired.path, "--database", database])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("the link 'xmasgem' expired at ") && gone.stderr.contains("an ended link gets no QR code"), "\(gone.stderr)")
        #expect(!FileManager.default.fileExists(atPath: expired.path))
        // Nor for one used up: its page answers 410 too (here through the QR endpoint, same rule).
        let usedUp = try await blocking { () throws -> [Int] in
            let run = try CLITests.withService(CLITests.binary, ["serve", "--port", "0", "--database", database]) { service -> [Int] in
                _ = HTTP.send("POST", service + "/api/links", token: token, body: #"{"code": "xmasane", "deepLink": "plur://group/once", "maxUses": 1}"#)
                let page = HTTP.send("GET", service + "/i/xmasane").status
                return [page, HTTP.send("GET", service + "/i/xmasane/qr.svg").status, HTTP.send("GET", service + "/i/xmasane/qr.png").status]
            }
            return run.result ?? []
        }
        #expect(usedUp == [200, 410, 410])
        let used = try await CLITests.run(["link", "qr", "xmasane", "-o", expired.path, "--database", database])
        #expect(used.status == 1 && used.stderr.contains("has been used 1 time, its limit; an ended link gets no QR code"), "\(used.stderr)")
    }

    /// An imported Firebase link's page is at its old path: the code `link qr` writes is the URL
    /// the service's own QR endpoint encodes (the one definition of a page URL).
    @Test(.enabled(if: zbarimg != nil || ServiceProcessTests.toolsRequired, "zbarimg is not installed (bash .ci/run --setup installs zbar-tools)"))
    func anImportedFirebaseLinksCodeIsItsOwnPath() async throws {
        _ = try #require(Self.zbarimg, "zbarimg is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        let export = directory.appendingPathComponent("fdl.csv")
        try "shortLink,link\nhttps://rabble.community/Ab12,https://rabble.community/g/summer\n".write(to: export, atomically: true, encoding: .utf8)
        let imported = try await CLITests.run(["import", "fdl", export.path, "--database", database])
        #expect(imported.status == 0, "\(imported.stderr)")
        let svg = directory.appendingPathComponent("fdl.svg")
        let r = try await CLITests.run(["link", "qr", "Ab12", "-o", svg.path, "--database", database])
        #expect(r.status == 0 && r.stderr.contains("(SVG): https://rabble.community/Ab12"), "\(r.stderr)")
        let served = try await blocking { () throws -> String in
            let run = try CLITests.withService(CLITests.binary, ["serve", "--port", "0", "--database", database]) { service in
                HTTP.send("GET", service + "/i/Ab12/qr.svg").body
            }
            return run.result ?? run.log
        }
        #expect(try String(contentsOf: svg, encoding: .utf8) == served)
        let png = directory.appendingPathComponent("fdl.png")
        #expect(try await CLITests.run(["link", "qr", "Ab12", "-o", png.path, "--database", database]).status == 0)
        #expect(try Self.read(png) == "https://rabble.community/Ab12")
    }

    /// `link qr` draws the configuration's `qr` style, and its options change it for one code;
    /// options that are not values, or that would give a code phones read badly, stop it with
    /// exit 2 before anything is written.
    @Test(.enabled(if: zbarimg != nil || ServiceProcessTests.toolsRequired, "zbarimg is not installed (bash .ci/run --setup installs zbar-tools)"))
    func linkQRDrawsTheConfiguredStyleAndItsOptions() async throws {
        _ = try #require(Self.zbarimg, "zbarimg is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let directory = try ServiceProcessTests.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("db.sqlite").path
        try ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="5" fill="#e53935"/></svg>"##
            .write(to: directory.appendingPathComponent("logo.svg"), atomically: true, encoding: .utf8)
        let example = try String(contentsOf: CLITests.root.appendingPathComponent("Sources/LinkService/Resources/example-config.yaml"), encoding: .utf8)
        let config = directory.appendingPathComponent("switchyard.yaml")
        try (example + "\nqr: {foreground: \"#1a237e\", background: \"#fff8e1\", logo: logo.svg}\n").write(to: config, atomically: true, encoding: .utf8)
        let export = directory.appendingPathComponent("links.csv")
        try "code,deepLink\nspring26,plur://group/spring\n".write(to: export, atomically: true, encoding: .utf8)
        let imported = try await CLITests.run(["import", "csv", export.path, "--database", database, "--config", config.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let url = "https://rabble.community/i/spring26"

        let branded = directory.appendingPathComponent("branded.png")
        let r = try await CLITests.run(["link", "qr", "spring26", "-o", branded.path, "--config", config.path, "--database", database])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.read(branded) == url)
        let svg = directory.appendingPathComponent("branded.svg")
        #expect(try await CLITests.run(["link", "qr", "spring26", "-o", svg.path, "--config", config.path, "--database", database]).status == 0)
        let text = try String(contentsOf: svg, encoding: .utf8)
        #expect(text.contains(##"fill="#1a237e""##) && text.contains("data:image/svg+xml;base64,"))

        let plain = directory.appendingPathComponent("plain.png")
        let p = try await CLITests.run(["link", "qr", "spring26", "-o", plain.path, "--logo", "none", "--error-correction", "L", "--background", "#ffffff",
                                        "--margin", "2", "--config", config.path, "--database", database])
        #expect(p.status == 0, "\(p.stderr)")
        #expect(try Self.read(plain) == url)
        #expect(try Data(contentsOf: plain) != Data(contentsOf: branded))

        let refused = directory.appendingPathComponent("refused.png")
        for (arguments, words) in [
            (["--background", "3949ab"], "--background: foreground #1a237e on background #3949ab has a contrast of"),
            (["--error-correction", "M"], "--error-correction: a code with a logo is drawn at level H"),
            (["--margin", "40"], "--margin: margin must be a whole number of modules from 1 to 16"),
            (["--logo", directory.appendingPathComponent("nosuch.png").path], "--logo: cannot read"),
            (["--logo", config.path], "the file is neither a PNG nor an SVG"),
        ] {
            let run = try await CLITests.run(["link", "qr", "spring26", "-o", refused.path] + arguments + ["--config", config.path, "--database", database])
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains(words), "\(arguments): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: refused.path))
        }
    }
}
