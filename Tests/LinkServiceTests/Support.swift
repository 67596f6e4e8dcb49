import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
@testable import LinkStorage
import LinkConfiguration
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// A service over a fresh SQLite store with the example configuration (plus `extra` YAML),
/// a manual clock, and tokens for each scope.
struct Harness {
    let service: LinkService
    let store: LinkStore
    let clock: ManualClock
    let writer: String
    let reader: String
    let admin: String

    final class ManualClock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds: Double = 1000
        private var date = Date(timeIntervalSince1970: 1_790_000_000)
        var now: Double { lock.withLock { seconds } }
        var today: Date { lock.withLock { date } }
        func advance(_ s: Double) { lock.withLock { seconds += s; date += s } }
    }

    /// The example's route table as a `routes:` section, for tests that add routes to it (the
    /// landing pages name its routes, so a replacement keeps them).
    static func routes(adding more: [String]) -> String {
        let plur = [
            #"{name: inviteEmbedded, pattern: "/i/{target:url}"}"#,
            #"{name: invite, pattern: "/i/{code}"}"#,
            #"{name: join, pattern: "/join/{groupId}", query: {code: code, relay: relay?}}"#,
            #"{name: joinCommunity, pattern: /join-community, query: {group-id: groupId, code: code, relay: relay?}}"#,
            #"{name: group, pattern: "/g/{groupId}", query: {relay: relay?}}"#,
            #"{name: appJoinCommunity, pattern: "plur://join-community", query: {group-id: groupId, code: code, relay: relay?}}"#,
            #"{name: appGroup, pattern: "plur://group/{groupId}", query: {relay: relay?}}"#,
        ]
        return "routes:\n" + (plur + more).map { "  - " + $0 + "\n" }.joined()
    }

    static func make(extra: String = "", backend: Backend = .sqlite, store given: LinkStore? = nil) async throws -> Harness {
        let base = try String(contentsOfFile: try #require(ServiceConfiguration.examplePath), encoding: .utf8)
        let path = Backend.temporaryPath("config") + "/config.yaml"
        try (replacingSections(of: base, with: extra) + (extra.contains("resolve:") ? "\n" : "\nresolve: {offline: true}\n") + extra).write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try ServiceConfiguration(contentsOf: path)
        let store: LinkStore
        if let given { store = given } else { store = try await backend.freshStore() }
        let clock = ManualClock()
        let service = try LinkService(configuration: configuration, store: store, now: { clock.today }, clock: { clock.now })
        // A second node on a store another harness made: its tokens need names of their own.
        let suffix = given == nil ? "" : "-" + UUID().uuidString.prefix(8).lowercased()
        func token(_ name: String, _ scopes: [TokenScope]) async throws -> String {
            let issued = APIToken.issue(name: name + suffix, scopes: scopes)
            try await store.insert(issued.record)
            return issued.token
        }
        return Harness(service: service, store: service.store, clock: clock,
                       writer: try await token("writer", [.linksWrite, .linksRead]),
                       reader: try await token("reader", [.linksRead]),
                       admin: try await token("admin", [.admin]))
    }

    /// The example YAML without the top-level sections `extra` redefines.
    static func replacingSections(of base: String, with extra: String) -> String {
        func key(_ line: Substring) -> String? {
            guard let first = line.first, first.isLetter, let colon = line.firstIndex(of: ":") else { return nil }
            return String(line[..<colon])
        }
        let redefined = Set(extra.split(separator: "\n").compactMap(key))
        var keep = true
        return base.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            if let k = key(line) { keep = !redefined.contains(k) }
            return keep
        }.joined(separator: "\n")
    }

    func app(lane: Bool = true) -> some ApplicationProtocol { service.application(port: 0, lane: lane) }

    /// A new token with `scopes`, stored.
    func token(_ name: String, _ scopes: [TokenScope]) async throws -> String {
        let issued = APIToken.issue(name: name + "-" + UUID().uuidString.prefix(8).lowercased(), scopes: scopes)
        try await store.insert(issued.record)
        return issued.token
    }

    /// Two nodes with `extra` on one fresh PostgreSQL database, both live: `test` gets the first
    /// node's harness (its tokens work on both) and a client of each.
    static func twoNodes(extra: String, _ test: @escaping @Sendable (Harness, any TestClientProtocol, any TestClientProtocol) async throws -> Void) async throws {
        let location = try await Backend.postgres.freshLocation()
        let a = try await Harness.make(extra: extra, store: try await LinkStore.open(location))
        let b = try await Harness.make(extra: extra, store: try await LinkStore.open(location))
        try await a.app().test(.live) { nodeA in
            try await b.app().test(.live) { nodeB in try await test(a, nodeA, nodeB) }
        }
    }
}

extension TestClientProtocol {
    /// The User-Agent `call` sends when the test gives none: a desktop browser's.
    static var browser: String { "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0" }

    /// Sends a JSON body with a bearer token and returns (status, parsed body, headers).
    @discardableResult
    func call(_ method: HTTPRequest.Method, _ uri: String, token: String? = nil, body: String? = nil,
              headers extra: HTTPFields = [:]) async throws -> (status: HTTPResponse.Status, json: JSONValue?, text: String, headers: HTTPFields) {
        var headers = extra
        // A person's browser unless the test says otherwise (a request without a User-Agent is a
        // script's, and never uses up a link).
        if headers[.userAgent] == nil { headers[.userAgent] = Self.browser }
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
            let text = String(buffer: response.body)
            return (response.status, try? JSONParser.parse(text), text, response.headers)
        }
    }
}

extension JSONValue {
    /// A member path such as "error.code".
    func at(_ path: String) -> JSONValue? {
        path.split(separator: ".").reduce(Optional(self)) { $0?[String($1)] }
    }
}
