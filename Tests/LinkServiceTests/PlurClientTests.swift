import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
import LinkConfiguration
import LinkRouting
import SwitchyardCore
import Testing

/// The Plur integration guide's client, as written: its Codable models decode our responses,
/// and every link form in its testing list works.
@Suite struct PlurClientTests {
    /// `registerNewInviteCode` decodes this from `POST /api/invite`.
    struct InviteResponse: Codable {
        let code: String
        let groupId: String
        let relay: String
    }

    /// The guide's model of the same response where only the link is needed.
    struct InviteCreateResponse: Codable {
        let code: String
        let url: String
    }

    @Test func theGuidesModelsDecodeTheInviteAPI() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let r = try await client.call(.post, "/api/invite", body: #"{"groupId": "g-7", "relay": "wss://relay.rabble.community"}"#,
                                          headers: [HTTPField.Name("X-Invite-Token")!: h.writer])
            #expect(r.status == .created)
            let data = Data(r.text.utf8)
            let invite = try JSONDecoder().decode(InviteResponse.self, from: data)
            let created = try JSONDecoder().decode(InviteCreateResponse.self, from: data)
            #expect(invite.groupId == "g-7" && invite.relay == "wss://relay.rabble.community")
            #expect(created.code == invite.code && created.url == "https://rabble.community/i/\(invite.code)")
            let fetched = try JSONDecoder().decode(InviteResponse.self, from: Data(try await client.call(.get, "/api/invite/\(invite.code)").text.utf8))
            #expect(fetched.code == invite.code && fetched.groupId == "g-7")
        }
    }

    @Test func everyLinkFormOfTheGuideHasAPageOrARoute() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let code = try #require(try await client.call(.post, "/api/invite", body: #"{"groupId": "G", "relay": "wss://r.example"}"#,
                                                          headers: [HTTPField.Name("X-Invite-Token")!: h.writer]).json?["code"]?.stringValue)
            let forms: [(path: String, appLink: String)] = [
                ("/i/\(code)", "plur://join-community?group-id=G&amp;code=\(code)&amp;relay=wss%3A%2F%2Fr.example"),
                ("/join/G?code=C&relay=wss%3A%2F%2Fr.example", "plur://join-community?group-id=G&amp;code=C&amp;relay=wss%3A%2F%2Fr.example"),
                ("/join-community?group-id=G&code=C&relay=wss%3A%2F%2Fr.example", "plur://join-community?group-id=G&amp;code=C&amp;relay=wss%3A%2F%2Fr.example"),
                ("/g/G?relay=wss%3A%2F%2Fr.example", "plur://group/G?relay=wss%3A%2F%2Fr.example"),
                ("/i/plur://join-community?group-id=X&code=Y&relay=wss%3A%2F%2Fr.example", "plur://join-community?group-id=X&amp;code=Y&amp;relay=wss%3A%2F%2Fr.example"),
            ]
            for form in forms {
                let page = try await client.call(.get, form.path, headers: [.userAgent: LandingPageTests.iPhone])
                #expect(page.status == .ok, "\(form.path)")
                #expect(page.text.contains(#"<meta property="og:title""#), "\(form.path)")
                #expect(page.text.contains(#"id="open-app" class="button" href="\#(form.appLink)""#), "\(form.path): \(page.text)")
                #expect(page.text.contains(#"href="https://apps.apple.com/app/id1234567890""#), "\(form.path)")
            }
            // The sixth form is the app link itself: the app's router takes it.
            let match = h.service.configuration.router.route("plur://join-community?group-id=X&code=Y&relay=wss%3A%2F%2Fr.example").match
            #expect(match?.route == "appJoinCommunity")
            #expect(match?.string("groupId") == "X" && match?.string("code") == "Y" && match?.string("relay") == "wss://r.example")
        }
    }

    @Test func anEmbeddedLinkOutsideTheAppSchemesIsNeverOffered() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            for path in ["/i/javascript:alert(1)", "/i/https://evil.example/x", "/i/other-app://x"] {
                let page = try await client.call(.get, path, headers: [.userAgent: LandingPageTests.iPhone])
                #expect(page.status == .ok || page.status == .notFound, "\(path)")
                for target in ["javascript:", "https://evil.example", "other-app:"] {
                    #expect(!page.text.contains(#"href="\#(target)"#), "\(path) links to \(target): \(page.text)")
                }
                #expect(!page.text.contains(#"id="open-app""#), "\(path)")
            }
        }
    }
}
