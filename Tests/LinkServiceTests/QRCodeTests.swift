import SwitchyardTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import SwitchyardQR
import Testing

/// QR codes of links, drawn by libqrencode and libpng, read back by an independent decoder
/// (zbarimg, Debian zbar-tools).
@Suite struct QRCodeTests {
    static let zbarimg: String? = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// What zbarimg reads from `bytes` (a PNG or SVG file's content).
    static func decode(_ bytes: [UInt8], suffix: String) async throws -> String {
        let zbarimg = try #require(zbarimg)
        return try await blocking { try decodeBlocking(zbarimg, bytes, suffix: suffix) }
    }

    static func decodeBlocking(_ zbarimg: String, _ bytes: [UInt8], suffix: String) throws -> String {
        let file = TestTemporary.root.appendingPathComponent("qr-\(UUID().uuidString).\(suffix)")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: zbarimg)
        process.arguments = ["-q", "--raw", file.path]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    @Test(.enabled(if: zbarimg != nil || Backend.toolsRequired, "zbarimg is not installed (bash .ci/run --setup installs zbar-tools)"))
    func pngsOfManyTextsReadBackAsTheirText() async throws {
        _ = try #require(Self.zbarimg, "zbarimg is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let texts = [
            "https://rabble.community/i/abc123",
            "https://links.example.com/i/" + String(repeating: "x", count: 300),
            "https://example.com/ü/😀?q=a&b=c#frag",
            "plur://join-community?group-id=g&code=c&relay=wss%3A%2F%2Frelay.example",
        ]
        for text in texts {
            let qr = try QRCode(encoding: text)
            for scale in [1, 3, 8] {
                let png = try qr.png(scale: scale)
                #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
                // At one pixel per module a decoder may struggle; from three it must read.
                if scale >= 3 { #expect(try await Self.decode(png, suffix: "png") == text, "scale \(scale)") }
            }
        }
    }

    @Test func theSymbolHasItsFinderPatternsAndQuietZone() throws {
        let qr = try QRCode(encoding: "https://rabble.community/i/abc123")
        #expect(qr.width >= 21 && (qr.width - 21) % 4 == 0)
        // The three 7×7 finder patterns: dark ring, light ring, dark 3×3 centre.
        for (ox, oy) in [(0, 0), (qr.width - 7, 0), (0, qr.width - 7)] {
            for y in 0..<7 {
                for x in 0..<7 {
                    let ring = max(abs(x - 3), abs(y - 3))
                    #expect(qr.isDark(x: ox + x, y: oy + y) == (ring != 2), "finder at \(ox),\(oy): \(x),\(y)")
                }
            }
        }
        #expect(qr.pixels(scale: 5) == (qr.width + 8) * 5)
        #expect(qr.scale(fitting: 10) == QRCode.minimumScale, "never one pixel per module")
        let svg = qr.svg()
        #expect(svg.contains(#"viewBox="0 0 \#(qr.width + 8) \#(qr.width + 8)""#))
        #expect(throws: QRCode.EncodingError.self) { try QRCode(encoding: String(repeating: "a", count: 5_000)) }
        #expect(throws: QRCode.EncodingError.self) { try QRCode(encoding: "") }
        #expect(throws: QRCode.EncodingError.self) { try qr.png(scale: 0) }
    }

    @Test(.enabled(if: zbarimg != nil || Backend.toolsRequired, "zbarimg is not installed (bash .ci/run --setup installs zbar-tools)"))
    func theServiceDrawsALinksPageURLWithoutUsingTheLink() async throws {
        _ = try #require(Self.zbarimg, "zbarimg is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/q", "maxUses": 1, "expiresIn": 600}"#)
            let code = try #require(created.json?["code"]?.stringValue)
            let url = try #require(created.json?["url"]?.stringValue)
            #expect(url == "https://rabble.community/i/\(code)")

            let png = try await client.execute(uri: "/i/\(code)/qr.png?size=300", method: .get) { ($0.status, $0.headers, Array(buffer: $0.body)) }
            #expect(png.0 == .ok)
            #expect(png.1[.contentType] == "image/png")
            #expect(try await Self.decode(png.2, suffix: "png") == url)
            // The smallest size still scans (never one pixel per module); an empty size is the default.
            let smallest = try await client.execute(uri: "/i/\(code)/qr.png?size=\(LinkService.qrSizes.lowerBound)", method: .get) { Array(buffer: $0.body) }
            #expect(try await Self.decode(smallest, suffix: "png") == url)
            let unsized = try await client.execute(uri: "/i/\(code)/qr.png?size=", method: .get) { ($0.status, Array(buffer: $0.body)) }
            let standard = try await client.execute(uri: "/i/\(code)/qr.png", method: .get) { Array(buffer: $0.body) }
            #expect(unsized.0 == .ok && unsized.1 == standard)
            // HEAD gives the headers alone.
            let head = try await client.execute(uri: "/i/\(code)/qr.svg", method: .head) { ($0.status, $0.body.readableBytes) }
            #expect(head.0 == .ok && head.1 == 0)
            let svg = try await client.execute(uri: "/i/\(code)/qr.svg", method: .get) { ($0.status, $0.headers, String(buffer: $0.body)) }
            #expect(svg.0 == .ok)
            #expect(svg.1[.contentType] == "image/svg+xml")
            #expect(svg.2.hasPrefix("<?xml") && svg.2.contains("<svg"))

            // Drawing the code neither counts a click nor uses the link's one use.
            try await h.service.flushClicks()
            #expect(try await h.store.link(code: code)?.clicks == 0)
            #expect(try await client.call(.get, "/i/\(code)").status == .ok)
            #expect(try await client.call(.get, "/i/\(code)").status == .gone)

            #expect(try await client.call(.get, "/i/\(code)/qr.png?size=10").json?.at("error.code")?.stringValue == "invalid-size")
            #expect(try await client.call(.get, "/i/\(code)/qr.png?size=99999").status == .badRequest)
            #expect(try await client.call(.get, "/i/nosuchcode/qr.svg").status == .notFound)
            h.clock.advance(601)
            #expect(try await client.call(.get, "/i/\(code)/qr.svg").status == .gone)
        }
    }
}
