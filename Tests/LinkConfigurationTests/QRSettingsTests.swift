import SwitchyardTestSupport
import Foundation
import LinkConfiguration
import SwitchyardCore
import SwitchyardDocuments
import SwitchyardQR
import Testing

/// A domain's `qr` section: its colours, margin, level and logo file read once, with every
/// mistake refused at load with its key (under `domains[i]` in a domains list).
@Suite struct QRSettingsTests {
    static let app = "hosts: [rabble.community]\napple: [{teamId: ABCDE12345, bundleId: community.rabble.plur, scheme: plur}]\nroutes: []\n"

    /// A directory with `logo.svg` (a red rounded square) and `empty.svg`.
    static func logos() throws -> String {
        let directory = TestTemporary.root.appendingPathComponent("qr-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" rx="2" fill="#e53935"/></svg>"##
            .write(to: directory.appendingPathComponent("logo.svg"), atomically: true, encoding: .utf8)
        try "".write(to: directory.appendingPathComponent("empty.svg"), atomically: true, encoding: .utf8)
        return directory.path
    }

    static func read(_ yaml: String, in directory: String? = nil) throws -> ServiceConfiguration {
        try ServiceConfiguration(document: try StructuredDocument.parse(yaml: yaml), relativeTo: directory)
    }

    @Test func aStyleIsReadWithItsLogoRelativeToTheConfiguration() throws {
        let directory = try Self.logos()
        let plain = try Self.read(Self.app)
        #expect(plain.qrStyle == QRStyle())
        let branded = try Self.read(Self.app + "qr: {foreground: \"#1A237E\", background: fff8e1, margin: 2, logo: logo.svg}", in: directory)
        #expect(branded.qrStyle.foreground.description == "#1a237e" && branded.qrStyle.background.description == "#fff8e1")
        #expect(branded.qrStyle.margin == 2 && branded.qrStyle.logo?.format == .svg && branded.qrStyle.encodingLevel == .h)
        let h = try Self.read(Self.app + "qr: {errorCorrection: h, logo: \(directory)/logo.svg}")
        #expect(h.qrStyle.level == .h && h.qrStyle.logo != nil)
        // Each domain of a list has its own style.
        let two = try Self.read("""
            domains:
              - {name: plur, hosts: [rabble.community], apple: [{teamId: ABCDE12345, bundleId: a.b}], routes: [], qr: {foreground: "#1a237e"}}
              - {name: shop, hosts: [go.shop.example], apple: [{teamId: FGHIJ67890, bundleId: x.y}], routes: []}
            """)
        #expect(two.servedDomains.map(\.qrStyle.foreground.description) == ["#1a237e", "#000000"])
    }

    @Test(arguments: [
        ("qr: {foreground: navy}", "qr.foreground: \"navy\" is not a colour; write it #rrggbb (or #rgb)"),
        ("qr: {background: \"#12345\"}", "qr.background: \"#12345\" is not a colour"),
        ("qr: {margin: 0}", "qr.margin: 0 is outside 1–16 modules"),
        ("qr: {margin: 17}", "qr.margin: 17 is outside 1–16 modules"),
        ("qr: {margin: 2.5}", "qr.margin: expected"),
        ("qr: {errorCorrection: X}", "qr.errorCorrection: \"X\" is not a level; write L, M, Q or H"),
        ("qr: {foreground: \"#aaaaaa\"}", "qr: foreground #aaaaaa on background #ffffff has a contrast of 2.32:1, below the 3:1 a camera needs"),
        ("qr: {foreground: \"#ffffff\", background: \"#000000\"}", "qr: foreground #ffffff is lighter than background #000000"),
        ("qr: {logo: missing.png}", "qr.logo: cannot read '"),
        ("qr: {logo: empty.svg}", "qr.logo: "),
        ("qr: {logo: logo.svg, errorCorrection: M}", "qr.errorCorrection: M with a logo; a code with a logo is drawn at level H"),
        ("qr: {colour: red}", "qr.colour: unknown key"),
    ] as [(String, String)])
    func mistakesAreRefusedWithTheirKey(section: String, message: String) throws {
        let directory = try Self.logos()
        #expect {
            _ = try Self.read(Self.app + section, in: directory)
        } throws: { error in
            let text = (error as? ConfigurationError)?.message ?? "\(error)"
            let ok = text.hasPrefix(message) || (message.hasSuffix("unknown key") && text.contains(message))
            if !ok { Issue.record("\(text)") }
            if section.contains("empty.svg") && !text.hasSuffix("empty.svg: the file is empty") { Issue.record("\(text)") }
            return ok
        }
        // In a domains list the same mistake is named under its domain.
        let listed = "domains:\n  - name: plur\n" + (Self.app + section).split(separator: "\n").map { "    " + $0 }.joined(separator: "\n")
        #expect {
            _ = try Self.read(listed, in: directory)
        } throws: { error in
            let text = (error as? ConfigurationError)?.message ?? "\(error)"
            let ok = text.hasPrefix("domains[0]." + message) || text.hasPrefix("domains[0]: " + message.dropFirst(4)) || text.contains("domains[0].qr")
            if !ok { Issue.record("listed: \(text)") }
            return ok
        }
    }
}
