import SwitchyardTestSupport
import SwitchyardCore
import AssociatedDomains
import Foundation
import Testing

@Suite struct PlistTests {
    static func temp() throws -> URL {
        let dir = TestTemporary.root.appendingPathComponent("switchyard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func writePlist(_ value: [String: Any], to url: URL, binary: Bool) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: value, format: binary ? .binary : .xml, options: 0)
        try data.write(to: url)
    }

    static let aasa = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "*"}]}]}, "webcredentials": {"apps": []}}"#

    @Test(arguments: [false, true])
    func infoPlistAndEntitlements(binary: Bool) throws {
        let dir = try Self.temp()
        let info = dir.appendingPathComponent("Info.plist")
        try Self.writePlist([
            "CFBundleIdentifier": "com.example.app",
            "CFBundleURLTypes": [["CFBundleURLSchemes": ["myapp", "https", "1bad"]]],
            "LSApplicationQueriesSchemes": (0..<51).map { "s\($0)" },
        ], to: info, binary: binary)
        let ent = dir.appendingPathComponent("App.entitlements")
        try Self.writePlist([
            "application-identifier": "ABCDE12345.com.example.app",
            "com.apple.developer.associated-domains": ["applinks:example.com", "webcredentials:example.com?mode=developer", "applinks:https://bad.example/path", "links:example.com"],
        ], to: ent, binary: binary)
        let aasa = try AppSiteAssociation(json: Self.aasa)
        let findings = PlistCheck.check(infoPlist: info.path, entitlements: ent.path, aasa: aasa)
        let got = findings.map { "\($0.code) @ \($0.path)" }
        #expect(got.contains("reserved-scheme @ Info.plist:CFBundleURLTypes[0].CFBundleURLSchemes[1]"))
        #expect(got.contains("invalid-scheme @ Info.plist:CFBundleURLTypes[0].CFBundleURLSchemes[2]"))
        #expect(got.contains("too-many-query-schemes @ Info.plist:LSApplicationQueriesSchemes"))
        #expect(got.contains("developer-mode @ entitlements:com.apple.developer.associated-domains[1]"))
        #expect(got.contains("invalid-associated-domain @ entitlements:com.apple.developer.associated-domains[2]"))
        #expect(got.contains("invalid-associated-domain @ entitlements:com.apple.developer.associated-domains[3]"))
        #expect(got.contains("app-not-in-webcredentials @ aasa.webcredentials"))
        #expect(!got.contains { $0.hasPrefix("app-not-in-aasa") })
        // A different team: the AASA does not list the app.
        try Self.writePlist(["application-identifier": "ZZZZZ99999.com.example.app", "com.apple.developer.associated-domains": ["applinks:example.com"]], to: ent, binary: binary)
        #expect(PlistCheck.check(infoPlist: info.path, entitlements: ent.path, aasa: aasa).contains { $0.code == .appNotInAasa })
        // No entitlements: the bundle ID alone matches, and the check says that is all it compared.
        let withoutTeam = PlistCheck.check(infoPlist: info.path, aasa: aasa).filter { $0.path == "aasa" }
        #expect(withoutTeam.map(\.code) == [.teamIDUnknown] && withoutTeam.first?.severity == .warning, "\(withoutTeam)")
        let broken = dir.appendingPathComponent("broken.plist")
        try Data("<plist><dict><key>x".utf8).write(to: broken)
        #expect(PlistCheck.check(infoPlist: broken.path).first?.code == .plistSyntax)
    }
}
