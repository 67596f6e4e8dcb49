import AssociatedDomains
import Foundation
import Hummingbird
import HummingbirdTesting
import LinkService
import SwitchyardJSON
import Testing

@Suite struct AssociationHostingTests {
    static func example() throws -> ServiceConfiguration {
        try ServiceConfiguration(contentsOf: try #require(ServiceConfiguration.examplePath))
    }

    static func app() async throws -> some ApplicationProtocol {
        try await Harness.make().app()
    }

    @Test(arguments: ["/.well-known/apple-app-site-association", "/apple-app-site-association"])
    func servesTheGeneratedAASA(_ path: String) async throws {
        try await Self.app().test(.router) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "public, max-age=3600")
                #expect(response.headers[.eTag] != nil)
                let bytes = Array(response.body.readableBytesView)
                #expect(AppSiteAssociation.validate(bytes: bytes).filter { $0.severity == .error }.isEmpty)
                let aasa = try AppSiteAssociation(bytes: bytes)
                #expect(aasa.decide("https://rabble.community/g/abc", for: "ABCDE12345.community.rabble.plur") == .match)
                #expect(aasa.webcredentials == ["ABCDE12345.community.rabble.plur"])
                #expect(aasa.appclips == ["ABCDE12345.community.rabble.plur.Clip"])
            }
        }
    }

    @Test func etagGivesNotModified() async throws {
        try await Self.app().test(.router) { client in
            let etag = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get) { $0.headers[.eTag] }
            try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: [.ifNoneMatch: try #require(etag)]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    @Test func servesAssetLinksAndHealth() async throws {
        try await Self.app().test(.router) { client in
            try await client.execute(uri: "/.well-known/assetlinks.json", method: .get) { response in
                #expect(response.status == .ok)
                let (links, findings) = AssetLinks.validate(bytes: Array(response.body.readableBytesView))
                #expect(findings.filter { $0.severity == .error }.isEmpty)
                #expect(links?.statements.first?.relations == ["delegate_permission/common.handle_all_urls"])
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"status":"ok","database":"sqlite"}"# + "\n")
            }
            try await client.execute(uri: "/nope", method: .get) { #expect($0.status == .notFound) }
        }
    }

    @Test func liveSocket() async throws {
        try await Self.app().test(.live) { client in
            try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.location] == nil)
            }
        }
    }

    @Test func configurationErrorsSayWhere() throws {
        #expect(throws: ConfigurationError("apple[0]: \"TEAMID.com.example\" contains the placeholder \"TEAMID\"; put your real 10-character team ID (Membership details in the developer account) and bundle ID")) {
            try ServiceConfiguration(document: try JSONParser.parse(#"{"apple": [{"teamId": "TEAMID", "bundleId": "com.example"}], "hosts": ["e.com"], "routes": []}"#))
        }
        #expect(throws: ConfigurationError("routes[0].pattern: route a needs a pattern")) {
            try ServiceConfiguration(document: try JSONParser.parse(#"{"hosts": ["e.com"], "routes": [{"name": "a"}]}"#))
        }
    }
}
