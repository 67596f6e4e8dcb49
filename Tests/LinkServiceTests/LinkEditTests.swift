import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// PATCH /api/links/{code}: the same checks as create, the rest of the link kept, the page and
/// the cache of this node current at once.
@Suite struct LinkEditTests {
    @Test(arguments: Backend.available)
    func anEditChangesOnlyWhatItNamesAndIsCheckedAsOnCreate(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: """
                {"deepLink": "plur://group/g-1", "title": "Old title", "description": "Kept", "maxUses": 5, "expiresIn": 3600}
                """)
            let code = try #require(created.json?["code"]?.stringValue)
            #expect(created.json?["updatedAt"] == .null)
            // A visit renders and caches the page with the old title, and counts one use.
            #expect(try await client.call(.get, "/i/\(code)").text.contains("Old title"))

            h.clock.advance(1)  // within the cache's 5 s: the page below must come from a forgotten entry
            let edited = try await client.call(.patch, "/api/links/\(code)", token: h.writer,
                                               body: #"{"title": "New title", "webURL": "https://rabble.community/g/g-1"}"#)
            #expect(edited.status == .ok, "\(edited.text)")
            #expect(edited.json?["title"]?.stringValue == "New title")
            #expect(edited.json?["webURL"]?.stringValue == "https://rabble.community/g/g-1")
            #expect(edited.json?["description"]?.stringValue == "Kept")
            #expect(edited.json?["deepLink"]?.stringValue == "plur://group/g-1")
            #expect(edited.json?["maxUses"] == .int(5))
            #expect(edited.json?["clicks"] == .int(1))
            #expect(edited.json?["expiresAt"] == created.json?["expiresAt"])
            #expect(edited.json?["createdAt"] == created.json?["createdAt"])
            let updatedAt = try #require(edited.json?["updatedAt"]?.stringValue)
            #expect(updatedAt != created.json?["createdAt"]?.stringValue)
            #expect(try await client.call(.get, "/api/links/\(code)", token: h.reader).json == edited.json)
            // This node's page shows the edit at once (its cache forgot the link).
            let page = try await client.call(.get, "/i/\(code)").text
            #expect(page.contains("New title") && !page.contains("Old title"))

            // A route replaces the deep link; null clears the use limit and the expiry.
            let rerouted = try await client.call(.patch, "/api/links/\(code)", token: h.writer,
                                                 body: #"{"route": "appGroup", "parameters": {"groupId": "g-9"}, "maxUses": null, "expiresAt": null}"#)
            #expect(rerouted.status == .ok, "\(rerouted.text)")
            #expect(rerouted.json?["deepLink"]?.stringValue == "plur://group/g-9")
            #expect(rerouted.json?["route"]?.stringValue == "appGroup")
            #expect(rerouted.json?["maxUses"] == .null)
            #expect(rerouted.json?["expiresAt"] == .null)
            // And a deep link replaces the route and its parameters.
            let back = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: #"{"deepLink": "plur://group/g-2"}"#)
            #expect(back.json?["route"] == .null)
            #expect(back.json?["parameters"] == .object([]))

            // Refused edits change nothing.
            let before = try await client.call(.get, "/api/links/\(code)", token: h.reader).json
            for (body, error, field) in [
                (#"{"webURL": "http://evil.com\\@rabble.community/"}"#, "invalid-url", "webURL"),
                (#"{"webURL": "https://evil.example/"}"#, "host-not-allowed", "webURL"),
                (#"{"deepLink": "javascript:alert(1)"}"#, "forbidden-scheme", "deepLink"),
                (#"{"deepLink": null}"#, "missing-target", "deepLink"),
                (#"{"deepLink": "plur://group/g-3", "route": "appGroup", "parameters": {"groupId": "g-3"}}"#, "ambiguous-target", "route"),
                (#"{"code": "other1"}"#, "immutable-field", "code"),
                (#"{"clicks": 0}"#, "unknown-field", "clicks"),
                (#"{"maxUses": 0}"#, "invalid-max-uses", "maxUses"),
                (#"{"expiresAt": "2020-01-01T00:00:00Z"}"#, "invalid-expiry", "expiresAt"),
                (#"{"title": "a\u0000b"}"#, "invalid-text", "title"),
                (#"{}"#, "empty-edit", nil),
                (#"[1]"#, "not-an-object", nil),
            ] as [(String, String, String?)] {
                let r = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: body)
                #expect(r.status == .badRequest, "\(body): \(r.text)")
                #expect(r.json?.at("error.code")?.stringValue == error, "\(body): \(r.text)")
                #expect(r.json?.at("error.field")?.stringValue == field, "\(body): \(r.text)")
            }
            #expect(try await client.call(.get, "/api/links/\(code)", token: h.reader).json == before)

            #expect(try await client.call(.patch, "/api/links/\(code)", body: #"{"title": "x"}"#).status == .unauthorized)
            #expect(try await client.call(.patch, "/api/links/\(code)", token: h.reader, body: #"{"title": "x"}"#).status == .forbidden)
            #expect(try await client.call(.patch, "/api/links/zzzzzz", token: h.writer, body: #"{"title": "x"}"#).status == .notFound)
        }
    }
}
