import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import Testing

@Suite struct LinksAPITests {
    @Test func createReadListDelete() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer, body: """
                {"route": "appGroup", "parameters": {"groupId": "g-42"}, "title": "Ravers", "description": "A group",
                 "webURL": "https://rabble.community/g/g-42", "maxUses": 10, "expiresIn": 3600}
                """)
            #expect(created.status == .created)
            let code = try #require(created.json?["code"]?.stringValue)
            #expect(code.count == 8)
            #expect(created.json?["url"]?.stringValue == "https://rabble.community/i/\(code)")
            #expect(created.json?["deepLink"]?.stringValue == "plur://group/g-42")
            #expect(created.json?["expiresAt"]?.stringValue?.hasPrefix("2026-") == true)

            let read = try await client.call(.get, "/api/links/\(code)", token: h.reader)
            #expect(read.status == .ok)
            #expect(read.json == created.json)

            let custom = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "summer25", "deepLink": "plur://group/s"}"#)
            #expect(custom.status == .created)
            #expect(custom.json?["code"]?.stringValue == "summer25")
            let taken = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "summer25", "deepLink": "plur://group/t"}"#)
            #expect(taken.status == .conflict)
            #expect(taken.json?.at("error.code")?.stringValue == "code-taken")
            #expect(try await h.store.link(code: "summer25")?.deepLink == "plur://group/s")

            let list = try await client.call(.get, "/api/links", token: h.reader)
            #expect(list.json?["links"]?.arrayValue?.count == 2)

            #expect(try await client.call(.delete, "/api/links/\(code)", token: h.writer).status == .noContent)
            #expect(try await client.call(.delete, "/api/links/\(code)", token: h.writer).status == .notFound)
            #expect(try await client.call(.get, "/api/links/\(code)", token: h.reader).status == .notFound)
            #expect(try await client.call(.get, "/i/\(code)").status == .notFound)
        }
    }

    /// A custom-scheme deep link is stored as a browser serialises it (spaces and backslashes are refused before):
    /// characters a URL never holds are percent-encoded, so the link cannot close an attribute or open a tag in a page.
    @Test func aDeepLinkIsStoredWithItsDisallowedCharactersEncoded() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let created = try await client.call(.post, "/api/links", token: h.writer,
                                                body: #"{"deepLink": "plur://group/a\"><svg/onload=alert(1)>{x}|`^b?q=ü%20#f"}"#)
            #expect(created.status == .created, "\(created.text)")
            let encoded = "plur://group/a%22%3E%3Csvg/onload=alert(1)%3E%7Bx%7D%7C%60%5Eb?q=ü%20#f"
            #expect(created.json?["deepLink"]?.stringValue == encoded)
            let code = try #require(created.json?["code"]?.stringValue)
            #expect(try await h.store.link(code: code)?.deepLink == encoded)
            let page = try await client.call(.get, "/i/\(code)", headers: [.userAgent: "Mozilla/5.0 (Linux; Android 15; Pixel 9) AppleWebKit/537.36 Chrome/131.0 Mobile Safari/537.36"])
            #expect(page.text.contains(#"href="\#(encoded)""#) && !page.text.contains("<svg"), "\(page.text)")
        }
    }

    @Test func listingPagesWithACursor() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            var made: [String] = []
            for i in 0..<7 {
                let r = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/\#(i)"}"#)
                made.append(try #require(r.json?["code"]?.stringValue))
                h.clock.advance(1)
            }
            var seen: [String] = []
            var uri = "/api/links?limit=3"
            while true {
                let page = try await client.call(.get, uri, token: h.reader)
                #expect(page.status == .ok)
                seen += page.json?["links"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
                guard let next = page.json?["nextCursor"]?.stringValue else { break }
                uri = "/api/links?limit=3&cursor=\(next)"
            }
            #expect(seen == made)
            #expect(try await client.call(.get, "/api/links?cursor=%21%21", token: h.reader).json?.at("error.code")?.stringValue == "invalid-cursor")
            #expect(try await client.call(.get, "/api/links?limit=0", token: h.reader).json?.at("error.code")?.stringValue == "invalid-limit")
        }
    }

    struct BadBody: CustomTestStringConvertible, Sendable {
        var body: String
        var code: String
        var field: String?
        var testDescription: String { code + " " + body.prefix(40) }
    }

    static let badBodies: [BadBody] = [
        BadBody(body: #"{"deepLink": "plur://x""#, code: "malformed-json"),
        BadBody(body: #"["plur://x"]"#, code: "not-an-object"),
        // A lone surrogate is not text: refused rather than stored as U+FFFD.
        BadBody(body: #"{"deepLink": "plur://x", "title": "a\ud800b"}"#, code: "malformed-json"),
        BadBody(body: #"{"deepLink": "plur://x", "title": "\udc00"}"#, code: "malformed-json"),
        BadBody(body: #"{"deepLink": "plur://x", "colour": "red"}"#, code: "unknown-field", field: "colour"),
        BadBody(body: #"{"deepLink": "http://rabble.community/g/x"}"#, code: "invalid-deep-link", field: "deepLink"),
        BadBody(body: #"{"deepLink": "plur://group/x\u202e"}"#, code: "invalid-url", field: "deepLink"),
        BadBody(body: #"{"deepLink": "plur://group/x", "webURL": "https://rabble.community/\u200fx"}"#, code: "invalid-url", field: "webURL"),
        // Two values for one field: which one was meant is not the service's guess.
        BadBody(body: #"{"deepLink": "plur://group/x", "deepLink": "plur://group/y"}"#, code: "malformed-json"),
        BadBody(body: #"{"title": "no target"}"#, code: "missing-target", field: "deepLink"),
        BadBody(body: #"{"deepLink": "javascript:alert(1)"}"#, code: "forbidden-scheme", field: "deepLink"),
        // A browser reads the backslash as a path separator and goes to evil.example.
        BadBody(body: #"{"deepLink": "plur://x", "webURL": "https://evil.example\\@rabble.community/"}"#, code: "invalid-url", field: "webURL"),
        BadBody(body: #"{"deepLink": "plur://x", "appStoreURL": "https://evil.example\\@apps.apple.com/app/id1"}"#, code: "invalid-url", field: "appStoreURL"),
        BadBody(body: #"{"deepLink": "https://evil.example\\@rabble.community/x"}"#, code: "invalid-url", field: "deepLink"),
        // Each of these is read as another host (or not at all) by a browser than by RFC 3986.
        BadBody(body: #"{"deepLink": "plur://x", "webURL": "https://evil.example@rabble.community/"}"#, code: "invalid-url", field: "webURL"),
        BadBody(body: #"{"deepLink": "plur://x", "webURL": "https://rabble.community%2eevil.example/"}"#, code: "invalid-url", field: "webURL"),
        BadBody(body: #"{"deepLink": "plur://x", "webURL": "https://rabble.community./"}"#, code: "invalid-url", field: "webURL"),
        BadBody(body: #"{"deepLink": "plur://x", "webURL": "https:rabble.community/"}"#, code: "invalid-url", field: "webURL"),
        BadBody(body: #"{"deepLink": "plur://x", "webURL": "https://rabble.community\t/"}"#, code: "invalid-url", field: "webURL"),
        BadBody(body: #"{"deepLink": "plur://x", "playStoreURL": "https://0x7f.1/"}"#, code: "invalid-url", field: "playStoreURL"),
        BadBody(body: #"{"deepLink": "plur://x", "image": "https://[::1]/x.png"}"#, code: "invalid-url", field: "image"),
        BadBody(body: #"{"deepLink": "https://evil.example@rabble.community/x"}"#, code: "invalid-url", field: "deepLink"),
        BadBody(body: #"{"deepLink": "data:text/html,<b>x</b>"}"#, code: "forbidden-scheme", field: "deepLink"),
        BadBody(body: #"{"deepLink": "file:///etc/passwd"}"#, code: "forbidden-scheme", field: "deepLink"),
        BadBody(body: #"{"deepLink": "plur://x", "webURL": "JavaScript:alert(1)"}"#, code: "forbidden-scheme", field: "webURL"),
        BadBody(body: #"{"deepLink": "evil://x"}"#, code: "invalid-deep-link", field: "deepLink"),
        BadBody(body: #"{"deepLink": "https://evil.example/x"}"#, code: "invalid-deep-link", field: "deepLink"),
        BadBody(body: #"{"deepLink": "not a url"}"#, code: "invalid-url", field: "deepLink"),
        BadBody(body: #"{"deepLink": "plur://x", "webURL": "https://evil.example/phish"}"#, code: "host-not-allowed", field: "webURL"),
        BadBody(body: #"{"deepLink": "plur://x", "appStoreURL": "ftp://apps.apple.com/x"}"#, code: "invalid-url", field: "appStoreURL"),
        BadBody(body: #"{"code": "has space", "deepLink": "plur://x"}"#, code: "invalid-code", field: "code"),
        BadBody(body: #"{"code": "ab", "deepLink": "plur://x"}"#, code: "invalid-code", field: "code"),
        BadBody(body: #"{"code": "caf\u00e9s", "deepLink": "plur://x"}"#, code: "invalid-code", field: "code"),
        BadBody(body: #"{"route": "nope"}"#, code: "invalid-route", field: "route"),
        BadBody(body: #"{"route": "appGroup", "parameters": {"colour": "x"}}"#, code: "invalid-parameters", field: "parameters"),
        BadBody(body: #"{"route": "appJoinCommunity", "parameters": {"groupId": "g"}}"#, code: "invalid-parameters", field: "parameters.code"),
        BadBody(body: #"{"deepLink": "plur://x", "route": "appGroup"}"#, code: "ambiguous-target", field: "route"),
        BadBody(body: #"{"deepLink": "plur://x", "expiresAt": "tomorrow"}"#, code: "invalid-expiry", field: "expiresAt"),
        // Foundation's ISO 8601 parser reads these as 2 March and as a 99-hour offset.
        BadBody(body: #"{"deepLink": "plur://x", "expiresAt": "2027-02-30T00:00:00Z"}"#, code: "invalid-expiry", field: "expiresAt"),
        BadBody(body: #"{"deepLink": "plur://x", "expiresAt": "2027-03-01T00:00:00+99:00"}"#, code: "invalid-expiry", field: "expiresAt"),
        // The harness's clock says 2026-09-21T14:13:20Z.
        BadBody(body: #"{"deepLink": "plur://x", "expiresAt": "2026-09-21T14:13:19Z"}"#, code: "invalid-expiry", field: "expiresAt"),
        BadBody(body: #"{"deepLink": "plur://x", "expiresAt": "2026-09-21T14:13:20Z"}"#, code: "invalid-expiry", field: "expiresAt"),
        BadBody(body: #"{"deepLink": "plur://x", "expiresAt": "2001-01-01T00:00:00Z"}"#, code: "invalid-expiry", field: "expiresAt"),
        BadBody(body: #"{"deepLink": "plur://x", "expiresAt": "2046-09-21T14:13:20Z"}"#, code: "invalid-expiry", field: "expiresAt"),
        BadBody(body: #"{"deepLink": "plur://x", "title": "Rav\u0000ers"}"#, code: "invalid-text", field: "title"),
        BadBody(body: #"{"deepLink": "plur://x", "title": "two\nlines"}"#, code: "invalid-text", field: "title"),
        BadBody(body: #"{"deepLink": "plur://x", "title": "\u001b[2Jcleared"}"#, code: "invalid-text", field: "title"),
        BadBody(body: #"{"deepLink": "plur://x", "title": "next line\u0085"}"#, code: "invalid-text", field: "title"),
        BadBody(body: #"{"deepLink": "plur://x", "description": "a\u0000b"}"#, code: "invalid-text", field: "description"),
        BadBody(body: #"{"deepLink": "plur://x", "description": "bell\u0007"}"#, code: "invalid-text", field: "description"),
        BadBody(body: #"{"route": "appGroup", "parameters": {"groupId": "g\u0000x"}}"#, code: "invalid-text", field: "parameters.groupId"),
        BadBody(body: #"{"deepLink": "plur://x", "maxUses": 0}"#, code: "invalid-max-uses", field: "maxUses"),
        BadBody(body: #"{"deepLink": "plur://x", "maxUses": 1.5}"#, code: "invalid-max-uses", field: "maxUses"),
        BadBody(body: #"{"deepLink": 42}"#, code: "invalid-field", field: "deepLink"),
        // A value of the wrong type is refused by the body's decoder with the field's own code and its path.
        BadBody(body: #"{"deepLink": "plur://x", "title": ["x"]}"#, code: "invalid-field", field: "title"),
        BadBody(body: #"{"deepLink": "plur://x", "maxUses": "5"}"#, code: "invalid-max-uses", field: "maxUses"),
        BadBody(body: #"{"deepLink": "plur://x", "maxUses": 1e20}"#, code: "invalid-max-uses", field: "maxUses"),
        // A fraction whose nearest double is whole is still a fraction.
        BadBody(body: #"{"deepLink": "plur://x", "maxUses": 0.99999999999999999}"#, code: "invalid-max-uses", field: "maxUses"),
        BadBody(body: #"{"deepLink": "plur://x", "maxUses": 1.0000000000000001}"#, code: "invalid-max-uses", field: "maxUses"),
        BadBody(body: #"{"deepLink": "plur://x", "expiresIn": "60"}"#, code: "invalid-expiry", field: "expiresIn"),
        BadBody(body: #"{"deepLink": "plur://x", "expiresAt": 1767225600}"#, code: "invalid-expiry", field: "expiresAt"),
        BadBody(body: #"{"route": "appGroup", "parameters": ["g"]}"#, code: "invalid-parameters", field: "parameters"),
        BadBody(body: #"{"route": "appGroup", "parameters": {"groupId": {"id": "g"}}}"#, code: "invalid-parameters", field: "parameters.groupId"),
        BadBody(body: #"{"route": "appGroup", "parameters": {"group.id": null}}"#, code: "invalid-parameters", field: #"parameters["group.id"]"#),
    ]

    /// A configuration with no app scheme refuses every custom-scheme deep link and says where
    /// to name one, rather than listing an empty set.
    @Test func aDeepLinkWithNoSchemeConfiguredSaysWhereToGiveOne() async throws {
        let h = try await Harness.make(extra: "apple:\n  - {teamId: ABCDE12345, bundleId: community.rabble.plur}\nroutes:\n  - {name: invite, pattern: \"/i/{code}\"}\n  - {name: join, pattern: \"/join/{groupId}\", query: {code: code}}\nlanding: {title: Plur}\ninvites: {route: join, codeParameter: code, fields: {groupId: groupId}, required: [groupId]}\n")
        try await h.app().test(.router) { client in
            let r = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/x"}"#)
            #expect(r.status == .badRequest && r.json?.at("error.code")?.stringValue == "invalid-deep-link", "\(r.text)")
            #expect(r.json?.at("error.message")?.stringValue == "deepLink: scheme plur: is not an app scheme of this configuration (it has none: give apple[].scheme or service.deepLinkSchemes)", "\(r.text)")
        }
    }

    /// The decoder's refusals read as the checks' do: what is at fault, what it must be, and the field meant.
    @Test func typeErrorsAndMisspeltFieldsSayWhatWasMeant() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            for (body, message) in [
                (#"{"deepLink": "plur://x", "titel": "Ravers"}"#,
                 #"unknown field "titel"; did you mean "title"? (known: code, domain, deepLink, route, parameters, webURL, appStoreURL, playStoreURL, title, description, image, expiresAt, expiresIn, maxUses, utm, tags, expiredURL, password)"#),
                (#"{"route": "appGroup", "parameters": {"groupId": ["g"]}}"#, "parameters.groupId must be a string or a number, not array"),
                (#"{"deepLink": "plur://x", "maxUses": 2.5}"#, "maxUses must be a whole number from 1 to 999999999999999"),
                (#"{"deepLink": "plur://x", "maxUses": 1e400}"#, "maxUses must be a whole number from 1 to 999999999999999"),
                (#"{"deepLink": "plur://x", "webURL": false}"#, "webURL must be a string, not boolean"),
            ] {
                let r = try await client.call(.post, "/api/links", token: h.writer, body: body)
                #expect(r.status == .badRequest && r.json?.at("error.message")?.stringValue == message, "\(r.text)")
            }
            #expect(try await client.call(.get, "/api/links", token: h.writer).json?.at("links")?.arrayValue?.isEmpty == true)
        }
    }

    /// A parameter name a route does not have is the parameters' error, with the name meant.
    @Test func aMisspeltParameterNameIsNamedWithTheOneMeant() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let r = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "appGroup", "parameters": {"groupID": "g"}}"#)
            #expect(r.status == .badRequest && r.json?.at("error.code")?.stringValue == "invalid-parameters", "\(r.text)")
            #expect(r.json?.at("error.message")?.stringValue == #"route appGroup has no parameter "groupID"; did you mean "groupId"? (it has: groupId, relay)"#, "\(r.text)")
        }
    }

    /// Parameters that build no link name the parameter at fault and why; an integer is kept
    /// as written or refused ("01" would have been stored as /p/1).
    @Test func parametersThatBuildNoLinkNameTheParameter() async throws {
        let h = try await Harness.make(extra: Harness.routes(adding: [#"{name: product, pattern: "/p/{id:int}", query: {size: "size:s|m|l?"}}"#]))
        try await h.app().test(.router) { client in
            for (body, field, message) in [
                (#"{"route": "product", "parameters": {"id": "abc"}}"#, "parameters.id", #"route product: parameter id: "abc" is not an integer"#),
                (#"{"route": "product", "parameters": {"id": "01"}}"#, "parameters.id", #"route product: parameter id: write "01" as 1, as the link carries it"#),
                (#"{"route": "product", "parameters": {"id": "+7"}}"#, "parameters.id", #"route product: parameter id: write "+7" as 7, as the link carries it"#),
                (#"{"route": "product", "parameters": {"id": "7", "size": "xl"}}"#, "parameters.size", #"route product: parameter size: "xl" is not one of s, m, l"#),
                (#"{"route": "product", "parameters": {}}"#, "parameters.id", "route product needs parameter id (integer) (/p/{id:int})"),
                (#"{"route": "appJoinCommunity", "parameters": {"groupId": "g"}}"#, "parameters.code", "route appJoinCommunity needs parameter code (string) (plur://join-community)"),
            ] {
                let r = try await client.call(.post, "/api/links", token: h.writer, body: body)
                #expect(r.status == .badRequest && r.json?.at("error.code")?.stringValue == "invalid-parameters", "\(body): \(r.text)")
                #expect(r.json?.at("error.field")?.stringValue == field, "\(body): \(r.text)")
                #expect(r.json?.at("error.message")?.stringValue == message, "\(body): \(r.text)")
            }
            let ok = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "product", "parameters": {"id": "7", "size": "m"}}"#)
            #expect(ok.status == .created && ok.json?["deepLink"]?.stringValue == "https://rabble.community/p/7?size=m", "\(ok.text)")
        }
    }

    @Test(arguments: badBodies)
    func badInputIsRefusedWithWhereAndWhyAndStoresNothing(_ bad: BadBody) async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let r = try await client.call(.post, "/api/links", token: h.writer, body: bad.body)
            #expect(r.status == .badRequest)
            #expect(r.headers[.contentType] == "application/json")
            #expect(r.json?.at("error.code")?.stringValue == bad.code, "\(r.text)")
            #expect(r.json?.at("error.field")?.stringValue == bad.field)
            #expect(r.json?.at("error.message")?.stringValue?.isEmpty == false)
            #expect(try await h.store.links(after: nil, limit: 10).isEmpty)
        }
    }

    @Test func oversizedBodiesGet413() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let big = #"{"deepLink": "plur://x", "title": ""# + String(repeating: "x", count: 20_000) + #""}"#
            let r = try await client.call(.post, "/api/links", token: h.writer, body: big)
            #expect(r.status == .contentTooLarge)
            #expect(r.json?.at("error.code")?.stringValue == "body-too-large")
            #expect(try await h.store.links(after: nil, limit: 10).isEmpty)
        }
    }

    @Test func tokensAreCheckedAndScoped() async throws {
        let h = try await Harness.make()
        let body = #"{"deepLink": "plur://group/x"}"#
        try await h.app().test(.router) { client in
            let missing = try await client.call(.post, "/api/links", body: body)
            #expect(missing.status == .unauthorized)
            #expect(missing.headers[.wwwAuthenticate] == "Bearer")
            #expect(missing.json?.at("error.code")?.stringValue == "missing-token")
            let (id, secret) = try #require(APIToken.parse(h.writer))
            let flipped = "sy_\(id)_" + String(secret.dropLast()) + (secret.last == "A" ? "B" : "A")
            for wrong in [flipped, "sy_unknownid12_" + secret, "garbage", "Basic abc"] {
                let r = try await client.call(.post, "/api/links", body: body, headers: [.authorization: wrong.hasPrefix("Basic") ? wrong : "Bearer \(wrong)"])
                #expect(r.status == .unauthorized, "\(wrong)")
                #expect(r.json?.at("error.code")?.stringValue == "invalid-token")
            }
            let readOnly = try await client.call(.post, "/api/links", token: h.reader, body: body)
            #expect(readOnly.status == .forbidden)
            #expect(readOnly.json?.at("error.code")?.stringValue == "insufficient-scope")
            #expect(try await client.call(.get, "/api/links", token: h.writer).status == .ok)
            #expect(try await client.call(.post, "/api/links", token: h.admin, body: body).status == .created)
            #expect(try await client.call(.get, "/api/links").status == .unauthorized)
            // Revocation takes effect at once.
            #expect(try await h.store.revokeToken("writer") == 1)
            #expect(try await client.call(.post, "/api/links", token: h.writer, body: body).status == .unauthorized)
            #expect(try await h.store.links(after: nil, limit: 10).count == 1)
        }
    }

    /// A chosen code is any 3–64 of `[A-Za-z0-9_-]`, look-alikes and all (`blog`, `promo1`,
    /// `Ab13`); its page and the API find it.
    @Test func chosenCodesMayBeAnyLettersDigitsDashesAndUnderscores() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            for code in ["blog", "promo1", "Ab13", "O0Il1xyz", "summer_25-sale"] {
                let created = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "\#(code)", "deepLink": "plur://group/\#(code)"}"#)
                #expect(created.status == .created && created.json?["code"]?.stringValue == code, "\(code): \(created.text)")
                #expect(try await client.call(.get, "/api/links/\(code)", token: h.reader).status == .ok, "\(code)")
                #expect(try await client.call(.get, "/i/\(code)").status == .ok, "\(code)")
            }
        }
    }

    @Test func codesOutsideTheAlphabetAre400() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let r = try await client.call(.get, "/api/links/bad%20code", token: h.reader)
            #expect(r.status == .badRequest)
            #expect(r.json?.at("error.code")?.stringValue == "invalid-code")
            // Letters and digits outside the alphabet may name a link imported from Firebase
            // Dynamic Links (its old short-link path): looked up, and not found.
            #expect(try await client.call(.get, "/api/links/0OOOO000", token: h.reader).status == .notFound)
            #expect(try await client.call(.get, "/api/links/has.dot", token: h.reader).status == .badRequest)
        }
    }

    @Test func writesAreRateLimitedPerAddressAndPerToken() async throws {
        let h = try await Harness.make(extra: """
            service: {publicURL: "https://rabble.community", trustForwardedFor: true}
            rateLimit:
              perToken: {perMinute: 60, burst: 3}
              perAddress: {perMinute: 60, burst: 5}
            """)
        let body = #"{"deepLink": "plur://group/x"}"#
        try await h.app().test(.router) { client in
            // One token from many addresses: the token's bucket (3) runs out.
            var statuses: [HTTPResponse.Status] = []
            for i in 0..<4 {
                statuses.append(try await client.call(.post, "/api/links", token: h.writer, body: body, headers: [HTTPField.Name("X-Forwarded-For")!: "10.0.0.\(i)"]).status)
            }
            #expect(statuses == [.created, .created, .created, .tooManyRequests])
            // One address with many tokens: the address's bucket (5) runs out.
            statuses = []
            for _ in 0..<6 {
                statuses.append(try await client.call(.post, "/api/links", token: h.admin, body: body, headers: [HTTPField.Name("X-Forwarded-For")!: "192.0.2.7"]).status)
            }
            #expect(statuses.prefix(3) == [.created, .created, .created])
            let limited = try await client.call(.post, "/api/links", token: h.reader, body: body, headers: [HTTPField.Name("X-Forwarded-For")!: "192.0.2.7"])
            #expect(limited.status == .tooManyRequests)
            #expect(limited.headers[.retryAfter] == "1")
            #expect(limited.json?.at("error.code")?.stringValue == "rate-limited")
            // Time refills the buckets.
            h.clock.advance(2)
            #expect(try await client.call(.post, "/api/links", token: h.writer, body: body, headers: [HTTPField.Name("X-Forwarded-For")!: "10.0.1.1"]).status == .created)
            let metrics = try await client.call(.get, "/metrics")
            #expect(metrics.text.contains("switchyard_rate_limited_total "))
            #expect(!metrics.text.contains("switchyard_rate_limited_total 0\n"))
        }
    }

    @Test func invitesSpeakThePlurAPI() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let r = try await client.call(.post, "/api/invite", body: #"{"groupId": "g-1", "relay": "wss://relay.rabble.community"}"#,
                                          headers: [HTTPField.Name("X-Invite-Token")!: h.writer])
            #expect(r.status == .created)
            let code = try #require(r.json?["code"]?.stringValue)
            // Both of Plur's response models decode this: {code, url} and {code, groupId, relay}.
            #expect(r.json?.objectMembers?.map(\.key) == ["code", "url", "groupId", "relay"])
            #expect(r.json?["groupId"]?.stringValue == "g-1")
            #expect(r.json?["relay"]?.stringValue == "wss://relay.rabble.community")
            #expect(r.json?["url"]?.stringValue == "https://rabble.community/i/\(code)")
            let got = try await client.call(.get, "/api/invite/\(code)")
            #expect(got.json == .object([("code", .string(code)), ("groupId", .string("g-1")), ("relay", .string("wss://relay.rabble.community"))]))
            let link = try await client.call(.get, "/api/links/\(code)", token: h.reader)
            #expect(link.json?["deepLink"]?.stringValue == "plur://join-community?group-id=g-1&code=\(code)&relay=wss%3A%2F%2Frelay.rabble.community")

            let noRelay = try await client.call(.post, "/api/invite", body: #"{"groupId": "g-2"}"#, headers: [HTTPField.Name("X-Invite-Token")!: h.writer])
            let code2 = try #require(noRelay.json?["code"]?.stringValue)
            #expect(try await client.call(.get, "/api/invite/\(code2)").json?["relay"] == .null)

            #expect(try await client.call(.post, "/api/invite", body: #"{"relay": "wss://r"}"#, headers: [HTTPField.Name("X-Invite-Token")!: h.writer]).json?.at("error.code")?.stringValue == "missing-field")
            #expect(try await client.call(.post, "/api/invite", body: #"{"groupId": "", "relay": "wss://r"}"#, headers: [HTTPField.Name("X-Invite-Token")!: h.writer]).json?.at("error.code")?.stringValue == "missing-field")
            #expect(try await client.call(.post, "/api/invite", body: #"{"groupId": "g", "admin": true}"#, headers: [HTTPField.Name("X-Invite-Token")!: h.writer]).json?.at("error.field")?.stringValue == "admin")
            // An unknown field is said first, whatever its value (a number here).
            let unknownFirst = try await client.call(.post, "/api/invite", body: #"{"groupId": "g", "maxUses": 1}"#, headers: [HTTPField.Name("X-Invite-Token")!: h.writer])
            #expect(unknownFirst.json?.at("error.code")?.stringValue == "unknown-field" && unknownFirst.json?.at("error.field")?.stringValue == "maxUses", "\(unknownFirst.text)")
            let number = try await client.call(.post, "/api/invite", body: #"{"groupId": 5}"#, headers: [HTTPField.Name("X-Invite-Token")!: h.writer])
            #expect(number.status == .badRequest && number.json?.at("error.code")?.stringValue == "invalid-field", "\(number.text)")
            #expect(try await client.call(.post, "/api/invite", body: #"{"groupId": "g"}"#).status == .unauthorized)
            #expect(try await client.call(.post, "/api/invite", body: #"{"groupId": "g"}"#, headers: [HTTPField.Name("X-Invite-Token")!: h.reader]).status == .forbidden)
            // Used as often as it may be: gone here too, as on its page; its target cannot be edited away.
            #expect(try await client.call(.patch, "/api/links/\(code2)", token: h.writer, body: #"{"maxUses": 1}"#).status == .ok)
            _ = try await client.call(.get, "/i/\(code2)", headers: [.userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)"])
            try await h.service.flushClicks()
            let used = try await client.call(.get, "/api/invite/\(code2)")
            #expect(used.status == .gone && used.json?.at("error.code")?.stringValue == "used-up", "\(used.text)")
            for patch in [#"{"deepLink": "plur://group/hijack"}"#, #"{"route": "appGroup", "parameters": {"groupId": "x"}}"#] {
                let edit = try await client.call(.patch, "/api/links/\(code)", token: h.writer, body: patch)
                #expect(edit.status == .badRequest && edit.json?.at("error.code")?.stringValue == "immutable-field", "\(edit.text)")
            }
            // A plain link is not an invite.
            let plain = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/x"}"#)
            #expect(try await client.call(.get, "/api/invite/\(try #require(plain.json?["code"]?.stringValue))").status == .notFound)
        }
    }

    /// A method a path is not served with is 405 naming the ones it is; an unknown API path is a
    /// JSON 404; neither is logged as a failure.
    @Test func wrongMethodsAre405WithAllowAndUnknownAPIPathsAreJSON404() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            for (method, path, allow) in [(HTTPRequest.Method.put, "/api/links", "GET, HEAD, POST"), (.delete, "/api/links", "GET, HEAD, POST"),
                                          (.post, "/api/links/gm6w39r2", "GET, HEAD, PATCH, DELETE"), (.options, "/api/links", "GET, HEAD, POST"),
                                          (.post, "/healthz", "GET, HEAD"), (.delete, "/some/page", "GET, HEAD")] {
                let r = try await client.call(method, path)
                #expect(r.status == .methodNotAllowed, "\(method) \(path)")
                #expect(r.headers[.allow] == allow, "\(method) \(path)")
                #expect(r.json?.at("error.code")?.stringValue == "method-not-allowed", "\(r.text)")
            }
            for path in ["/api/nope", "/api/links/x/y/z"] {
                let r = try await client.call(.get, path)
                #expect(r.status == .notFound, "\(path)")
                #expect(r.json?.at("error.code")?.stringValue == "not-found", "\(path): \(r.text)")
            }
            let unknown = try await client.call(.post, "/api/nope")
            #expect(unknown.status == .notFound && unknown.json?.at("error.code")?.stringValue == "not-found", "\(unknown.text)")
        }
    }

    @Test func resolveAPIReturnsTheEngineResult() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let r = try await client.call(.get, "/api/resolve?url=https%3A%2F%2Ftwitter.com%2Fjack%2Fstatus%2F20")
            #expect(r.status == .ok)
            #expect(r.json?["input"]?.stringValue == "https://twitter.com/jack/status/20")
            let urls = r.json?["actions"]?.arrayValue?.compactMap { $0["url"]?.stringValue } ?? []
            #expect(urls.contains("twitter://status?id=20"))
            let missing = try await client.call(.get, "/api/resolve")
            #expect(missing.status == .badRequest)
            #expect(missing.json?.at("error.field")?.stringValue == "url")
            // What `switchyard resolve` refuses, the API refuses: not a URL, a space, a control character.
            for (query, problem) in [("notaurl", "not an absolute URL"), ("%00", "not an absolute URL"), ("not%20a%20url", "not an absolute URL"),
                                     ("http://a%0d%0ab", "contains the control character U+000D"), ("https://a.example/x%20y", "contains a space"),
                                     ("http://1.2.3.4:99999/x", "the port 99999 is not from 0 to 65535")] {
                let r = try await client.call(.get, "/api/resolve?url=\(query)")
                #expect(r.status == .badRequest, "\(query)")
                #expect(r.json?.at("error.code")?.stringValue == "invalid-url", "\(query)")
                #expect(r.json?.at("error.message")?.stringValue?.contains(problem) == true, "\(query): \(r.text)")
            }
        }
    }

    @Test func metricsAndHealth() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/x"}"#)
            _ = try await client.call(.post, "/api/links", body: "{}")
            let m = try await client.call(.get, "/metrics")
            #expect(m.status == .ok)
            #expect(m.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(m.text.contains(#"switchyard_http_requests_total{route="/api/links",status="201"} 1"#))
            #expect(m.text.contains(#"switchyard_http_requests_total{route="/api/links",status="401"} 1"#))
            #expect(m.text.contains("switchyard_links_created_total 1"))
            #expect(m.text.contains("switchyard_auth_failures_total 1"))
            #expect(try await client.call(.get, "/healthz").json?["status"]?.stringValue == "ok")
        }
    }

    @Test func liveSocketCreateAndVisit() async throws {
        let h = try await Harness.make()
        try await h.app().test(.live) { client in
            let r = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/live"}"#)
            #expect(r.status == .created)
            let code = try #require(r.json?["code"]?.stringValue)
            let page = try await client.call(.get, "/i/\(code)", headers: [.userAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36"])
            #expect(page.status == .ok)
            #expect(page.text.contains(#"href="plur://group/live""#))
        }
    }

    @Test func constantTimeComparisonIsCorrect() {
        #expect(APIToken.constantTimeEquals("abc", "abc"))
        #expect(!APIToken.constantTimeEquals("abc", "abd"))
        #expect(!APIToken.constantTimeEquals("abc", "abcd"))
        #expect(!APIToken.constantTimeEquals("", "a"))
        #expect(APIToken.hash("x") == "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881")
        let issued = APIToken.issue(name: "n", scopes: [.admin])
        #expect(APIToken.parse(issued.token)?.id == issued.record.id)
        #expect(APIToken.parse("sy_short_x") == nil)
    }
}
