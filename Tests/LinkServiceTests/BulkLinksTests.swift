import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// `POST /api/links/bulk`: up to 1,000 links, each made as `POST /api/links` would make it and
/// answered on its own; one bad item spoils nothing.
@Suite struct BulkLinksTests {
    @Test(arguments: Backend.available)
    func eachItemIsMadeOrRefusedOnItsOwn(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            let taken = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/t", "code": "taken1"}"#)
            #expect(taken.status == .created)
            let body = """
            {"links": [
              {"deepLink": "plur://group/a", "title": "First"},
              {"deepLink": "plur://group/b", "webURL": "https://evil.example/"},
              {"route": "appGroup", "parameters": {"groupId": "ravers"}, "code": "ravers1"},
              {"deepLink": "plur://group/c", "code": "taken1"},
              {"deepLink": "plur://group/d", "code": "ravers1"},
              {"deepLink": "plur://group/e", "titel": "typo"},
              "not an object",
              {"deepLink": "plur://group/f", "expiresIn": 3600, "maxUses": 5, "tags": ["spring"]}
            ]}
            """
            let r = try await client.call(.post, "/api/links/bulk", token: h.writer, body: body)
            #expect(r.status == .ok, "\(r.text)")
            #expect(r.json?["created"] == .int(3) && r.json?["failed"] == .int(5), "\(r.text)")
            let results = try #require(r.json?["results"]?.arrayValue)
            #expect(results.map { $0["index"] } == (0..<8).map { .int($0) })
            #expect(results.map { $0["status"] } == [201, 400, 201, 409, 409, 400, 400, 201].map { .int($0) }, "\(r.text)")
            #expect(results.map { $0.at("error.field")?.stringValue } == [nil, "webURL", nil, "code", "code", "titel", nil, nil], "\(r.text)")
            #expect(results[1].at("error.code")?.stringValue == "host-not-allowed")
            #expect(results[0]["error"] == .null && results[1]["link"] == .null)
            // The links made are the API's links, stored as a single create stores them.
            let first = try #require(results[0].at("link.code")?.stringValue)
            #expect(results[0].at("link.title")?.stringValue == "First")
            #expect(try await h.store.link(code: first)?.title == "First")
            #expect(results[2].at("link.deepLink")?.stringValue == "plur://group/ravers")
            #expect(try await h.store.link(code: "ravers1")?.deepLink == nil)  // a route link: its route is stored
            #expect(try await h.store.link(code: "ravers1")?.route == "appGroup")
            #expect(try await h.store.link(code: "taken1")?.deepLink == "plur://group/t")  // never overwritten
            #expect(results[7].at("link.maxUses") == .int(5) && results[7].at("link.tags")?.arrayValue == [.string("spring")])
            let listed = try await client.call(.get, "/api/links", token: h.reader)
            #expect(listed.json?["links"]?.arrayValue?.count == 4, "\(listed.text)")
        }
    }

    /// The request itself is refused only when it is not a list of 1 to 1,000 links, or too large;
    /// a reader's token may not make any.
    @Test func theRequestIsRefusedWhenItIsNoListOfLinks() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let link = #"{"deepLink": "plur://group/x"}"#
            for (body, code, field) in [
                ("[]", "not-an-object", nil),
                (#"{}"#, "missing-field", "links"),
                (#"{"links": {}}"#, "invalid-field", "links"),
                (#"{"links": []}"#, "invalid-field", "links"),
                (#"{"links": [], "extra": 1}"#, "unknown-field", "extra"),
                ("{\"links\": [" + Array(repeating: link, count: 1001).joined(separator: ",") + "]}", "invalid-field", "links"),
            ] as [(String, String, String?)] {
                let r = try await client.call(.post, "/api/links/bulk", token: h.writer, body: body)
                #expect(r.status == .badRequest, "\(body.prefix(40)): \(r.text)")
                #expect(r.json?.at("error.code")?.stringValue == code && r.json?.at("error.field")?.stringValue == field, "\(r.text)")
            }
            #expect(try await client.call(.get, "/api/links", token: h.reader).json?["links"]?.arrayValue?.isEmpty == true)
            // 1,000 links of about 60 bytes each are over the single-request limit (16 KB) and within the bulk one.
            let thousand = "{\"links\": [" + (0..<1000).map { #"{"deepLink": "plur://group/bulk-\#($0)", "tags": ["batch"]}"# }.joined(separator: ",") + "]}"
            #expect(thousand.utf8.count > 16 * 1024)
            let made = try await client.call(.post, "/api/links/bulk", token: h.writer, body: thousand)
            #expect(made.status == .ok && made.json?["created"] == .int(1000), "\(made.text.prefix(300))")
            let tooLarge = try await client.call(.post, "/api/links/bulk", token: h.writer, body: "{\"links\": [" + String(repeating: " ", count: 3 << 20) + "]}")
            #expect(tooLarge.status == .contentTooLarge && tooLarge.json?.at("error.code")?.stringValue == "body-too-large", "\(tooLarge.text)")
            #expect(tooLarge.json?.at("error.message")?.stringValue?.hasSuffix("the service.maximumBulkBodyBytes of the configuration") == true, "\(tooLarge.text)")
            // One link is held to the size POST /api/links takes, in a bulk too.
            let big = #"{"deepLink": "plur://group/big", "description": ""# + String(repeating: "d", count: 20_000) + "\"}"
            let sized = try await client.call(.post, "/api/links/bulk", token: h.writer, body: "{\"links\": [\(big), \(link)]}")
            #expect(sized.json?["results"]?.arrayValue?.map { $0["status"] } == [.int(413), .int(201)], "\(sized.text.prefix(400))")
            // The links API's own path is no code.
            let reserved = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/x", "code": "bulk"}"#)
            #expect(reserved.status == .badRequest && reserved.json?.at("error.message")?.stringValue == #"code "bulk" is the links API's own path (/api/links/bulk); choose another"#, "\(reserved.text)")
            let reader = try await client.call(.post, "/api/links/bulk", token: h.reader, body: "{\"links\": [\(link)]}")
            #expect(reader.status == .forbidden, "\(reader.text)")
        }
    }

    /// Every 100 links of a bulk request count as one request against the token's limit.
    @Test func aBulkRequestDrawsOnTheTokensLimitPerHundredLinks() async throws {
        let h = try await Harness.make(extra: "rateLimit:\n  perToken: {perMinute: 6, burst: 4}\n  perAddress: {perMinute: 100000, burst: 100000}\n")
        try await h.app().test(.router) { client in
            let links = { (n: Int, tag: String) in "{\"links\": [" + (0..<n).map { #"{"deepLink": "plur://group/\#(tag)-\#($0)"}"# }.joined(separator: ",") + "]}" }
            let first = try await client.call(.post, "/api/links/bulk", token: h.writer, body: links(250, "a"))
            #expect(first.status == .ok && first.json?["created"] == .int(250), "\(first.text.prefix(300))")
            // Three of the four taken: a second of 250 needs three more.
            let second = try await client.call(.post, "/api/links/bulk", token: h.writer, body: links(250, "b"))
            #expect(second.status == .tooManyRequests && second.headers[.retryAfter] != nil, "\(second.text.prefix(300))")
            #expect(try await h.store.searchLinks("plur://group/b", limit: 10).isEmpty)
        }
    }
}
