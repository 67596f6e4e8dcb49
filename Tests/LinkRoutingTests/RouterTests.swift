import SwitchyardCore
import Foundation
import LinkRouting
import SwitchyardTestSupport
import Testing

enum PlurTable {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples/plur-routes.yaml").path
    static func load() throws -> LinkRouter { try LinkRouter(contentsOf: path) }
}

/// What the Plur app does with a link, as a typed value.
enum PlurDestination: Equatable {
    case invite(code: String)
    case join(groupId: String, code: String, relay: String?)
    case group(groupId: String, relay: String?)
    case home

    init?(_ m: RouteMatch) {
        switch m.route {
        case "invite": self = .invite(code: m.string("code")!)
        case "inviteEmbedded":
            guard case .url(_, let nested?)? = m["target"], let inner = PlurDestination(nested) else { return nil }
            self = inner
        case "join", "joinCommunity", "appJoinCommunity":
            self = .join(groupId: m.string("groupId")!, code: m.string("code")!, relay: m.string("relay"))
        case "group", "appGroup": self = .group(groupId: m.string("groupId")!, relay: m.string("relay"))
        case "appHome": self = .home
        default: return nil
        }
    }
}

@Suite struct RouterTests {
    struct PlurCase: Sendable, CustomStringConvertible {
        let url: String
        let route: String
        let destination: String
        var description: String { url }
    }

    static let relay = "wss%3A%2F%2Frelay.rabble.community"

    @Test(arguments: [
        PlurCase(url: "https://rabble.community/i/ABC123", route: "invite", destination: "invite(code: \"ABC123\")"),
        PlurCase(url: "https://rabble.community/i/plur://join-community?group-id=G1&code=C1&relay=\(relay)", route: "inviteEmbedded",
                 destination: "join(groupId: \"G1\", code: \"C1\", relay: Optional(\"wss://relay.rabble.community\"))"),
        PlurCase(url: "https://rabble.community/join/G2?code=C2&relay=\(relay)", route: "join",
                 destination: "join(groupId: \"G2\", code: \"C2\", relay: Optional(\"wss://relay.rabble.community\"))"),
        PlurCase(url: "https://rabble.community/join-community?group-id=G3&code=C3&relay=\(relay)", route: "joinCommunity",
                 destination: "join(groupId: \"G3\", code: \"C3\", relay: Optional(\"wss://relay.rabble.community\"))"),
        PlurCase(url: "https://rabble.community/g/G4?relay=\(relay)", route: "group",
                 destination: "group(groupId: \"G4\", relay: Optional(\"wss://relay.rabble.community\"))"),
        PlurCase(url: "https://www.rabble.community/g/G4/", route: "group", destination: "group(groupId: \"G4\", relay: nil)"),
        PlurCase(url: "plur://join-community?group-id=G5&code=C5&relay=\(relay)", route: "appJoinCommunity",
                 destination: "join(groupId: \"G5\", code: \"C5\", relay: Optional(\"wss://relay.rabble.community\"))"),
        PlurCase(url: "plur://group/G6?relay=\(relay)", route: "appGroup", destination: "group(groupId: \"G6\", relay: Optional(\"wss://relay.rabble.community\"))"),
        PlurCase(url: "plur://", route: "appHome", destination: "home"),
    ])
    func routesEveryPlurLink(_ c: PlurCase) throws {
        let router = try PlurTable.load()
        let match = try #require(router.route(c.url).match, "\(router.route(c.url))")
        #expect(match.route == c.route)
        let destination = try #require(PlurDestination(match))
        #expect(String(describing: destination) == c.destination)
        #expect(router.routeLinearly(c.url) == match)
    }

    @Test(arguments: [
        ("https://rabble.community/join/G2?relay=x", "route join needs the query item code"),
        ("https://evil.example/g/G1", "host evil.example is not one of this table's hosts (rabble.community, www.rabble.community)"),
        ("https://rabble.community/nope/1", "no route matches the path /nope/1"),
        ("mailto://x", "no routes for the mailto: scheme"),
        ("not a url", "\"not a url\" is not an absolute URL"),
    ])
    func saysWhyNothingMatched(_ url: String, _ reason: String) throws {
        #expect(try PlurTable.load().route(url) == .unmatched(reason: reason))
    }

    /// A Unicode host in the table is the host browsers send for it (punycode, lower case): URLs
    /// to it match whichever way they write it, and the table says its hosts that way.
    @Test func aUnicodeHostIsTheHostBrowsersSend() throws {
        let router = try LinkRouter(hosts: ["Bücher.example"], routes: [Route(name: "item", pattern: "/i/{id}")])
        #expect(router.hosts == ["xn--bcher-kva.example"])
        #expect(router.route("https://bücher.example/i/a").match?.route == "item")
        #expect(router.route("https://xn--bcher-kva.example/i/a").match?.route == "item")
        #expect(BrowserURL.sentHost("bücher.example", of: "https://bücher.example/i/a") == "xn--bcher-kva.example")
        #expect(BrowserURL.sentHost("plain.example", of: "https://plain.example/") == "plain.example")
    }

