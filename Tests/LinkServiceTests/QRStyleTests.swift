import SwitchyardTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
@testable import LinkService
import SwitchyardCore
import SwitchyardQR
import Testing

/// Branded QR codes: colours, margins, error correction levels and logos, each drawn code read
/// back by zbarimg (SVGs after librsvg draws them into pixels).
@Suite struct QRStyleTests {
    static let url = "https://links.example.com/i/Spring-Sale-2026"

    /// A round, two-coloured PNG logo of `side` pixels with a transparent corner area.
    static func pngLogo(side: Int = 200) throws -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: side * side * 4)
        let centre = Double(side) / 2
        for y in 0..<side {
            for x in 0..<side {
                let d = ((Double(x) - centre) * (Double(x) - centre) + (Double(y) - centre) * (Double(y) - centre)).squareRoot()
                guard d < centre else { continue }
                let o = (y * side + x) * 4
                let inner = d < centre / 2
                rgba[o] = inner ? 0xE5 : 0x1A
                rgba[o + 1] = inner ? 0x39 : 0x23
                rgba[o + 2] = inner ? 0x35 : 0x7E
                rgba[o + 3] = 255
            }
        }
        return try QRCode.writePNG(rgba, width: side, height: side, channels: 4)
    }

    static let svgLogo = Array("""
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 60">\
        <rect x="2" y="2" width="96" height="56" rx="12" fill="#e53935"/>\
        <circle cx="50" cy="30" r="18" fill="#fff"/></svg>
        """.utf8)

    /// What zbarimg reads from an SVG once librsvg has drawn it into `side` pixels.
    static func decodeSVG(_ svg: String, side: Int = 600) async throws -> String {
        let pixels = try Raster.drawSVG(Array(svg.utf8), side: side)
        let png = try QRCode.writePNG(pixels, width: side, height: side, channels: 4)
        return try await QRCodeTests.decode(png, suffix: "png")
    }

    @Test func coloursAreReadAndTheirContrastIsWCAGs() throws {
        #expect(QRStyle.Colour("#1A237E")?.description == "#1a237e")
        #expect(QRStyle.Colour("abc")?.description == "#aabbcc")
        for bad in ["", "#", "#12", "#12345", "#1234567", "#ggg000", "red", "#-12345"] { #expect(QRStyle.Colour(bad) == nil, "\(bad)") }
        #expect(abs(QRStyle.Colour.black.contrast(with: .white) - 21) < 0.001)
        // #777777 on white is WCAG's classic 4.48:1.
        #expect(abs(QRStyle.Colour("#777777")!.contrast(with: .white) - 4.48) < 0.01)

        var style = QRStyle()
        #expect(style.problem == nil)
        style.foreground = QRStyle.Colour("#aaaaaa")!
        #expect(style.problem?.contains("contrast of 2.32:1, below the 3:1") == true)
        style.foreground = .white
        style.background = .black
        #expect(style.problem?.contains("lighter than background") == true)
        style = QRStyle()
        style.margin = 0
        #expect(style.problem?.contains("margin 0 is outside 1–16") == true)
    }

    @Test(.enabled(if: QRCodeTests.zbarimg != nil || Backend.toolsRequired, "zbarimg is not installed (bash .ci/run --setup installs zbar-tools)"))
    func everyStyledPNGReadsBackAsItsURL() async throws {
        _ = try #require(QRCodeTests.zbarimg, "zbarimg is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let png = try QRLogo(data: Self.pngLogo())
        let svg = try QRLogo(data: Self.svgLogo)
        #expect(png.format == .png && png.width == 200)
        #expect(svg.format == .svg && svg.width == QRLogo.svgPixels)
        var styles: [(String, QRStyle)] = []
        for level in QRStyle.Level.allCases {
            var s = QRStyle()
            s.level = level
            styles.append(("level \(level.rawValue)", s))
        }
        for margin in [1, 2, 16] {
            var s = QRStyle()
            s.margin = margin
            styles.append(("margin \(margin)", s))
        }
        var navy = QRStyle()
        navy.foreground = QRStyle.Colour("#1a237e")!
        navy.background = QRStyle.Colour("#fff8e1")!
        styles.append(("navy on cream", navy))
        // Just above the limit: #949494 on white is 3.03:1.
        var grey = QRStyle()
        grey.foreground = QRStyle.Colour("#949494")!
        #expect(grey.problem == nil)
        styles.append(("grey at 3:1", grey))
        for (name, logo) in [("PNG logo", png), ("SVG logo", svg)] {
            var s = navy
            s.logo = logo
            #expect(s.encodingLevel == .h)
            styles.append((name, s))
        }
        // A short URL (a small symbol, where a logo hides most) and a long one (a large symbol,
        // with alignment patterns under the logo); SVGs of the styles an SVG draws differently.
        let texts = ["https://l.example/a", "https://links.example.com/i/" + String(repeating: "q", count: 200)]
        for text in texts {
            for (name, style) in styles {
                let qr = try QRCode(encoding: text, level: style.encodingLevel)
                #expect(qr.level == style.encodingLevel)
                let image = try qr.png(scale: 6, style: style)
                #expect(try await QRCodeTests.decode(image, suffix: "png") == text, "\(name), \(text.count) characters")
                if style.logo != nil || style.margin == 1 || style.foreground != .black {
                    #expect(try await Self.decodeSVG(qr.svg(style: style)) == text, "\(name) as SVG, \(text.count) characters")
                }
            }
        }
    }

    @Test func aLogoClearsTheCentreAndIsDrawnInIt() throws {
        var style = QRStyle()
        style.logo = try QRLogo(data: Self.pngLogo())
        let qr = try QRCode(encoding: Self.url, level: .h)
        let box = qr.logoModules
        #expect(box.side % 2 == 1 && box.start * 2 + box.side == qr.width)
        #expect(Double(box.side) / Double(qr.width) <= 0.25)
        let svg = qr.svg(style: style)
        #expect(svg.contains(#"href="data:image/png;base64,"#))
        // The PNG's centre pixel is the logo's inner red, a module outside the box the foreground or background.
        let scale = 4
        let image = try QRCode(encoding: Self.url, level: .h).png(scale: scale, style: style)
        let side = qr.pixels(scale: scale)
        let pixels = try Raster.decodePNG(image, maximumSide: 4096)
        #expect(pixels.width == side)
        let centre = (side / 2 * side + side / 2) * 4
        #expect(Array(pixels.rgba[centre..<centre + 3]) == [0xE5, 0x39, 0x35])
        // Without the logo the same centre is a module: black or white.
        let plain = try Raster.decodePNG(try qr.png(scale: scale), maximumSide: 4096)
        let grey = plain.rgba[centre]
        #expect(grey == 0 || grey == 255)
    }

    @Test func logosThatCannotBeUsedAreRefusedWithTheReason() throws {
        func refusal(_ bytes: [UInt8]) -> String? {
            do { _ = try QRLogo(data: bytes); return nil } catch { return error.code == .qrLogoInvalid ? error.message : "code \(error.code)" }
        }
        #expect(refusal([]) == "the file is empty")
        #expect(refusal(Array("hello, world".utf8)) == "the file is neither a PNG nor an SVG")
        #expect(refusal([UInt8](repeating: 0x20, count: QRLogo.maximumBytes + 1))?.contains("at most 262144") == true)
        // A PNG whose header claims more pixels than a logo may have is refused before decoding.
        let huge = try QRCode.writePNG([UInt8](repeating: 0, count: 1100 * 2), width: 1100, height: 2, channels: 1)
        #expect(refusal(huge) == "the PNG is 1100×2 pixels; a logo may be at most 1024×1024")
        var truncated = try Self.pngLogo()
        truncated.removeLast(truncated.count / 2)
        #expect(refusal(truncated)?.hasPrefix("the PNG does not decode (libpng:") == true)
        #expect(refusal(Array(#"<svg xmlns="http://www.w3.org/2000/svg"><rect"#.utf8))?.hasPrefix("the SVG does not parse") == true)
        #expect(refusal(Array(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>"#.utf8))?.hasPrefix("the SVG draws nothing") == true)
        let clear = try QRCode.writePNG([UInt8](repeating: 0, count: 8 * 8 * 4), width: 8, height: 8, channels: 4)
        #expect(refusal(clear)?.hasPrefix("the PNG is wholly transparent") == true)
        // An SVG's references to files are never followed: only what the file itself holds is drawn.
        let external = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><image href="file:///etc/hostname" width="10" height="10"/></svg>"#
        #expect(refusal(Array(external.utf8))?.hasPrefix("the SVG draws nothing") == true)
    }

    @Test func optionsOverAStyleAreCheckedAndNamed() throws {
        var branded = QRStyle()
        branded.foreground = QRStyle.Colour("#1a237e")!
        branded.logo = try QRLogo(data: Self.svgLogo)
        let plain = try branded.overriding(["logo": "none", "errorCorrection": "l", "margin": "2", "background": "fff8e1"])
        #expect(plain.logo == nil && plain.level == .l && plain.margin == 2 && plain.background.description == "#fff8e1" && plain.foreground == branded.foreground)
        func refused(_ options: [String: String]) -> (String, String)? {
            do { _ = try branded.overriding(options); return nil } catch { return (error.option, error.message) }
        }
        #expect(refused(["foreground": "navy"])?.0 == "foreground")
        #expect(refused(["margin": "0"])?.0 == "margin")
        #expect(refused(["margin": "4.5"])?.0 == "margin")
        #expect(refused(["logo": "https://evil.example/logo.png"])?.0 == "logo")
        #expect(refused(["errorCorrection": "M"])?.1.contains("ask for logo=none") == true)
        #expect(refused(["errorCorrection": "X"])?.0 == "errorCorrection")
        #expect(refused(["background": "#3949ab"])?.0 == "background")
        #expect(refused(["background": "#3949ab"])?.1.contains("contrast of") == true)
        #expect(refused(["foreground": "#ffffff", "background": "#000000"])?.1.contains("lighter than background") == true)
        // The same options give the same key; another option another key.
        #expect(try branded.overriding(["margin": "2"]).key == (try branded.overriding(["margin": "2"])).key)
        #expect(try branded.overriding(["margin": "2"]).key != branded.key)
    }

    /// The service draws each domain's style, with a request's options over it; options that are
    /// not values, or that would give a code phones read badly, are 400 naming the option.
    @Test(.enabled(if: QRCodeTests.zbarimg != nil || Backend.toolsRequired, "zbarimg is not installed (bash .ci/run --setup installs zbar-tools)"))
    func theServiceDrawsTheDomainsStyleWithARequestsOptions() async throws {
        _ = try #require(QRCodeTests.zbarimg, "zbarimg is required here (SWITCHYARD_REQUIRE_TOOLS is set)")
        let logo = TestTemporary.root.appendingPathComponent("logo-\(UUID().uuidString).svg")
        try Data(Self.svgLogo).write(to: logo)
        let h = try await Harness.make(extra: "qr: {foreground: \"#1a237e\", background: \"#fff8e1\", logo: \(logo.path)}\n")
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/q"}"#)
            let code = try #require(created.json?["code"]?.stringValue)
            let url = try #require(created.json?["url"]?.stringValue)
            func get(_ path: String) async throws -> (HTTPResponse.Status, [UInt8]) {
                try await client.execute(uri: path, method: .get) { ($0.status, Array(buffer: $0.body)) }
            }
            let branded = try await get("/i/\(code)/qr.png?size=400")
            #expect(branded.0 == .ok)
            #expect(try await QRCodeTests.decode(branded.1, suffix: "png") == url)
            let pixels = try Raster.decodePNG(branded.1, maximumSide: 4096)
            let centre = (pixels.height / 2 * pixels.width + pixels.width / 2) * 4
            // The logo is in the middle: its white circle, and its red beside it (a logo a fifth of
            // the symbol wide, the circle a fifth of the logo); the corner is the cream background.
            #expect(Array(pixels.rgba[centre..<centre + 3]) == [0xFF, 0xFF, 0xFF])
            let beside = centre - Int(Double(pixels.width) * 0.045) * 4
            #expect(Array(pixels.rgba[beside..<beside + 3]) == [0xE5, 0x39, 0x35])
            #expect(Array(pixels.rgba[0..<3]) == [0xFF, 0xF8, 0xE1])
            let svg = String(decoding: try await get("/i/\(code)/qr.svg").1, as: UTF8.self)
            #expect(svg.contains(##"fill="#1a237e""##) && svg.contains(##"fill="#fff8e1""##) && svg.contains("data:image/svg+xml;base64,"))
            #expect(try await Self.decodeSVG(svg) == url)

            // Options over the style: without the logo at level L, on white, with a margin of 1.
            let plain = try await get("/i/\(code)/qr.png?size=400&logo=none&errorCorrection=L&background=%23ffffff&margin=1")
            #expect(plain.0 == .ok && plain.1 != branded.1)
            #expect(try await QRCodeTests.decode(plain.1, suffix: "png") == url)
            let plainPixels = try Raster.decodePNG(plain.1, maximumSide: 4096)
            #expect(Array(plainPixels.rgba[0..<3]) == [0xFF, 0xFF, 0xFF])
            // The SVG is a document of its own: it may show its embedded logo and nothing else.
            let served = try await client.execute(uri: "/i/\(code)/qr.svg", method: .get) { $0.headers }
            #expect(served[HTTPField.Name("Content-Security-Policy")!] == "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
            #expect(served[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(try await client.call(.get, "/i/\(code)/qr.svg?size=100").json?.at("error.code")?.stringValue == "invalid-size")
            // Kept apart from the branded image: asking again for the branded one gives it.
            #expect(try await get("/i/\(code)/qr.png?size=400").1 == branded.1)

            for (query, option, words) in [
                ("errorCorrection=M", "errorCorrection", "ask for logo=none"),
                ("background=3949ab", "background", "contrast of"),
                ("foreground=ffffff&background=000000", "foreground", "lighter than background"),
                ("margin=0", "margin", "from 1 to 16"),
                ("foreground=navy", "foreground", "is not a colour"),
                ("logo=https%3A%2F%2Fevil.example%2Fx.png", "logo", "takes only none"),
                ("foreground=000000&foreground=ffffff", "foreground", "given more than once"),
            ] {
                let refused = try await client.call(.get, "/i/\(code)/qr.svg?\(query)")
                #expect(refused.status == .badRequest, "\(query)")
                #expect(refused.json?.at("error.code")?.stringValue == "invalid-qr-style", "\(query)")
                #expect(refused.json?.at("error.field")?.stringValue == option, "\(query): \(refused.text)")
                #expect(refused.json?.at("error.message")?.stringValue?.contains(words) == true, "\(query): \(refused.text)")
            }
        }
    }
}
