import SwitchyardCore
import Testing
@testable import LinkRules

@Suite struct AddressGuardTests {
    struct Case: Sendable, CustomStringConvertible {
        let address: [UInt8]
        let isPublic: Bool
        let name: String
        var description: String { name }
    }

    static let v6Loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
    static func mapped(_ v4: [UInt8]) -> [UInt8] { Array(repeating: 0, count: 10) + [0xFF, 0xFF] + v4 }

    @Test(arguments: [
        Case(address: [127, 0, 0, 1], isPublic: false, name: "loopback"),
        Case(address: [10, 1, 2, 3], isPublic: false, name: "10/8"),
        Case(address: [172, 16, 0, 1], isPublic: false, name: "172.16/12"),
        Case(address: [172, 32, 0, 1], isPublic: true, name: "172.32 is public"),
        Case(address: [192, 168, 1, 1], isPublic: false, name: "192.168/16"),
        Case(address: [169, 254, 169, 254], isPublic: false, name: "link-local (cloud metadata)"),
        Case(address: [100, 64, 0, 1], isPublic: false, name: "CGNAT"),
        Case(address: [0, 0, 0, 0], isPublic: false, name: "unspecified"),
        Case(address: [224, 0, 0, 1], isPublic: false, name: "multicast"),
        Case(address: [93, 184, 216, 34], isPublic: true, name: "public v4"),
        Case(address: v6Loopback, isPublic: false, name: "::1"),
        Case(address: [0xFE, 0x80] + Array(repeating: 0, count: 13) + [1], isPublic: false, name: "fe80::1"),
        Case(address: [0xFD, 0x12] + Array(repeating: 0, count: 14), isPublic: false, name: "ULA fd12::"),
        Case(address: mapped([127, 0, 0, 1]), isPublic: false, name: "::ffff:127.0.0.1"),
        Case(address: mapped([8, 8, 8, 8]), isPublic: true, name: "::ffff:8.8.8.8"),
        Case(address: [0x26, 0x06, 0x28, 0x00] + Array(repeating: 0, count: 11) + [1], isPublic: true, name: "public v6"),
        Case(address: [0, 0x64, 0xFF, 0x9B] + Array(repeating: 0, count: 8) + [127, 0, 0, 1], isPublic: false, name: "64:ff9b::127.0.0.1"),
        Case(address: [0, 0x64, 0xFF, 0x9B] + Array(repeating: 0, count: 8) + [8, 8, 8, 8], isPublic: true, name: "64:ff9b::8.8.8.8"),
        Case(address: [0, 0x64, 0xFF, 0x9B, 0, 1] + Array(repeating: 0, count: 6) + [0x7F, 0, 0, 1], isPublic: false, name: "64:ff9b:1::7f00:1 (local-use NAT64)"),
        Case(address: [0, 0x64, 0xFF, 0x9B, 0, 1] + Array(repeating: 0, count: 6) + [8, 8, 8, 8], isPublic: false, name: "64:ff9b:1::808:808 (local use, whatever it embeds)"),
        Case(address: [0x20, 0x01, 0, 0] + Array(repeating: 0, count: 11) + [1], isPublic: false, name: "2001::1 Teredo"),
        Case(address: [0x01, 0x00] + Array(repeating: 0, count: 14), isPublic: false, name: "100:: discard-only"),
    ])
    func classifies(_ c: Case) {
        #expect(AddressGuard.isPublic(c.address) == c.isPublic)
    }

    @Test func resolvingLocalhostIsRefusedUnlessAllowed() throws {
        #expect(throws: FetchError.self) { try AddressGuard().resolve(host: "localhost", port: 80) }
        #expect(throws: FetchError.self) { try AddressGuard().resolve(host: "[::1]", port: 80) }
        #expect(try AddressGuard(allowPrivate: true).resolve(host: "127.0.0.1", port: 80) == "127.0.0.1")
    }

    @Test func offlineFetcherRefusesEverything() async {
        await #expect(throws: FetchError(code: ErrorCode("network-disabled"), message: "network access is disabled (offline); GET https://example.com/ was not sent")) {
            try await OfflineFetcher().fetch(FetchRequest(url: "https://example.com/"))
        }
    }
}
