import LinkConfiguration
import SwitchyardCore
import Testing

/// The host of `service.publicURL` as browsers send it: ASCII, a punycode host kept as written
/// (not the Unicode one `URLComponents` decodes it to on Linux), for the redirect hosts and for
/// `serve`'s warning about a publicURL off the route table's hosts.
@Suite struct PublicURLTests {
    static func configuration(hosts: [String], publicURL: String) throws -> ServiceConfiguration {
        let document = try JSONParser.parse("""
            {"apple": [{"teamId": "ABCDE12345", "bundleId": "com.example.app"}],
             "hosts": [\(hosts.map(JSONWriter.quote).joined(separator: ", "))],
             "routes": [{"name": "item", "pattern": "/items/{id:int}"}],
             "service": {"publicURL": \(JSONWriter.quote(publicURL))}}
            """)
        return try ServiceConfiguration(document: document)
    }

    @Test func thePublicHostIsTheASCIIHostBrowsersSend() throws {
        let punycode = try Self.configuration(hosts: ["xn--bcher-kva.example"], publicURL: "https://xn--bcher-kva.example")
        #expect(punycode.publicHost == "xn--bcher-kva.example")
        #expect(punycode.allowedRedirectHosts.contains("xn--bcher-kva.example") && !punycode.allowedRedirectHosts.contains("bücher.example"))
        #expect(punycode.servingWarnings.isEmpty, "\(punycode.servingWarnings)")
        let elsewhere = try Self.configuration(hosts: ["links.example.com"], publicURL: "https://Go.Example.NET:8443")
        #expect(elsewhere.publicHost == "go.example.net" && elsewhere.allowedRedirectHosts.contains("go.example.net"))
        #expect(elsewhere.servingWarnings.contains { $0.contains("put go.example.net in hosts") }, "\(elsewhere.servingWarnings)")
    }

    /// `service.connectionsPerAddress`: absent is the default (nil), 0 turns the share off, a
    /// negative number, a fraction or one too large to be read exactly is refused with the key.
    @Test func connectionsPerAddressIsReadAndChecked() throws {
        func read(_ value: String) throws -> ServiceConfiguration {
            try ServiceConfiguration(document: try JSONParser.parse("""
                {"apple": [{"teamId": "ABCDE12345", "bundleId": "com.example.app"}], "hosts": ["links.example.com"],
                 "routes": [{"name": "item", "pattern": "/items/{id:int}"}], "service": {\(value)}}
                """))
        }
        #expect(try read("").connectionsPerAddress == nil)
        #expect(try read(#""connectionsPerAddress": 0"#).connectionsPerAddress == 0)
        #expect(try read(#""connectionsPerAddress": 200"#).connectionsPerAddress == 200)
        #expect(throws: ConfigurationError("service.connectionsPerAddress: -1 is below 0; give 0 (no limit) or more connections")) { try read(#""connectionsPerAddress": -1"#) }
        #expect(throws: ConfigurationError("service.connectionsPerAddress: '1e30' is too large (a whole number here is below 2^53)")) { try read(#""connectionsPerAddress": 1e30"#) }
        #expect(throws: ConfigurationError("service.connectionsPerAddress: '9007199254740993' is too large (a whole number here is below 2^53)")) { try read(#""connectionsPerAddress": 9007199254740993"#) }
        #expect(throws: ConfigurationError("service.connectionsPerAddress: expected an integer, got 1.5")) { try read(#""connectionsPerAddress": 1.5"#) }
        #expect(try read(#""connectionsPerAddress": 9007199254740991"#).connectionsPerAddress == 9_007_199_254_740_991)
    }
}
