import SwitchyardTestSupport
import AssociatedDomains
import Foundation
import Hummingbird
import HummingbirdTesting
import LinkConfiguration
import LinkRouting
import LinkStorage
import LinkService
import SwitchyardCore
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
            // RFC 9110: `*`, a list, and a weak tag all name the current version; another tag does not.
            let tag = try #require(etag)
            for header in ["*", "\"other\", \(tag)", "W/\(tag)"] {
                let status = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: [.ifNoneMatch: header]) { $0.status }
                #expect(status == .notModified, "\(header)")
            }
            let other = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: [.ifNoneMatch: "\"other\""]) { $0.status }
            #expect(other == .ok)
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
                #expect(String(buffer: response.body).hasPrefix(#"{"status":"ok","database":"sqlite","storage":{"writable":true,"checked":""#))
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
        #expect(throws: ConfigurationError("apple[0].teamId: \"TEAMID\" is not a team ID (10 capital letters and digits: Membership details in the developer account)")) {
            try ServiceConfiguration(document: try JSONParser.parse(#"{"apple": [{"teamId": "TEAMID", "bundleId": "com.example"}], "hosts": ["e.com"], "routes": []}"#))
        }
        #expect(throws: ConfigurationError("routes[0].pattern: route a needs a pattern")) {
            try ServiceConfiguration(document: try JSONParser.parse(#"{"hosts": ["e.com"], "routes": [{"name": "a"}]}"#))
        }
    }

    struct RefusedCase: Sendable, CustomStringConvertible {
        let yaml: String
        let message: String
        var description: String { message }
    }

    /// Unknown keys and wrong types at any depth are refused before anything is used, with the
    /// key's path and, where one is close, a suggestion.
    @Test(arguments: [
        RefusedCase(yaml: "service: {publicUrl: https://e.com}", message: "service.publicUrl: unknown key — did you mean publicURL?"),
        RefusedCase(yaml: "apple: [{teamId: 12, bundleId: com.example.app}]", message: "apple[0].teamId: expected a string, got 12"),
        RefusedCase(yaml: "landing: {pages: {a: {app: b, titel: T}}}", message: "landing.pages.a.titel: unknown key — did you mean title?"),
        RefusedCase(yaml: "rateLimit: {perToken: {perMinute: lots}}", message: #"rateLimit.perToken.perMinute: expected an integer, got "lots""#),
        RefusedCase(yaml: "resolve: {offline: yes please}", message: #"resolve.offline: expected true or false, got "yes please""#),
        RefusedCase(yaml: "routes: [{name: a, pattern: /a, qeury: {x: y}}]", message: "routes[0].qeury: unknown key — did you mean query?"),
        RefusedCase(yaml: "databse: x", message: "databse: unknown key (known: android, apple, appleCDN, deferred, domains, fdlPrefixes, hosts, invites, landing, links, qr, rateLimit, resolve, routeTable, routes, service, visits, webcredentials, webhooks)"),
        RefusedCase(yaml: #"service: {publicURL: "https://evil.com\\@e.com"}"#, message: #"service.publicURL: "https://evil.com\\@e.com": the URL contains a backslash, which browsers read as a slash"#),
        RefusedCase(yaml: "service: {publicURL: https://e.com/links}", message: #"service.publicURL: "https://e.com/links" must be an origin such as https://links.example.com, without path, query or fragment"#),
        RefusedCase(yaml: "service: {redirectHosts: [example.com.]}", message: #"service.redirectHosts[0]: "example.com." has an empty label in its host (a leading, trailing or double dot)"#),
        RefusedCase(yaml: "service: {deepLinkSchemes: [javascript]}", message: "service.deepLinkSchemes[0]: javascript: cannot be a deep-link scheme"),
        RefusedCase(yaml: "service: {deepLinkSchemes: [plur, Intent]}", message: "service.deepLinkSchemes[1]: intent: opens a browser (or may fall back to a web page), so it cannot be a deep-link scheme"),
        RefusedCase(yaml: "service: {deepLinkSchemes: [x-safari-https]}", message: "service.deepLinkSchemes[0]: x-safari-https: opens a browser (or may fall back to a web page), so it cannot be a deep-link scheme"),
        RefusedCase(yaml: "apple: [{teamId: ABCDE12345, bundleId: com.example.app, scheme: \"my app\"}]", message: #"apple[0].scheme: "my app" is not a URL scheme (a letter, then letters, digits, + - .)"#),
        RefusedCase(yaml: "landing: {webURL: \"https://evil.example/\"}", message: "landing.webURL: host evil.example is not one of the configuration's hosts or service.redirectHosts"),
        RefusedCase(yaml: "landing: {image: \"https://e.com:99999/x.png\"}", message: #"landing.image: "https://e.com:99999/x.png": the URL has a port above 65535"#),
        RefusedCase(yaml: "routes: [{name: a, pattern: \"/a/{code:intt}\"}]", message: #"routes[0]: route a: "{code:intt}": unknown parameter type "intt" — did you mean int? (types: string, int, uuid, url, *, path; an enum lists two or more values separated by |)"#),
        RefusedCase(yaml: "routes: [{name: dash, pattern: \"/Admin/{x}\"}]", message: #"routes.dash: the pattern "/Admin/{x}" claims /admin, a path the service answers itself (/.well-known, /admin, /api, /apple-app-site-association, /healthz, /metrics, /openapi.json, /v1); choose another path or mark the route exclude: true"#),
        RefusedCase(yaml: "apple: [{teamId: ABCDE12345, bundleId: com.example.app, appStoreId: abc}]", message: #"apple[0].appStoreId: "abc" is not an App Store ID (digits only, as in apps.apple.com/app/id1234567890)"#),
        RefusedCase(yaml: "routes: [{name: a, pattern: /a}, {name: p, pattern: \"shop://p/{id}\"}]\napple: [{teamId: ABCDE12345, bundleId: com.example.app}]",
                    message: #"routes.p: the pattern "shop://p/{id}" uses the scheme shop:, which is no app's scheme here; set apple[].scheme: shop (or list it in service.deepLinkSchemes)"#),
        RefusedCase(yaml: "routes: [{name: a, pattern: /a}, {name: j, pattern: \"javascript://x/{id}\"}]\napple: [{teamId: ABCDE12345, bundleId: com.example.app}]",
                    message: #"routes.j: the pattern "javascript://x/{id}" uses javascript: cannot be a deep-link scheme"#),
        RefusedCase(yaml: "routes: [{name: a, pattern: /a}, {name: m, pattern: \"maps://x/{id}\"}]\napple: [{teamId: ABCDE12345, bundleId: com.example.app}]",
                    message: #"routes.m: the pattern "maps://x/{id}" uses maps: belongs to the system (iOS never routes it to an app), so it cannot be an app's scheme"#),
        RefusedCase(yaml: "apple: [{teamId: ABCDE12345, bundleId: ABCDE12345.com.e.app}]",
                    message: #"apple[0].bundleId: "ABCDE12345.com.e.app" starts with the team ID; give the bundle ID alone (com.e.app)"#),
        RefusedCase(yaml: "webcredentials: \"yes\"", message: #"webcredentials: expected true or false, got "yes""#),
        RefusedCase(yaml: "routes: [{name: h, pattern: \"https://e.com/healthz\"}]", message: #"routes.h: the pattern "https://e.com/healthz" claims /healthz, a path the service answers itself (/.well-known, /admin, /api, /apple-app-site-association, /healthz, /metrics, /openapi.json, /v1); choose another path or mark the route exclude: true"#),
    ])
    func unknownKeysAndWrongTypesAreRefusedAtAnyDepth(_ c: RefusedCase) throws {
        var yaml = "hosts: [e.com]\n" + c.yaml + "\n"
        if !c.yaml.hasPrefix("routes") { yaml += "routes: [{name: a, pattern: /a}]\n" }
        let file = TestTemporary.root.appendingPathComponent("config-\(UUID().uuidString).yaml")
        try Data(yaml.utf8).write(to: file)
        #expect(throws: ConfigurationError(c.message, location: SourceLocation(file: file.path))) { try ServiceConfiguration(contentsOf: file.path) }
    }

    /// A route on a scheme listed in `service.deepLinkSchemes` (in any case) is an app route.
    @Test func aRouteOnADeepLinkSchemeIsAccepted() throws {
        let yaml = "hosts: [e.com]\napple: [{teamId: ABCDE12345, bundleId: com.example.app}]\nservice: {deepLinkSchemes: [Shop]}\nroutes: [{name: a, pattern: /a}, {name: p, pattern: \"shop://p/{id}\"}]\n"
        let file = TestTemporary.root.appendingPathComponent("config-\(UUID().uuidString).yaml")
        try Data(yaml.utf8).write(to: file)
        let configuration = try ServiceConfiguration(contentsOf: file.path)
        #expect(configuration.allowedSchemes == ["shop"])
        #expect(configuration.router.routes.map(\.name) == ["a", "p"])
    }

    /// A YAML error says where, in one line, and never quotes the file: a configuration holds
    /// secrets (Yams's own message printed the whole mapping around a duplicate key).
    @Test func yamlErrorsNameThePlaceWithoutQuotingTheFile() throws {
        for (yaml, message) in [
            ("hosts: [e.com]\nwebhooks: {endpoints: [{name: x, url: \"https://h.example/\", secret: TOPSECRET-0123}]}\nhosts: [f.com]\n", "the key 'hosts' appears more than once in one mapping"),
            ("hosts: [e.com]\nwebhooks: {endpoints: [{name: x, secret: TOPSECRET-0123}\n", "line 3"),
            ("hosts: [e.com]\nroutes: " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "\n", "nested too deeply"),
        ] {
            let file = TestTemporary.root.appendingPathComponent("config-\(UUID().uuidString).yaml")
            try Data(yaml.utf8).write(to: file)
            do {
                _ = try ServiceConfiguration(contentsOf: file.path)
                Issue.record("accepted: \(yaml)")
            } catch {
                let text = "\(error)"
                #expect(text.hasPrefix("\(file.path): invalid YAML: line "), "\(text)")
                #expect(text.contains(message), "\(text)")
                #expect(!text.contains("TOPSECRET") && !text.contains("\n") && !text.contains("yaml_set"), "\(text)")
            }
        }
    }

    /// A catch-all route (`/{code}`) would hand the dashboard and the API to the app on iOS: the
    /// generated AASA excludes the service's own paths first; without a catch-all it lists none.
    @Test func theServicesOwnPathsAreExcludedBeforeACatchAllRoute() throws {
        let catchAll = try ServiceConfiguration(document: JSONParser.parse("""
            {"hosts": ["e.com"], "apple": [{"teamId": "ABCDE12345", "bundleId": "com.example.app", "scheme": "plur"}],
             "routes": [{"name": "code", "pattern": "/{code}"}, {"name": "app", "pattern": "plur://x/{code}"}]}
            """))
        let aasa = try AppSiteAssociation(json: JSONWriter.compact(catchAll.appSiteAssociation))
        for path in ["/admin", "/admin/links", "/api/links", "/healthz", "/metrics", "/openapi.json", "/.well-known/assetlinks.json"] {
            #expect(aasa.decide("https://e.com\(path)", for: "ABCDE12345.com.example.app") != .match, "\(path) goes to the app")
        }
        #expect(aasa.decide("https://e.com/abc", for: "ABCDE12345.com.example.app") == .match)
        let plain = try ServiceConfiguration(document: JSONParser.parse("""
            {"hosts": ["e.com"], "apple": [{"teamId": "ABCDE12345", "bundleId": "com.example.app"}], "routes": [{"name": "g", "pattern": "/g/{id}"}]}
            """))
        #expect(!JSONWriter.compact(plain.appSiteAssociation).contains("the server's own path"), "\(JSONWriter.compact(plain.appSiteAssociation))")
    }

    /// YAML floats are numbers, as YAML 1.2's core schema reads them (they were once read as
    /// text, so `scriptTimeLimit: 0.5` was refused with "expected a number").
    @Test func yamlFloatsAreNumbers() throws {
        let yaml = """
            hosts: [e.com]
            routes: [{name: a, pattern: /a}]
            resolve: {scriptTimeLimit: 0.5, regexTimeLimit: .25}
            webhooks: {firstRetryDelay: 2., maxRetryDelay: 1.5e2}

            """
        let file = TestTemporary.root.appendingPathComponent("config-\(UUID().uuidString).yaml")
        try Data(yaml.utf8).write(to: file)
        let configuration = try ServiceConfiguration(contentsOf: file.path)
        #expect(configuration.resolveScriptTimeLimit == 0.5)
        #expect(configuration.resolveRegexTimeLimit == 0.25)
        #expect(configuration.webhooks.firstRetryDelay == 2)
        #expect(configuration.webhooks.maxRetryDelay == 150)
    }
}

/// The service's own paths never go to the app (issue 42): every path it answers itself,
/// decided against the association files it serves, stays in the browser on iOS and Android,
/// while a link's page opens the app on both.
@Suite struct ServicePathsStayInTheBrowserTests {
    /// The AASA and the assetlinks.json the service hosts, as read back.
    static func servedFiles(_ h: Harness) async throws -> (AppSiteAssociation, AssetLinks) {
        let (aasaText, linksText) = try await h.app().test(.router) { client in
            (try await client.call(.get, "/.well-known/apple-app-site-association").text, try await client.call(.get, "/.well-known/assetlinks.json").text)
        }
        return (try #require(AppSiteAssociation.read(bytes: Array(aasaText.utf8)).0), try #require(AssetLinks.read(try JSONParser.parse(linksText)).0))
    }

    @Test func theServedFilesNeverHandTheServicesOwnPathsToTheApp() async throws {
        let h = try await Harness.make()
        let (aasa, links) = try await Self.servedFiles(h)
        let own = ["/i/Abc23456/qr.svg", "/i/Abc23456/qr.png", "/admin", "/admin/links", "/admin/links/Abc23456", "/api/links", "/api/invite/Abc23456",
                   "/healthz", "/metrics", "/openapi.json", "/.well-known/assetlinks.json", "/.well-known/apple-app-site-association",
                   "/apple-app-site-association", "/d/" + String(repeating: "a", count: 43)]
        Self.expect(aasa, links, browser: own, app: ["/i/Abc23456", "/g/ravers", "/join/g1?code=x"])
    }

    /// Both files keep each of `browser` in the browser and open each of `app` in the app.
    static func expect(_ aasa: AppSiteAssociation, _ links: AssetLinks, browser: [String], app opened: [String]) {
        let app = "ABCDE12345.community.rabble.plur", package = "community.rabble.plur"
        for path in browser {
            let url = "https://rabble.community" + path
            #expect(aasa.decide(url, for: app) != .match, "iOS hands \(path) to the app")
            #expect(links.decide(url, package: package) != .match, "Android hands \(path) to the app")
        }
        for path in opened {
            #expect(aasa.decide("https://rabble.community" + path, for: app) == .match, "\(path)")
            #expect(links.decide("https://rabble.community" + path, package: package) == .match, "\(path)")
        }
    }

    /// Under catch-all routes (`/{code}`, `/{a}/{b}`), the service's own paths stay in the
    /// browser on both platforms however they are spelt: with a trailing slash, a doubled first
    /// slash (Android compares the path as sent; iOS merges slashes and drops a trailing one),
    /// or a percent-encoded letter.
    @Test func underACatchAllTheOwnPathsStayInTheBrowserHoweverSpelt() async throws {
        let h = try await Harness.make(extra: Harness.routes(adding: [#"{name: code, pattern: "/{code}"}"#, #"{name: pair, pattern: "/{a}/{b}"}"#]))
        let (aasa, links) = try await Self.servedFiles(h)
        let own = ["/admin", "/admin/links", "/api/links", "/healthz", "/metrics", "/openapi.json", "/apple-app-site-association", "/.well-known/assetlinks.json"]
        let spellings = own.flatMap { path in [path, path + "/", "/" + path, "/%" + String(path.utf8.dropFirst().first!, radix: 16) + path.dropFirst(2)] }
        Self.expect(aasa, links, browser: spellings, app: ["/summer", "/summer/", "/a/b"])
    }
}
