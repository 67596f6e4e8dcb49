import Foundation
import SwitchyardCore
import SwitchyardGeo
import SwitchyardTestSupport
import Testing

/// MaxMind-format databases the tests write themselves (Debian's libmaxmind-db-writer-perl),
/// IPv4 and IPv6, and damaged ones.
@Suite struct GeoDatabaseTests {
    static var writerInstalled: Bool { MMDBWriter.installed }
    static var required: Bool { ProcessInfo.processInfo.environment["SWITCHYARD_REQUIRE_TOOLS"] != nil }

    /// Writes a database with the test networks (IPv6 ones too when `ipVersion` is 6); its path.
    static func write(ipVersion: Int = 6) throws -> String {
        try MMDBWriter.write(MMDBWriter.testNetworks(ipVersion: ipVersion))
    }

    @Test(.enabled(if: writerInstalled || required, "libmaxmind-db-writer-perl is not installed (bash .ci/run --setup installs it)"))
    func addressesAreFoundWithTheirNetworkAndPlace() throws {
        let geo = try GeoDatabase(path: try Self.write())
        #expect(geo.ipVersion == 6 && geo.databaseType == "Switchyard-Test-City")
        let london = try geo.lookup("81.2.69.170")
        #expect(london == .init(address: "81.2.69.170", network: "81.2.69.160/27", continent: "EU", country: "GB", subdivisions: ["ENG", "LND"], city: "London"))
        #expect(try geo.lookup("2001:db8:1ff::1") == .init(address: "2001:db8:1ff::1", network: "2001:db8:100::/40", continent: "NA", country: "US", subdivisions: ["CA"], city: "San Francisco"))
        // A country-only record: no subdivision, no city.
        #expect(try geo.lookup("198.51.100.7") == .init(address: "198.51.100.7", network: "198.51.100.0/24", continent: "EU", country: "DE", subdivisions: [], city: nil))
        // Not in the file: nothing, and no network.
        #expect(try geo.lookup("192.0.2.1") == .init(address: "192.0.2.1", network: nil, continent: nil, country: nil, subdivisions: [], city: nil))
        // The IPv4 networks of an IPv6 tree are found through ::ffff:0:0/96 too.
        #expect(try geo.lookup("::ffff:81.2.69.170").country == "GB")
        for bad in ["", "example.com", "81.2.69", "1.2.3.4.5", "::g", "81.2.69.170\n", "localhost", String(repeating: "1", count: 100)] {
            let error = #expect(throws: GeoError.self) { try geo.lookup(bad) }
            #expect(error?.code == .invalidAddress, "\(bad.debugDescription)")
        }
    }

    @Test(.enabled(if: writerInstalled || required, "libmaxmind-db-writer-perl is not installed"))
    func anIPv4FileRefusesIPv6Addresses() throws {
        let geo = try GeoDatabase(path: try Self.write(ipVersion: 4))
        let london = try geo.lookup("81.2.69.161")
        #expect(geo.ipVersion == 4 && london.city == "London")
        let error = #expect(throws: GeoError.self) { try geo.lookup("2001:db8:100::1") }
        #expect(error?.code == .invalidDatabase && error?.message.contains("IPv6") == true, "\(String(describing: error))")
    }

    /// A missing, empty, truncated or garbled file is refused when opened, saying which and why.
    @Test(.enabled(if: writerInstalled || required, "libmaxmind-db-writer-perl is not installed"))
    func damagedFilesAreRefusedWithThePathAndTheReason() throws {
        let good = try Self.write()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        func file(_ data: Data) throws -> String {
            let path = TestTemporary.root.appendingPathComponent("geo-bad-\(UUID().uuidString).mmdb").path
            try data.write(to: URL(fileURLWithPath: path))
            return path
        }
        var garbled = bytes
        for i in stride(from: 0, to: min(400, garbled.count), by: 1) { garbled[i] ^= 0x5A }   // the search tree
        let cases: [(String, String)] = [
            ("/nonexistent/geo.mmdb", "no such file"),
            (try file(Data()), "not a usable MaxMind database"),
            (try file(bytes.prefix(bytes.count / 2)), "not a usable MaxMind database"),
            (try file(Data("not a database at all\n".utf8)), "not a usable MaxMind database"),
            (try file(garbled), "search tree is corrupt"),
        ]
        for (path, words) in cases {
            let error = #expect(throws: GeoError.self) { _ = try GeoDatabase(path: path) }
            #expect(error?.code == .invalidDatabase && error?.message.hasPrefix(path + ": ") == true && error?.message.contains(words) == true,
                    "\(path): \(String(describing: error))")
        }
    }

    /// A file whose metadata is whole but whose data section is damaged is refused when opened
    /// (every record is read then), not found on the visits that land on the damage.
    @Test(.enabled(if: writerInstalled || required, "libmaxmind-db-writer-perl is not installed"))
    func aDamagedDataSectionIsRefusedWhenOpened() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Self.write())))
        let marker = Array("\u{AB}\u{CD}\u{EF}MaxMind.com".unicodeScalars.map { UInt8($0.value) })
        let metadata = try #require((0...(bytes.count - marker.count)).last { bytes[$0..<($0 + marker.count)].elementsEqual(marker) })
        // The records sit just before the metadata: overwrite the last ones.
        for i in (metadata - 60)..<metadata { bytes[i] = 0xFF }
        let path = TestTemporary.root.appendingPathComponent("damaged-\(UUID().uuidString).mmdb").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: GeoError.self) { try GeoDatabase(path: path) }
        #expect(error?.code == .invalidDatabase && error?.message.hasPrefix(path) == true, "\(String(describing: error))")
        #expect(throws: GeoError.self) { try GeoDatabase(snapshotOf: path) }
    }
}
