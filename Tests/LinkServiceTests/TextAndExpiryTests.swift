import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// Text and time fields store what the client sent, or are refused naming the field.
@Suite struct TextAndExpiryTests {
    @Test(arguments: Backend.available)
    func textIsStoredExactlyAsWrittenOrRefusedNamingTheField(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        let helper = APIToken.issue(name: "helper", scopes: [.transactions])
        try await h.store.insert(helper.record)
        try await h.app().test(.router) { client in
            // Any printable text (right-to-left marks too), and tabs and line breaks in a description,
            // are stored and read back exactly.
            let title = "Ravers 🎧 — «Zürich» \u{200F}txt 漢字"
            let description = "line one\r\nline two\n\tindented"
            let body = JSONWriter.compact(.object([("deepLink", .string("plur://group/x")), ("title", .string(title)), ("description", .string(description))]))
            let created = try await client.call(.post, "/api/links", token: h.writer, body: body)
            #expect(created.status == .created, "\(created.text)")
            let code = try #require(created.json?["code"]?.stringValue)
            let stored = try #require(try await h.store.link(code: code))
            #expect(stored.title == title)
            #expect(stored.description == description)
            let read = try await client.call(.get, "/api/links/\(code)", token: h.reader)
            #expect(read.json?["title"]?.stringValue == title)
            #expect(read.json?["description"]?.stringValue == description)

            // The red-team case: a NUL was echoed in the 201 and stored cut. Now: 400, the field named, nothing stored.
            let refused: [(String, String, String, HTTPFields)] = [
                ("/api/links", #"{"deepLink": "plur://group/n", "title": "before\u0000after"}"#, "title", [.authorization: "Bearer \(h.writer)"]),
                ("/api/links", #"{"deepLink": "plur://group/n", "description": "before\u0000after"}"#, "description", [.authorization: "Bearer \(h.writer)"]),
                ("/api/links", #"{"route": "appGroup", "parameters": {"groupId": "g\u0000"}}"#, "parameters.groupId", [.authorization: "Bearer \(h.writer)"]),
                ("/api/invite", #"{"groupId": "g-1", "relay": "wss://r.example\u0000x"}"#, "relay", [HTTPField.Name("X-Invite-Token")!: h.writer]),
                ("/api/transactions", #"{"purpose": "export\u0000a.txt"}"#, "purpose", [.authorization: "Bearer \(helper.token)"]),
            ]
            for (path, json, field, headers) in refused {
                let r = try await client.call(.post, path, body: json, headers: headers)
                #expect(r.status == .badRequest, "\(path) \(json): \(r.text)")
                #expect(r.json?.at("error.code")?.stringValue == "invalid-text")
                #expect(r.json?.at("error.field")?.stringValue == field)
                #expect(r.json?.at("error.message")?.stringValue?.contains("control character U+0000 at character") == true, "\(r.text)")
            }
            // Bidirectional overrides reorder what a page shows ("Open exe.png now"): refused;
            // right-to-left marks are ordinary text.
            for (json, field, scalar) in [(#"{"deepLink": "plur://group/n", "title": "Open \u202egnp.exe\u202c now"}"#, "title", "U+202E"),
                                           (#"{"deepLink": "plur://group/n", "description": "a\u2066b"}"#, "description", "U+2066")] {
                let r = try await client.call(.post, "/api/links", token: h.writer, body: json)
                #expect(r.status == .badRequest && r.json?.at("error.field")?.stringValue == field, "\(r.text)")
                #expect(r.json?.at("error.message")?.stringValue?.contains("bidirectional control \(scalar) at character") == true, "\(r.text)")
            }
            #expect(try await h.store.links(after: nil, limit: 10).map(\.code) == [code])
            let marked = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/n", "title": "\u200fשלום"}"#)
            #expect(marked.status == .created, "\(marked.text)")
            let transactions = try await h.store.db.read("SELECT COUNT(*) FROM transactions", []).first?.first?.int
            #expect(transactions == 0)
        }
    }

    @Test func aFutureExpiryIsKeptToTheSecondAndThePastIsRefused() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            // The harness's clock: 2026-09-21T14:13:20Z.
            let past = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/p", "expiresAt": "2026-09-21T14:00:00Z"}"#)
            #expect(past.status == .badRequest)
            #expect(past.json?.at("error.code")?.stringValue == "invalid-expiry")
            #expect(past.json?.at("error.field")?.stringValue == "expiresAt")
            #expect(past.json?.at("error.message")?.stringValue == "expiresAt 2026-09-21T14:00:00Z is not in the future (now: 2026-09-21T14:13:20Z)")
            let soon = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/s", "expiresAt": "2026-09-21T14:14:20Z"}"#)
            #expect(soon.status == .created)
            #expect(soon.json?["expiresAt"]?.stringValue == "2026-09-21T14:14:20.000Z")
            let code = try #require(soon.json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(code)").status == .ok)
            h.clock.advance(60)
            #expect(try await client.call(.get, "/i/\(code)").status == .gone)
        }
    }

    /// An expired or used-up link is no dead end for a person: its 410 page offers the web page
    /// and the store the link had, never its app link or its own title; a preview still gets the
    /// short message.
    @Test func anExpiredOrUsedUpLinkOffersAWayOn() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let once = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/secret-once", "title": "Secret group", "webURL": "https://rabble.community/g/once", "maxUses": 1}"#).json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/i/\(once)", headers: [.userAgent: LandingPageTests.desktop]).status == .ok)
            let used = try await client.call(.get, "/i/\(once)", headers: [.userAgent: LandingPageTests.desktop])
            #expect(used.status == .gone && used.text.contains("Link used up") && used.text.contains(#"href="https://rabble.community/g/once""#), "\(used.text)")
            #expect(!used.text.contains("secret-once") && !used.text.contains("Secret group"), "\(used.text)")
            let phone = try await client.call(.get, "/i/\(once)", headers: [.userAgent: LandingPageTests.iPhone])
            #expect(phone.status == .gone && phone.text.contains("apps.apple.com") && !phone.text.contains(#"id="open-app""#) && !phone.text.contains("secret-once"), "\(phone.text)")
            let soon = try #require(try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/s", "webURL": "https://rabble.community/g/soon", "expiresAt": "2026-09-21T14:14:20Z"}"#).json?["code"]?.stringValue)
            h.clock.advance(120)
            let expired = try await client.call(.get, "/i/\(soon)", headers: [.userAgent: LandingPageTests.desktop])
            #expect(expired.status == .gone && expired.text.contains("Link expired") && expired.text.contains(#"href="https://rabble.community/g/soon""#), "\(expired.text)")
            let preview = try await client.call(.get, "/i/\(soon)", headers: [.userAgent: "Slackbot-LinkExpanding 1.0"])
            #expect(preview.status == .gone && !preview.text.contains("rabble.community/g/soon"), "\(preview.text)")
        }
    }
}
