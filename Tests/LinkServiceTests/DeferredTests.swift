import LinkCache
import DeferredLinking
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LinkConfiguration
import LinkRouting
@testable import LinkStorage
@testable import LinkService
@testable import LinkImport
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// Deferred deep links (issue 11, item 1): a phone's landing page carries a claim token through
/// the install, and the app redeems it once.
@Suite struct DeferredTests {
    static let iPhone = LandingPageTests.iPhone
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

    /// The value of `attribute` on the element with `id` in a page.
    static func attribute(_ attribute: String, of id: String, in html: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
        let tag = html[html[..<start.lowerBound].lastIndex(of: "<")!...].prefix { $0 != ">" }
        guard let a = tag.range(of: " \(attribute)=\"") else { return nil }
        return String(tag[a.upperBound...].prefix { $0 != "\"" }).replacingOccurrences(of: "&amp;", with: "&")
    }

    static func token(inPlayLink href: String) -> String? {
        guard let r = href.range(of: "referrer=sy_claim%3D") else { return nil }
        return String(href[r.upperBound...].prefix { $0 != "&" })
    }

    /// A claim token goes only into the store page of this configuration's app, the one place
    /// that hands it to the app after the install; a fallback elsewhere (a partner's page, the
    /// site) gets none, and is not called a store. A campaign's own `referrer` is kept.
    @Test func aClaimGoesOnlyIntoTheStorePageOfTheApp() async throws {
        let h = try await Harness.make(extra: "service: {publicURL: \"https://rabble.community\", redirectHosts: [partner.example]}\n")
        try await h.app().test(.router) { client in
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "prtnr222", "deepLink": "plur://group/p", "playStoreURL": "https://partner.example/get"}"#)
            let partner = try await client.call(.get, "/i/prtnr222", headers: [.userAgent: Self.android])
            #expect(Self.attribute("href", of: "fallback", in: partner.text) == "https://partner.example/get", "\(partner.text)")
            #expect(!partner.text.contains("sy_claim") && partner.text.contains(">Continue on the web</a>"), "\(partner.text)")
            let site = try await client.call(.get, "/?link=https://rabble.community/g/x&afl=https://rabble.community/android", headers: [.userAgent: Self.android])
            #expect(site.status == .ok && !site.text.contains("sy_claim"), "\(site.text)")
            let redirected = try await client.call(.get, "/?link=https://rabble.community/g/x&afl=https://rabble.community/android&efr=1", headers: [.userAgent: Self.android])
            #expect(redirected.headers[.location] == "https://rabble.community/android")
            // The App Store page of the app on iOS, or nothing: no "Get the app" for a web page.
            let iOS = try await client.call(.get, "/?link=https://rabble.community/g/x&ifl=https://rabble.community/ios", headers: [.userAgent: Self.iPhone])
            #expect(!iOS.text.contains("data-claim") && !iOS.text.contains(#"id="get-app""#) && iOS.text.contains(">Continue on the web</a>"), "\(iOS.text)")
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "cmpgn222", "deepLink": "plur://group/c", "playStoreURL": "https://play.google.com/store/apps/details?id=community.rabble.plur&referrer=utm_source%3Dnewsletter"}"#)
            let campaign = try await client.call(.get, "/i/cmpgn222", headers: [.userAgent: Self.android])
            let play = try #require(Self.attribute("href", of: "fallback", in: campaign.text))
            #expect(play.hasPrefix("https://play.google.com/store/apps/details?id=community.rabble.plur&referrer=utm_source%3Dnewsletter%26sy_claim%3D"), "\(play)")
            #expect(play.components(separatedBy: "referrer=").count == 2, "one referrer: \(play)")
        }
    }

    /// A page that carries the app link itself (`/i/plur://join-community?…`) hands the app that
    /// link's own route and parameters, as `/join/g42?code=…` hands `join`'s: not the web route
    /// that wrapped it.
    @Test func aClaimOfAnEmbeddedAppLinkNamesItsRoute() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let page = try await client.call(.get, "/i/plur://join-community?group-id=G7&code=C9", headers: [.userAgent: Self.android])
            let play = try #require(Self.attribute("href", of: "fallback", in: page.text), "\(page.text)")
            let token = try #require(Self.token(inPlayLink: play), "\(play)")
            let claim = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
            #expect(claim.status == .ok, "\(claim.text)")
            #expect(claim.json?["route"]?.stringValue == "appJoinCommunity", "\(claim.text)")
            #expect(claim.json?["parameters"] == .object([("groupId", .string("G7")), ("code", .string("C9"))]) ||
                    claim.json?["parameters"] == .object([("code", .string("C9")), ("groupId", .string("G7"))]), "\(claim.text)")
            #expect(claim.json?["deepLink"]?.stringValue == "plur://join-community?group-id=G7&code=C9", "\(claim.text)")
        }
    }

    /// A long link whose `link` is a page no app route takes (a stored link's `/i/{code}`) opens
    /// `link` itself, not a made-up app link; an imported link's claim names the route of its app
    /// link, and the API gives its old path as its URL.
    @Test func fdlPagesOpenOnlyWhatTheConfigurationSays() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let page = try await client.call(.get, "/?link=https://rabble.community/i/xffAbc23", headers: [.userAgent: Self.iPhone])
            #expect(page.text.contains(#"<a id="open-app" class="button" href="https://rabble.community/i/xffAbc23">"#), "\(page.text)")
            #expect(!page.text.contains("plur://i/"), "\(page.text)")
        }
        let csv = "Short link,Long link\nhttps://rabble.community/summer,\"https://rabble.community/?link=https://rabble.community/g/summer&apn=community.rabble.plur\"\n"
        let plan = try LinkImport(configuration: h.service.configuration).firebase(csv, now: h.clock.today)
        #expect(try await h.store.importLinks(plan.links) == [.created])
        try await h.app().test(.router) { client in
            #expect(try await client.call(.get, "/api/links/summer", token: h.reader).json?["url"]?.stringValue == "https://rabble.community/summer")
            let android = try await client.call(.get, "/summer", headers: [.userAgent: Self.android])
            let token = try #require(Self.attribute("href", of: "fallback", in: android.text).flatMap(Self.token(inPlayLink:)), "\(android.text)")
            let claim = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
            #expect(claim.json?["route"]?.stringValue == "appGroup" && claim.json?["parameters"] == .object([("groupId", .string("summer"))]), "\(claim.text)")
            // stats: days once.
            let twice = try await client.call(.get, "/api/links/summer/stats?days=1&days=2", token: h.reader)
            #expect(twice.status == .badRequest && twice.json?.at("error.code")?.stringValue == "invalid-days", "\(twice.text)")
        }
    }

    /// The claim joins a `referrer` the store URL has, in the one value the Play Store keeps.
    @Test(arguments: [
        ("https://play.google.com/store/apps/details?id=a.b", "https://play.google.com/store/apps/details?id=a.b&referrer=sy_claim%3DTOK"),
        ("https://play.google.com/store/apps/details?id=a.b&referrer=utm_source%3Dx", "https://play.google.com/store/apps/details?id=a.b&referrer=utm_source%3Dx%26sy_claim%3DTOK"),
        ("https://play.google.com/store/apps/details?referrer=a%3D1&id=a.b&referrer=c%3D2", "https://play.google.com/store/apps/details?referrer=a%3D1%26sy_claim%3DTOK&id=a.b"),
        ("https://play.google.com/store/apps/details?id=a.b&referrer=sy_claim%3DOLD", "https://play.google.com/store/apps/details?id=a.b&referrer=sy_claim%3DTOK"),
        ("https://play.google.com/store/apps/details?id=a.b&referrer=", "https://play.google.com/store/apps/details?id=a.b&referrer=sy_claim%3DTOK"),
        ("https://play.google.com/store/apps/details?id=a.b#top", "https://play.google.com/store/apps/details?id=a.b&referrer=sy_claim%3DTOK#top"),
    ])
    func theClaimJoinsAReferrerThereIs(_ url: String, _ expected: String) {
        #expect(Claims.withReferrer(url, token: "TOK") == expected)
    }

    /// Android, end to end on a real connection: the Play link carries `sy_claim=TOKEN` in its
    /// referrer; the app's `DeferredLink` (URLSession) redeems it once; a second claim is 410.
    @Test(arguments: Backend.available)
    func androidCarriesTheClaimInThePlayReferrer(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.live) { client in
            let port = try #require(client.port)
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Jnv2te55", "route": "join", "parameters": {"groupId": "g42", "code": "Jnv2te55"}}"#)
            let page = try await client.call(.get, "/i/Jnv2te55", headers: [.userAgent: Self.android])
            #expect(page.status == .ok && page.headers[.cacheControl] == "private, no-store")
            let play = try #require(Self.attribute("href", of: "fallback", in: page.text), "\(page.text)")
            #expect(play.hasPrefix("https://play.google.com/store/apps/details?id=community.rabble.plur&referrer=sy_claim%3D"), "\(play)")
            let token = try #require(Self.token(inPlayLink: play))
            #expect(DeferredLink.isToken(token))
            // Two visits, two tokens.
            let again = try await client.call(.get, "/i/Jnv2te55", headers: [.userAgent: Self.android])
            #expect(Self.attribute("href", of: "fallback", in: again.text).flatMap(Self.token(inPlayLink:)) != token)

            // The app, on its first launch: the Install Referrer API gives the decoded value.
            let marker = TestTemporary.root.appendingPathComponent("sy-deferred-\(UUID().uuidString)/checked")
            let app = DeferredLink(service: URL(string: "http://127.0.0.1:\(port)")!, markerFile: marker)
            let outcome = try await app.runOnFirstLaunch(installReferrer: "utm_source=google-play&sy_claim=\(token)")
            guard case .claimed(let claim) = outcome else { Issue.record("\(outcome)"); return }
            #expect(claim.code == "Jnv2te55" && claim.route == "join" && claim.parameters == ["groupId": "g42", "code": "Jnv2te55"])
            // A stored link to a universal-link route opens as that route's URL, which the app's router takes.
            #expect(claim.deepLink == "https://rabble.community/join/g42?code=Jnv2te55", "\(claim)")
            #expect(claim.match(in: h.service.configuration.router)?.route == "join")
            #expect(try await app.runOnFirstLaunch(installReferrer: "sy_claim=\(token)") == .alreadyRan)

            let second = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
            #expect(second.status == .gone && second.json?["error"]?["code"]?.stringValue == "claim-used")
            let metrics = String(decoding: h.service.metrics.text(), as: UTF8.self)
            #expect(metrics.contains("switchyard_deferred_claims_issued_total 2") && metrics.contains("switchyard_deferred_claims_redeemed_total 1"))
        }
    }

    /// iOS: "Get the app" carries the claim URL for the clipboard (copied by the page's script
    /// only when tapped — see BrowserTests); the token in it redeems as on Android.
    @Test(arguments: Backend.available)
    func iPhonesGetAClaimURLBehindGetTheApp(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        try await h.app().test(.router) { client in
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Ph2ne555", "deepLink": "plur://group/ios", "maxUses": 3}"#)
            let page = try await client.call(.get, "/i/Ph2ne555", headers: [.userAgent: Self.iPhone])
            let claimURL = try #require(Self.attribute("data-claim", of: "get-app", in: page.text), "\(page.text)")
            #expect(Self.attribute("href", of: "get-app", in: page.text) == "https://apps.apple.com/app/id1234567890")
            #expect(page.text.contains(">Get the app</a>") && !page.text.contains(#"id="fallback""#))
            let app = DeferredLink(service: URL(string: "https://rabble.community")!, markerFile: URL(fileURLWithPath: "/nonexistent/marker"))
            let token = try #require(app.token(fromPasteboard: claimURL), "\(claimURL)")
            #expect(claimURL == "https://rabble.community/d/\(token)")

            // The claim URL opened in a browser shows the app link and redeems nothing.
            let opened = try await client.call(.get, "/d/\(token)", headers: [.userAgent: Self.iPhone])
            #expect(opened.status == .ok && opened.text.contains(#"href="plur://group/ios""#))

            let claim = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
            #expect(claim.status == .ok)
            #expect(JSONWriter.compact(try #require(claim.json)) == #"{"code":"Ph2ne555","deepLink":"plur://group/ios","route":"appGroup","parameters":{"groupId":"ios"}}"#)
            #expect(try await client.call(.get, "/d/\(token)").status == .gone, "redeemed: the claim URL is spent")
            #expect(try await h.store.link(code: "Ph2ne555")?.clicks == 1, "the visit used one use; the claim none")
        }
    }

    /// A stored link's page writes no claim row (issue 27): its token is signed. Two nodes on one
    /// database take each other's tokens, and each token redeems once whichever node is asked,
    /// even when both are asked at once.
    @Test(arguments: Backend.available)
    func aStoredLinksClaimIsWrittenOnlyWhenRedeemedOnceOnAnyNode(_ backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let a = try await Harness.make(backend: backend, store: try await LinkStore.open(location))
        let b = try await Harness.make(backend: backend, store: try await LinkStore.open(location))
        try await a.app().test(.live) { nodeA in
            try await b.app().test(.live) { nodeB in
                _ = try await nodeA.call(.post, "/api/links", token: a.writer, body: #"{"code": "Sgnd2345", "deepLink": "plur://group/signed"}"#)
                var tokens: [String] = []
                for _ in 0..<5 {
                    let page = try await nodeA.call(.get, "/i/Sgnd2345", headers: [.userAgent: Self.iPhone])
                    let claimURL = try #require(Self.attribute("data-claim", of: "get-app", in: page.text), "\(page.text)")
                    tokens.append(String(claimURL.dropFirst("https://rabble.community/d/".count)))
                }
                let android = try await nodeB.call(.get, "/i/Sgnd2345", headers: [.userAgent: Self.android])
                tokens.append(try #require(Self.attribute("href", of: "fallback", in: android.text).flatMap(Self.token(inPlayLink:))))
                #expect(Set(tokens).count == 6 && tokens.allSatisfy(DeferredLink.isToken), "\(tokens)")
                #expect(try await a.store.db.read("SELECT COUNT(*) FROM deferred_claims", []).first?[0].int == 0, "six page views, no claim row")

                // The claim URL opened on the other node shows the link; redeemed there, once.
                let opened = try await nodeB.call(.get, "/d/\(tokens[0])", headers: [.userAgent: Self.iPhone])
                #expect(opened.status == .ok && opened.text.contains(#"href="plur://group/signed""#), "\(opened.status)")
                let claim = try await nodeB.call(.post, "/api/deferred/claim", body: #"{"token": "\#(tokens[0])"}"#)
                #expect(claim.status == .ok, "\(claim.text)")
                #expect(JSONWriter.compact(try #require(claim.json)) == #"{"code":"Sgnd2345","deepLink":"plur://group/signed","route":"appGroup","parameters":{"groupId":"signed"}}"#)
                let again = try await nodeA.call(.post, "/api/deferred/claim", body: #"{"token": "\#(tokens[0])"}"#)
                #expect(again.status == .gone && again.json?["error"]?["code"]?.stringValue == "claim-used", "\(again.text)")
                #expect(try await nodeA.call(.get, "/d/\(tokens[0])").status == .gone, "redeemed: the claim URL is spent on every node")

                // Asked of both nodes at once, four times over: one answer each time.
                let raced = try await withThrowingTaskGroup(of: Int.self) { group in
                    for token in tokens[1...4] {
                        for node in [nodeA, nodeB] {
                            group.addTask { Int(try await node.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#).status.code) }
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
                #expect(raced.sorted() == [200, 200, 200, 200, 410, 410, 410, 410], "\(raced)")
                #expect(try await a.store.db.read("SELECT COUNT(*) FROM deferred_claims WHERE claimed_at IS NOT NULL", []).first?[0].int == 5)

                // Past its lifetime (one day by default) it is expired, on either node.
                b.clock.advance(86_401)
                let expired = try await nodeB.call(.post, "/api/deferred/claim", body: #"{"token": "\#(tokens[5])"}"#)
                #expect(expired.status == .gone && expired.json?["error"]?["code"]?.stringValue == "claim-expired", "\(expired.text)")
                let spent = try await nodeB.call(.post, "/api/deferred/claim", body: #"{"token": "\#(tokens[0])"}"#)
                #expect(spent.json?["error"]?["code"]?.stringValue == "claim-used", "a used token says so past its lifetime: \(spent.text)")
            }
        }
        await a.store.close()
        await b.store.close()
    }

    /// A signed token stands for the link it was shown with: deleted, that link's token is
    /// unknown, and a new link under the same code is another link; an edit is what a claim gets.
    /// Tokens signed with a configured key verify on a node that lists it after a newer one.
    @Test func aSignedClaimFollowsItsLinkAndItsKeys() async throws {
        let old = "deferred: {signingKeys: [\"an-old-signing-key-of-at-least-32-characters\"]}\n"
        let h = try await Harness.make(extra: old)
        try await h.app().test(.router) { client in
            func token(_ code: String) async throws -> String {
                let page = try await client.call(.get, "/i/\(code)", headers: [.userAgent: Self.android])
                return try #require(Self.attribute("href", of: "fallback", in: page.text).flatMap(Self.token(inPlayLink:)), "\(page.text)")
            }
            // A phone's second view is the first's page kept in memory with a token of its own
            // written in: the store is not asked (here the row is gone behind the cache's back).
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Mem22345", "deepLink": "plur://group/m"}"#)
            let first = try await token("Mem22345")
            _ = try await h.store.db.run("DELETE FROM links WHERE code = 'Mem22345'", [])
            let page = try await client.call(.get, "/i/Mem22345", headers: [.userAgent: Self.iPhone])
            #expect(page.status == .ok && !page.text.contains(HotLinks.ClaimPage.standIn), "\(page.text)")
            let second = try #require(Self.attribute("data-claim", of: "get-app", in: page.text)?.split(separator: "/").last.map(String.init))
            let third = try await token("Mem22345")
            #expect(Set([first, second, third]).count == 3 && [first, second, third].allSatisfy(DeferredLink.isToken), "\([first, second, third])")

            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Edit2345", "deepLink": "plur://group/before"}"#)
            let edited = try await token("Edit2345")
            _ = try await client.call(.patch, "/api/links/Edit2345", token: h.writer, body: #"{"deepLink": "plur://group/after"}"#)
            let claim = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(edited)"}"#)
            #expect(claim.json?["deepLink"]?.stringValue == "plur://group/after", "\(claim.text)")

            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Agan2345", "deepLink": "plur://group/secret"}"#)
            let orphan = try await token("Agan2345")
            #expect(try await client.call(.delete, "/api/links/Agan2345", token: h.writer).status == .noContent)
            h.clock.advance(2)
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Agan2345", "deepLink": "plur://group/other"}"#)
            let gone = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(orphan)"}"#)
            #expect(gone.status == .notFound && gone.json?["error"]?["code"]?.stringValue == "claim-unknown", "\(gone.text)")
            #expect(try await client.call(.get, "/d/\(orphan)").status == .notFound)
            #expect(try await h.store.db.read("SELECT COUNT(*) FROM service_keys WHERE name NOT LIKE 'visitors-%'", []).first?[0].int == 0, "a configured key: none made")
        }
        let rotated = try await Harness.make(extra: "deferred: {signingKeys: [\"a-new-signing-key-of-at-least-32-characters!\", \"an-old-signing-key-of-at-least-32-characters\"]}\n",
                                             store: h.store)
        let link = try #require(try await h.store.link(code: "Edit2345"))
        let oldKey = try #require(ClaimSigningKey(secret: "an-old-signing-key-of-at-least-32-characters"))
        let signedByOld = try #require(SignedClaimToken(code: "Edit2345", created: link.createdAt, platform: .ios, issuedAt: rotated.clock.today).token(signedWith: oldKey))
        try await rotated.app().test(.router) { client in
            let claim = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(signedByOld)"}"#)
            #expect(claim.status == .ok && claim.json?["code"]?.stringValue == "Edit2345", "\(claim.text)")
        }
        let unlisted = try await Harness.make(extra: "deferred: {signingKeys: [\"a-new-signing-key-of-at-least-32-characters!\"]}\n", store: h.store)
        let signedAgain = try #require(SignedClaimToken(code: "Edit2345", created: link.createdAt, platform: .ios, issuedAt: unlisted.clock.today).token(signedWith: oldKey))
        try await unlisted.app().test(.router) { client in
            let claim = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(signedAgain)"}"#)
            #expect(claim.status == .notFound, "a retired key's tokens are unknown: \(claim.text)")
        }
    }


    /// Only a person on a phone gets a token: not a desktop, not a preview or prefetch, not HEAD.
    @Test func desktopsPreviewsAndHeadRequestsGetNoClaim() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "N2cxa9mm", "deepLink": "plur://group/n"}"#)
            let desktop = try await client.call(.get, "/i/N2cxa9mm", headers: [.userAgent: Self.desktop])
            #expect(!desktop.text.contains("sy_claim") && !desktop.text.contains("data-claim"))
            let slackOnIPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"
            let unfurl = try await client.call(.get, "/i/N2cxa9mm", headers: [.userAgent: slackOnIPhone])
            #expect(unfurl.status == .ok && !unfurl.text.contains("data-claim"))
            let prefetch = try await client.call(.get, "/i/N2cxa9mm", headers: [.userAgent: Self.android, HTTPField.Name("Sec-Purpose")!: "prefetch"])
            #expect(prefetch.status == .ok && !prefetch.text.contains("sy_claim"))
            #expect(try await client.call(.head, "/i/N2cxa9mm", headers: [.userAgent: Self.iPhone]).status == .ok)
            let metrics = String(decoding: h.service.metrics.text(), as: UTF8.self)
            #expect(metrics.contains("switchyard_deferred_claims_issued_total 0"), "\(metrics)")
        }
        let off = try await Harness.make(extra: "deferred: {enabled: false}\n")
        try await off.app().test(.router) { client in
            _ = try await client.call(.post, "/api/links", token: off.writer, body: #"{"code": "Qff2cxa9", "deepLink": "plur://group/n"}"#)
            let page = try await client.call(.get, "/i/Qff2cxa9", headers: [.userAgent: Self.iPhone])
            #expect(page.status == .ok && !page.text.contains("data-claim") && page.text.contains(#"id="fallback""#))
        }
    }

    /// A route's own page (`/join/{groupId}?code=…`, no stored link) carries a claim too.
    @Test func routePagesCarryAClaimWithTheirRouteAndParameters() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let page = try await client.call(.get, "/join/g7?code=Zz9yy8xx&relay=wss://relay.example", headers: [.userAgent: Self.android])
            #expect(page.status == .ok && page.headers[.cacheControl] == "private, no-store")
            let token = try #require(Self.attribute("href", of: "fallback", in: page.text).flatMap(Self.token(inPlayLink:)), "\(page.text)")
            let claim = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(token)"}"#)
            #expect(claim.status == .ok)
            let json = try #require(claim.json)
            #expect(json["code"] == .null && json["route"]?.stringValue == "appJoinCommunity")
            #expect(json["deepLink"]?.stringValue?.hasPrefix("plur://join-community?group-id=g7&code=Zz9yy8xx") == true, "\(claim.text)")
            #expect(json["parameters"]?["groupId"]?.stringValue == "g7")
            let desktop = try await client.call(.get, "/join/g7?code=Zz9yy8xx", headers: [.userAgent: Self.desktop])
            #expect(desktop.headers[.cacheControl] == "public, max-age=300", "a desktop page is the same for everyone")
        }
    }

    /// 404 unknown, 410 used or expired, 400 for a body that is not `{"token"}`; a claim writes
    /// `deferred.claimed` into the webhook outbox in its transaction.
    @Test(arguments: Backend.available)
    func claimsAnswerUnknownExpiredAndMalformedTokensPlainly(_ backend: Backend) async throws {
        let hooks = """
            deferred: {claimLifetime: 600}
            webhooks:
              endpoints:
                - {url: "https://hooks.example/in", secret: a-long-enough-secret-value, events: [deferred.claimed]}

            """
        let h = try await Harness.make(extra: hooks, backend: backend)
        try await h.app().test(.router) { client in
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Exp9red2", "deepLink": "plur://group/e"}"#)
            func newToken() async throws -> String {
                let page = try await client.call(.get, "/i/Exp9red2", headers: [.userAgent: Self.android])
                return try #require(Self.attribute("href", of: "fallback", in: page.text).flatMap(Self.token(inPlayLink:)))
            }
            let stale = try await newToken()
            h.clock.advance(601)
            let expired = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(stale)"}"#)
            #expect(expired.status == .gone && expired.json?["error"]?["code"]?.stringValue == "claim-expired")

            let unknown = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(String(repeating: "A", count: 43))"}"#)
            #expect(unknown.status == .notFound && unknown.json?["error"]?["code"]?.stringValue == "claim-unknown")
            for (body, code) in [(#"{"token": "short"}"#, "invalid-claim-token"), (#"{"token": 5}"#, "invalid-claim-token"), ("{}", "missing-field"),
                                 (#"{"token": "\#(stale)", "code": "x"}"#, "unknown-field"), ("[1]", "not-an-object"), ("nope", "malformed-json")] {
                let r = try await client.call(.post, "/api/deferred/claim", body: body)
                #expect(r.status == .badRequest && r.json?["error"]?["code"]?.stringValue == code, "\(body): \(r.text)")
            }

            let fresh = try await newToken()
            #expect(try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(fresh)"}"#).status == .ok)
            let events = try await h.store.db.read("SELECT event_type, body FROM webhook_deliveries ORDER BY created_at", [])
            #expect(events.map { $0[0].text } == ["deferred.claimed"], "only the claim that succeeded: \(events)")
            let event = try #require(try JSONParser.parse(events.first?[1].text ?? ""))
            #expect(event["data"]?["code"]?.stringValue == "Exp9red2" && event["data"]?["platform"]?.stringValue == "android")

            // A link deleted after its page was seen: its claims go with it, and a new link under
            // the same code does not bring them back.
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Gvne2345", "deepLink": "plur://group/secret", "maxUses": 1}"#)
            let page = try await client.call(.get, "/i/Gvne2345", headers: [.userAgent: Self.android])
            let orphan = try #require(Self.attribute("href", of: "fallback", in: page.text).flatMap(Self.token(inPlayLink:)))
            #expect(try await client.call(.delete, "/api/links/Gvne2345", token: h.writer).status == .noContent)
            // (Made a moment later, as two requests are: a token names its link by its creation time.)
            h.clock.advance(0.001)
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Gvne2345", "deepLink": "plur://group/other"}"#)
            let gone = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(orphan)"}"#)
            #expect(gone.status == .notFound && gone.json?["error"]?["code"]?.stringValue == "claim-unknown", "\(gone.text)")
            #expect(try await client.call(.get, "/d/\(orphan)").status == .notFound)
            // A link that expired after its page was seen: 410, and its claim page shows nothing.
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Shrt2345", "deepLink": "plur://group/secret", "expiresIn": 60}"#)
            let short = try await client.call(.get, "/i/Shrt2345", headers: [.userAgent: Self.android])
            let late = try #require(Self.attribute("href", of: "fallback", in: short.text).flatMap(Self.token(inPlayLink:)))
            h.clock.advance(61)
            let latePage = try await client.call(.get, "/d/\(late)")
            #expect(latePage.status == .gone && !latePage.text.contains("secret"), "\(latePage.status)")
            let lapsed = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(late)"}"#)
            #expect(lapsed.status == .gone && lapsed.json?["error"]?["code"]?.stringValue == "claim-link-gone", "\(lapsed.text)")
            #expect(!lapsed.text.contains("secret"))
        }
    }

    /// A link that embeds a URL the page would not offer (another host) gets no claim token: a
    /// claim would hand that URL to the app at its first launch.
    @Test func embeddedURLsThePageRefusesGetNoClaim() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            for path in ["/i/https://evil.example/x", "/i/javascript:alert(1)"] {
                let page = try await client.call(.get, path, headers: [.userAgent: Self.android])
                #expect(!page.text.contains("sy_claim"), "\(path): \(page.text)")
            }
            let count = try await h.store.db.read("SELECT count(*) FROM deferred_claims", [])
            #expect(count.first?[0].int == 0)
            // Nor through the API or a Firebase long link to such a page.
            let stored = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "inviteEmbedded", "parameters": {"target": "https://evil.example/x"}}"#)
            #expect(stored.status == .badRequest && stored.json?["error"]?["code"]?.stringValue == "invalid-deep-link", "\(stored.text)")
            // A value that is no embedded URL at all is refused too (it built /i/javascript:… and
            // /i///evil.com, which route back as an invite code, not as inviteEmbedded).
            for target in ["javascript:alert(1)", "data:text/html,x", "//evil.com", "notaurl", "\\\\evil.com"] {
                let r = try await client.call(.post, "/api/links", token: h.writer, body: #"{"route": "inviteEmbedded", "parameters": {"target": "\#(target)"}}"#)
                #expect(r.status == .badRequest, "\(target): \(r.text)")
            }
            let long = try await client.call(.get, "/?link=https%3A%2F%2Frabble.community%2Fi%2Fhttps%3A%2F%2Fevil.example%2Fx&apn=community.rabble.plur",
                                             headers: [.userAgent: Self.android])
            #expect(!long.text.contains("sy_claim") && !long.text.contains(#"href="https://rabble.community/i/https://evil.example"#), "\(long.text)")
            // An app link of the configuration's own scheme still carries one.
            let allowed = try await client.call(.get, "/i/plur://join-community?group-id=g1&code=c1&relay=wss://relay.example", headers: [.userAgent: Self.android])
            #expect(allowed.text.contains("sy_claim"), "\(allowed.text)")
        }
    }

    /// Probabilistic matching, only when switched on: the most recent unredeemed visit from the
    /// same address and platform within the window; the address is kept only as a hash, and
    /// forgotten when matched.
    @Test func probabilisticMatchingIsOffByDefaultAndGuessesByAddressWhenOn() async throws {
        let off = try await Harness.make()
        try await off.app().test(.router) { client in
            let r = try await client.call(.post, "/api/deferred/match", body: #"{"platform": "ios"}"#)
            #expect(r.status == .forbidden && r.json?["error"]?["code"]?.stringValue == "matching-disabled")
        }
        let h = try await Harness.make(extra: "deferred: {probabilisticMatching: true, matchWindow: 600}\n")
        try await h.app().test(.live) { client in
            let port = try #require(client.port)
            _ = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "Guess234", "deepLink": "plur://group/guessed"}"#)
            #expect(try await client.call(.get, "/i/Guess234", headers: [.userAgent: Self.iPhone]).status == .ok)
            let keys = try await h.store.db.read("SELECT match_key FROM deferred_claims", []).compactMap { $0[0].text }
            #expect(keys.count == 1 && keys[0].utf8.count == 64 && !keys[0].contains("127.0.0.1"), "a hash, not the address: \(keys)")

            let marker = TestTemporary.root.appendingPathComponent("sy-match-\(UUID().uuidString)/checked")
            let app = DeferredLink(service: URL(string: "http://127.0.0.1:\(port)")!, markerFile: marker)
            #expect(try await app.match(platform: "android") == .refused(status: 404, code: ErrorCode("no-match")), "another platform")
            let outcome = try await app.runOnFirstLaunch(pasteboard: { "no claim URL here" }, matchingPlatform: "ios")
            #expect(outcome == .claimed(DeferredLink.Claim(code: "Guess234", deepLink: "plur://group/guessed", route: "appGroup", parameters: ["groupId": "guessed"])), "\(outcome)")
            #expect(try await app.match(platform: "ios") == .refused(status: 404, code: ErrorCode("no-match")), "matched once")
            #expect(try await h.store.db.read("SELECT match_key FROM deferred_claims WHERE match_key IS NOT NULL", []).isEmpty)

            #expect(try await client.call(.get, "/i/Guess234", headers: [.userAgent: Self.iPhone]).status == .ok)
            h.clock.advance(601)
            #expect(try await app.match(platform: "ios") == .refused(status: 404, code: ErrorCode("no-match")), "past the window")
            for (body, code) in [(#"{"platform": "windows"}"#, "invalid-platform"), (#"{}"#, "invalid-platform"), (#"{"platform": "ios", "x": 1}"#, "unknown-field")] {
                let r = try await client.call(.post, "/api/deferred/match", body: body)
                #expect(r.status == .badRequest && r.json?["error"]?["code"]?.stringValue == code, "\(body)")
            }
        }
        do {
            _ = try await Harness.make(extra: "deferred: {enabled: false, probabilisticMatching: true}\n")
            Issue.record("matching without deferred links was accepted")
        } catch let error as ConfigurationError {
            #expect(error.message.contains("deferred.probabilisticMatching: needs deferred.enabled"))
        }
    }
}
