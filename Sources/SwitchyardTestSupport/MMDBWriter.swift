import Foundation

/// Debian's libmaxmind-db-writer-perl, with which the tests write their own geo databases
/// (`Tests/SwitchyardGeoTests/Inputs/write-mmdb.pl`).
public enum MMDBWriter {
    /// Whether `perl` can load `MaxMind::DB::Writer::Tree`.
    public static let installed: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/perl")
        probe.arguments = ["-MMaxMind::DB::Writer::Tree", "-e", "1"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// The networks the tests know: 81.2.69.160/27 in London (GB, ENG and LND), 198.51.100.0/24
    /// in Germany (country only), and with IPv6 2001:db8:100::/40 in San Francisco (US, CA).
    public static func testNetworks(ipVersion: Int = 6) -> String {
        let v6 = ipVersion == 6
            ? #", {"network": "2001:db8:100::/40", "data": {"continent": {"code": "NA"}, "country": {"iso_code": "US"}, "subdivisions": [{"iso_code": "CA"}], "city": {"names": {"en": "San Francisco"}}}}"#
            : ""
        return """
            {"ip_version": \(ipVersion), "networks": [
             {"network": "81.2.69.160/27", "data": {"continent": {"code": "EU"}, "country": {"iso_code": "GB"}, "subdivisions": [{"iso_code": "ENG"}, {"iso_code": "LND"}], "city": {"names": {"en": "London"}}}},
             {"network": "198.51.100.0/24", "data": {"continent": {"code": "EU"}, "country": {"iso_code": "DE"}}}
             \(v6)
            ]}
            """
    }

    /// Writes a database of `networks` (the JSON `write-mmdb.pl` reads) to `path`, or to a new
    /// temporary file; its path.
    public static func write(_ networks: String = testNetworks(), to path: String? = nil) throws -> String {
        let out = path ?? TestTemporary.root.appendingPathComponent("geo-\(UUID().uuidString).mmdb").path
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Tests/SwitchyardGeoTests/Inputs/write-mmdb.pl").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/perl")
        process.arguments = [script, out]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(Data(networks.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: out]) }
        return out
    }
}