    /// A match goes into a `NavigationPath` (Hashable) and state restoration (Codable) as it is.
    @Test func aMatchIsHashableAndSurvivesEncoding() throws {
        let router = try LinkRouter(hosts: ["example.com"], routes: [
            Route(name: "tab", pattern: "/tabs/{tab:home|search}/{id:uuid}", query: [("page", "page:int?")]),
        ])
        let match = try #require(router.route("https://example.com/tabs/search/3F2504E0-4F89-11D3-9A0C-0305E82C3301?page=3").match)
        let decoded = try JSONDecoder().decode(RouteMatch.self, from: JSONEncoder().encode(match))
        #expect(decoded == match)
        #expect(decoded.int("page") == 3 && decoded["id"] == .uuid("3f2504e0-4f89-11d3-9a0c-0305e82c3301"))
        #expect(Set([match, decoded]).count == 1)
        let other = try #require(router.route("https://example.com/tabs/home/3F2504E0-4F89-11D3-9A0C-0305E82C3301").match)
        #expect(Set([match, other]).count == 2)
    }

    @Test func typedParametersAndEnumerations() throws {
        let router = try LinkRouter(hosts: ["example.com"], routes: [
            Route(name: "item", pattern: "/items/{id:int}"),
            Route(name: "user", pattern: "/users/{id:uuid}"),
            Route(name: "tab", pattern: "/tabs/{tab:home|search|profile}", query: [("page", "page:int?")]),
            Route(name: "files", pattern: "/files/{path:*}"),
            Route(name: "fallback", pattern: "/{anything:*}"),
        ])
        #expect(router.route("https://example.com/items/42").match?.int("id") == 42)
        #expect(router.route("https://example.com/items/forty-two").match?.route == "fallback")
        #expect(router.route("https://example.com/users/3F2504E0-4F89-11D3-9A0C-0305E82C3301").match?["id"] == .uuid("3f2504e0-4f89-11d3-9a0c-0305e82c3301"))
        #expect(router.route("https://example.com/tabs/search?page=3").match?.parameters == ["tab": .string("search"), "page": .int(3)])
        #expect(router.route("https://example.com/tabs/settings").match?.route == "fallback")
        #expect(router.route("https://example.com/tabs/home?page=x") == .matched(RouteMatch(route: "fallback", index: 4, parameters: ["anything": .string("tabs/home")])))
        #expect(router.route("https://example.com/files/a/b%2Fc/d.txt").match?.string("path") == "a/b/c/d.txt")
        #expect(router.route("https://example.com/").match?.route == "fallback")
    }

    @Test func firstMatchWinsAndEncodedSlashAndPlusStayInTheParameter() throws {
        let router = try LinkRouter(hosts: ["example.com"], routes: [
            Route(name: "specific", pattern: "/a/{x}"),
            Route(name: "literal", pattern: "/a/b"),
        ])
        #expect(router.route("https://example.com/a/b").match?.route == "specific")
        let m = try #require(router.route("https://example.com/a/one%2Ftwo+three%2B").match)
        #expect(m.string("x") == "one/two+three+")
        #expect(router.url(for: m) == "https://example.com/a/one%2Ftwo%2Bthree%2B")
    }

    @Test func buildsCanonicalURLs() throws {
        let router = try PlurTable.load()
        let join = RouteMatch(route: "join", parameters: ["groupId": .string("g 1"), "code": .string("a&b=c"), "relay": .string("wss://r.example/x?y")])
        #expect(router.url(for: join) == "https://rabble.community/join/g%201?code=a%26b%3Dc&relay=wss%3A%2F%2Fr.example%2Fx%3Fy")
        #expect(router.url(route: "appGroup", parameters: ["groupId": .string("G6")]) == "plur://group/G6")
        #expect(router.url(route: "join", parameters: ["groupId": .string("G")]) == nil)  // code is required
        #expect(router.url(route: "appHome", parameters: [:]) == "plur://")
        #expect(router.url(route: "inviteEmbedded", parameters: ["target": .string("plur://group/G?relay=x")]) == "https://rabble.community/i/plur://group/G?relay=x")
    }

