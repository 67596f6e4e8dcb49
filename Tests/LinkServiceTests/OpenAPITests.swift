import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkConfiguration
@testable import LinkStorage
@testable import LinkService
@testable import LinkImport
import SwitchyardCore
import Testing

/// The OpenAPI document (`Sources/LinkService/Resources/openapi.json`, served at /openapi.json)
/// describes exactly the routes the router serves.
@Suite struct OpenAPITests {
    /// "METHOD /path" for every operation of the document; the catch-all `**` routes are written
    /// there as `/{path}` (any other path) and `/i/{code}/{rest}`.
    static func documentedOperations(_ document: JSONValue) -> Set<String> {
        var operations: Set<String> = []
        for (path, item) in document["paths"]?.objectMembers ?? [] {
            for (method, _) in item.objectMembers ?? [] where ["get", "put", "post", "delete", "patch", "head", "options"].contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func everyServedRouteIsDocumentedAndEveryDocumentedOperationIsServed() async throws {
        let h = try await Harness.make()
        let served = Set(h.service.router().routes.map { route -> String in
            var path = route.path.description
            if path == "/**" { path = "/{path}" }
            if path == "/i/{code}/**" { path = "/i/{code}/{rest}" }
            return "\(route.method) \(path)"
        })
        try await h.app().test(.router) { client in
            let answer = try await client.call(.get, "/openapi.json")
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/json")
            let document = try #require(answer.json)
            #expect(document["openapi"]?.stringValue == "3.1.0")
            let documented = Self.documentedOperations(document)
            #expect(served.subtracting(documented).isEmpty, "served, not documented: \(served.subtracting(documented).sorted())")
            #expect(documented.subtracting(served).isEmpty, "documented, not served: \(documented.subtracting(served).sorted())")
            #expect(served.count >= 20)
            // Every operation has an id and its answers; every reference points at a schema.
            let schemas = Set(document["components"]?["schemas"]?.objectMembers?.map(\.key) ?? [])
            for (path, item) in document["paths"]?.objectMembers ?? [] {
                for (method, operation) in item.objectMembers ?? [] where method != "parameters" {
                    #expect(operation["operationId"]?.stringValue != nil, "\(method) \(path)")
                    #expect(operation["responses"]?.objectMembers?.isEmpty == false, "\(method) \(path)")
                }
            }
            let text = answer.text
            var references = text.components(separatedBy: "\"$ref\": \"#/components/schemas/").dropFirst().map { String($0.prefix { $0 != "\"" }) }
            if references.isEmpty { references = text.components(separatedBy: "\"$ref\":\"#/components/schemas/").dropFirst().map { String($0.prefix { $0 != "\"" }) } }
            #expect(!references.isEmpty)
            for r in references { #expect(schemas.contains(r), "unknown schema \(r)") }
        }
    }

    /// The paths the configuration keeps from route tables and link targets, and the codes the
    /// importer refuses, are the router's: every route the service serves (apart from the pages
    /// a route table may share, `/i/…`, `/d/…` and the catch-alls) is a reserved path, and every
    /// reserved first segment is served.
    @Test func theReservedPathsAreTheServedOnes() async throws {
        let h = try await Harness.make()
        let paths = Set(h.service.router().routes.map { $0.path.description })
        var firsts: Set<String> = []
        for path in paths {
            let segments = path.split(separator: "/").map(String.init)
            guard let first = segments.first, first != "**", !["i", "d"].contains(first) else { continue }
            firsts.insert(first)
            let sample = "/" + segments.map { $0.hasPrefix("{") || $0.hasPrefix("*") ? "x" : $0 }.joined(separator: "/")
            #expect(ServiceConfiguration.isServicePath(sample), "\(path) is served but not reserved")
        }
        #expect(firsts == ServiceConfiguration.servicePaths, "served: \(firsts.sorted()); reserved: \(ServiceConfiguration.servicePaths.sorted())")
        // The pages under /i/ and /d/ that are the service's own are reserved too.
        for path in paths where path.hasPrefix("/i/{code}/qr") || path.hasPrefix("/d/") {
            #expect(ServiceConfiguration.isServicePath(path.replacingOccurrences(of: "{code}", with: "x").replacingOccurrences(of: "{token}", with: "x")), "\(path)")
        }
        #expect(LinkImport.servicePaths == ServiceConfiguration.servicePaths.union(["i", "d"]))
    }

    /// A form over the body limit is 413 on every dashboard form (signed in, so the body is read),
    /// and the document says so for each of them (the forms answered an undocumented 413).
    @Test func oversizedFormsAre413AndDocumented() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let document = try #require(try await client.call(.get, "/openapi.json").json)
            var browser = DashboardTests.Browser(client: client)
            _ = try await browser.signIn(h.writer)
            let big = [("token", String(repeating: "a", count: 3_000_000))]  // over the bulk form's 2 MiB too
            var checked = 0
            for (path, item) in document["paths"]?.objectMembers ?? [] where path.hasPrefix("/admin") {
                guard let operation = item["post"] else { continue }
                let r = try await browser.post(path.replacingOccurrences(of: "{code}", with: "abcdef"), big)
                #expect(r.status == .contentTooLarge, "POST \(path): \(r.status)")
                #expect(operation["responses"]?["413"] != nil, "POST \(path) answers 413 but its document does not say so")
                checked += 1
            }
            #expect(checked == 6)
        }
    }

    /// A path the service's own routes begin but do not complete (`/i`, `/d`) is no page: its 404
    /// is the JSON error, and the document of GET /{path} says so (schemathesis found `/i`).
    @Test func anIncompleteServicePathIs404InADocumentedType() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let document = try #require(try await client.call(.get, "/openapi.json").json)
            let documented = document["paths"]?["/{path}"]?["get"]?["responses"]?["404"]?["content"]?.objectMembers?.map(\.key) ?? []
            for path in ["/i", "/d", "/no-such-page"] {
                let r = try await client.call(.get, path)
                #expect(r.status == .notFound, "\(path)")
                let type = r.headers[.contentType]?.split(separator: ";").first.map(String.init) ?? ""
                #expect(documented.contains(type), "GET \(path): \(type) is not among \(documented)")
            }
        }
    }

    /// Every API operation the document secures with a token (`bearer`, `inviteToken`) refuses a
    /// request without one, 401 `missing-token` (`UNAUTHENTICATED` under /v1), whatever its body: the guard runs before the
    /// handler reads anything.
    @Test func everyTokenSecuredOperationRefusesARequestWithoutAToken() async throws {
        let h = try await Harness.make()
        let document = try #require(try await h.app().test(.router) { client in try await client.call(.get, "/openapi.json").json })
        var secured: [(HTTPRequest.Method, String)] = []
        for (path, item) in document["paths"]?.objectMembers ?? [] {
            for (method, operation) in item.objectMembers ?? [] {
                let schemes = (operation["security"]?.arrayValue ?? []).flatMap { $0.objectMembers?.map(\.key) ?? [] }
                guard schemes.contains("bearer") || schemes.contains("inviteToken"), let m = HTTPRequest.Method(method.uppercased()) else { continue }
                secured.append((m, path.replacingOccurrences(of: "{code}", with: "abcdefgh").replacingOccurrences(of: "{id}", with: String(repeating: "x", count: 43))
                    .replacingOccurrences(of: "{link}", with: "https%3A%2F%2Frabble.community%2Fabcd")))
            }
        }
        #expect(secured.count >= 9, "\(secured.map { "\($0.0) \($0.1)" })")
        let operations = secured
        try await h.app().test(.router) { client in
            for (method, path) in operations {
                let answer = try await client.call(method, path, body: method == .get || method == .delete ? nil : "{}")
                // Firebase's REST API answers in Google's shape.
                let refusal = path.hasPrefix("/v1/") ? answer.json?.at("error.status")?.stringValue == "UNAUTHENTICATED" : answer.json?.at("error.code")?.stringValue == "missing-token"
                #expect(answer.status == .unauthorized && refusal, "\(method) \(path): \(answer.status) \(answer.text)")
            }
        }
    }
}
