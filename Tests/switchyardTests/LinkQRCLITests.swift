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
}