    @Test func buildThenRouteRoundTrips() throws {
        let router = try PlurTable.load()
        var rng = SeededGenerator(seed: 2026)
        let alphabet = Array("abcXYZ019 -_.~/+?&=#%:é😀")
        func value() -> String { String((0..<Int.random(in: 1...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }) }
        for _ in 0..<2_000 {
            let route = router.routes.filter { $0.name != "inviteEmbedded" }.randomElement(using: &rng)!
            var params: [String: RouteValue] = [:]
            for name in route.parameterNames where name != "relay" || Bool.random(using: &rng) {
                params[name] = .string(value())
            }
            guard let url = router.url(route: route.name, parameters: params) else {
                Issue.record("could not build \(route.name) from \(params)")
                continue
            }
            let back = router.route(url).match
            #expect(back?.route == route.name, "\(url)")
            #expect(back?.parameters == params, "\(url)")
        }
    }

    @Test func trieAgreesWithLinearScanOnRandomTables() throws {
        var rng = SeededGenerator(seed: 7)
        let words = ["a", "b", "users", "items", "x", "g", "join"]
        var routes: [Route] = []
        for i in 0..<200 {
            let segments = (0..<Int.random(in: 0...3, using: &rng)).map { j -> String in
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: return "{p\(j):int}"
                case 1: return "{p\(j)}"
                case 2: return "{p\(j):a|b}"
                default: return words.randomElement(using: &rng)!
                }
            }
            let tail = Int.random(in: 0..<10, using: &rng) == 0 ? ["{rest:*}"] : []
            routes.append(try Route(name: "r\(i)", pattern: "/" + (segments + tail).joined(separator: "/"), query: Bool.random(using: &rng) ? [("q", "q:int?")] : []))
        }
        let router = try LinkRouter(hosts: ["h.example"], routes: routes)
        for _ in 0..<3_000 {
            let path = (0..<Int.random(in: 0...4, using: &rng)).map { _ in (words + ["1", "22", "a", "zz"]).randomElement(using: &rng)! }.joined(separator: "/")
            let url = "https://h.example/\(path)" + (Bool.random(using: &rng) ? "?q=\(Int.random(in: 0...9, using: &rng))" : "")
            #expect(router.route(url).match == router.routeLinearly(url), "\(url)")
        }
    }

    @Test func loadErrorsSayWhere() {
        // A full universal link on a host the table does not have is not read as one of its hosts.
        #expect(throws: RouteTableError("routes[0]: route h: the pattern's host evil.com is not one of hosts (e.com); write the path alone (/…) or add the host to hosts")) {
            try LinkRouter(yaml: "hosts: [e.com]\nroutes:\n  - {name: h, pattern: 'http://evil.com/{code}'}\n")
        }
        #expect((try? LinkRouter(yaml: "hosts: [e.com]\nroutes:\n  - {name: h, pattern: 'https://E.com/{code}'}\n"))?.routes.count == 1)
        // A URL or host:port in hosts would never equal a link's host: nothing would route.
        #expect(throws: RouteTableError(#"hosts[0]: "https://links.e.com" is not a host name; give the host alone, without scheme, port or path: links.e.com"#)) {
            try LinkRouter(yaml: "hosts: ['https://links.e.com']\nroutes:\n  - {name: a, pattern: /a}\n")
        }
        #expect(throws: RouteTableError(#"hosts[1]: "e.com:8443" is not a host name; give the host alone, without scheme, port or path: e.com"#)) {
            try LinkRouter(yaml: "hosts: [e.com, 'e.com:8443']\nroutes:\n  - {name: a, pattern: /a}\n")
        }
        #expect(throws: RouteTableError(#"routes[0]: route a: "{id:integer}": unknown parameter type "integer" — did you mean int? (types: string, int, uuid, url, *, path; an enum lists two or more values separated by |)"#)) {
            try LinkRouter(yaml: "hosts: [e.com]\nroutes:\n  - {name: a, pattern: '/a/{id:integer}'}\n")
        }
        #expect(throws: RouteTableError(#"routes[0]: route a: "{id:zzz}": unknown parameter type "zzz" (types: string, int, uuid, url, *, path; an enum lists two or more values separated by |)"#)) {
            try LinkRouter(yaml: "hosts: [e.com]\nroutes:\n  - {name: a, pattern: '/a/{id:zzz}'}\n")
        }
        #expect(throws: RouteTableError("routes[1].pattern: route b needs a pattern")) {
            try LinkRouter(yaml: "hosts: [e.com]\nroutes:\n  - {name: a, pattern: /a}\n  - {name: b}\n")
        }
        #expect(throws: RouteTableError("routes[0]: route a: a url or * parameter must be the last segment")) {
            try LinkRouter(yaml: "hosts: [e.com]\nroutes:\n  - {name: a, pattern: '/{u:url}/x'}\n")
        }
        // Two parameters in one segment, or text beside one, are refused (`/{a}{b}` read as a
        // parameter named "a}{b" before).
        for segment in ["{a}{b}", "x{a}", "{a}x", "{a{b}}"] {
            #expect(throws: RouteTableError("routes[0]: route a: \"\(segment)\" mixes text and a parameter, or holds more than one; a parameter must be a whole segment")) {
                try LinkRouter(yaml: "hosts: [e.com]\nroutes:\n  - {name: a, pattern: '/\(segment)'}\n")
            }
        }
        #expect(throws: RouteTableError("routes[1]: route name a is used twice (routes[0] has it)")) {
            try LinkRouter(yaml: "hosts: [e.com]\nroutes:\n  - {name: a, pattern: /a}\n  - {name: a, pattern: /b}\n")
        }
        #expect(throws: RouteTableError("routes[0]: route a: \"{x:a|b|a}\": the enum \"a|b|a\" lists \"a\" twice")) {
            try LinkRouter(yaml: "hosts: [e.com]\nroutes:\n  - {name: a, pattern: '/{x:a|b|a}'}\n")
        }
    }
}
