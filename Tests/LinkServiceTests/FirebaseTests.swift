import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkPages
@testable import LinkService
@testable import LinkRequests
@testable import LinkImport
@testable import LinkStorage
import LinkConfiguration
import SwitchyardCore
import SwitchyardTestSupport
import SwitchyardDocuments
import Testing

/// Firebase Dynamic Links compatibility (issue 11, item 2): long links on the service's own
/// domain, imported short links at their old paths, and the CSV underneath the import.
@Suite struct FirebaseTests {
    static let iPhone = LandingPageTests.iPhone
    static let iPad = "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"

    /// An export that is not UTF-8 is refused whole, naming the line and the first byte that
    /// is not UTF-8 (a cut sequence as well as a Latin-1 letter); UTF-8 text reads as it is.
    @Test func anExportThatIsNotUTF8SaysWhere() throws {
        #expect(try LinkImport.text(Array("a,b\nü,🙂\n".utf8)) == "a,b\nü,🙂\n")
        for (bytes, expected) in [([0x61, 0x0A, 0x62, 0x0A, 0x63, 0xC3, 0x41] as [UInt8], "line 3, byte 0xC3"), ([0x09, 0x0A, 0xE9], "line 2, byte 0xE9"), ([0x80], "line 1, byte 0x80")] {
            let failure = #expect(throws: LinkImport.Failure.self) { try LinkImport.text(bytes) }
            #expect(failure?.message == "not UTF-8 text: \(expected) is not UTF-8 here (save the export as UTF-8)", "\(String(describing: failure))")
        }
    }

    @Test func csvIsReadAsRFC4180WritesIt() throws {
        let text = "\u{FEFF}a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\n\nlast,,\n"
        let records = try CSV.parse(text)
        #expect(records.map(\.line) == [1, 2, 5])
        #expect(records.map(\.fields) == [["a", "b", "c"], ["x, y", "say \"hi\"", "two\nlines"], ["last", "", ""]])
        #expect(try CSV.parse("a,b") .map(\.fields) == [["a", "b"]], "no line break at the end")
        #expect(throws: CSV.SyntaxError(line: 2, message: "a quoted field is not closed before the end of the file")) { try CSV.parse("a\n\"open,b\nc") }
        #expect(throws: CSV.SyntaxError.self) { try CSV.parse("a\"b\n") }
        #expect(throws: CSV.SyntaxError.self) { try CSV.parse("\"a\"b\n") }
        for fields in [["plain", "with,comma", "with \"quote\"", "line\nbreak", " padded ", ""]] {
            #expect(try CSV.parse(CSVFields.record(fields)).map(\.fields) == [fields], "written fields read back")
        }
    }

    static func long(_ query: String) -> String { "/?link=https://rabble.community/g/spring&" + query }

    /// With `efr=1`, straight to the platform's target; without, a preview page.
    @Test(arguments: [
        (iPhone, "isi=1234567890&efr=1", "https://apps.apple.com/app/id1234567890"),
        (iPhone, "isi=1234567890&ifl=https://rabble.community/ios&efr=1", "https://rabble.community/ios"),
        (iPad, "ifl=https://rabble.community/ios&ipfl=https://rabble.community/ipad&efr=1", "https://rabble.community/ipad"),
        // Android needs no tap: the Play link itself carries a deferred claim.
        (android, "apn=community.rabble.plur&efr=1", "https://play.google.com/store/apps/details?id=community.rabble.plur&referrer=sy_claim%3D"),
        (android, "apn=community.rabble.plur&afl=https://rabble.community/android&efr=1", "https://rabble.community/android"),
        (desktop, "apn=community.rabble.plur&isi=1234567890&efr=1", "https://rabble.community/g/spring"),
        (desktop, "ofl=https://rabble.community/web&efr=1", "https://rabble.community/web"),
    ])
    func longLinksWithEfrGoStraightToThePlatformsTarget(_ agent: String, _ query: String, _ target: String) async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let r = try await client.call(.get, Self.long(query), headers: [.userAgent: agent])
            if target.hasSuffix("sy_claim%3D") {
                let location = try #require(r.headers[.location])
                #expect(r.status == .found && location.hasPrefix(target) && DeferredTests.token(inPlayLink: location).map(Claims.isClaimToken) == true,
                        "\(r.status) \(location)")
                let claim = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(DeferredTests.token(inPlayLink: location) ?? "")"}"#)
                #expect(claim.status == .ok && claim.json?["deepLink"]?.stringValue == "plur://group/spring", "\(claim.text)")
            } else {
                #expect(r.status == .found && r.headers[.location] == target, "\(r.status) \(r.headers)")
            }
        }
    }

    @Test func longLinksWithoutEfrShowAPreviewAndPreviewsNeverFollowARedirect() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let page = try await client.call(.get, Self.long("st=Spring+meetup&sd=Bring%20friends%2B1&si=https://cdn.example/s.png&apn=community.rabble.plur&utm_source=news&ius=plur"),
                                             headers: [.userAgent: Self.desktop])
            #expect(page.status == .ok)
            for tag in [#"<meta property="og:title" content="Spring meetup">"#, #"<meta property="og:description" content="Bring friends+1">"#,
                        #"<meta property="og:image" content="https://cdn.example/s.png">"#,
                        // The app link of `link`'s route: a tap on a universal link of the page's
                        // own domain would stay in the browser on iOS.
                        #"<a id="fallback" class="button" data-audience="desktop" href="https://rabble.community/g/spring">"#] {
                #expect(page.text.contains(tag), "\(tag)")
            }
            // A desktop has no app to open; a phone gets the button.
            #expect(!page.text.contains(#"id="open-app""#))
            let androidPage = try await client.call(.get, Self.long("st=Spring+meetup&apn=community.rabble.plur"), headers: [.userAgent: Self.android])
            #expect(androidPage.text.contains(#"<a id="open-app" class="button" href="plur://group/spring">"#), "\(androidPage.text)")
            let slack = try await client.call(.get, Self.long("st=Spring&efr=1"), headers: [.userAgent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"])
            #expect(slack.status == .ok && slack.text.contains(#"content="Spring""#), "an unfurler gets the tags, not the redirect")
            let phone = try await client.call(.get, Self.long("apn=community.rabble.plur"), headers: [.userAgent: Self.android])
            #expect(phone.text.contains("referrer=sy_claim%3D"), "a phone's preview carries a deferred claim")
            // The Smart App Banner offers the app the link names (isi), as Get the app does.
            let iPhone = try await client.call(.get, Self.long("isi=1234567890"), headers: [.userAgent: LandingPageTests.iPhone])
            #expect(iPhone.text.contains(#"content="app-id=1234567890"#) && iPhone.text.contains("https://apps.apple.com/app/id1234567890"), "\(iPhone.text)")
            // Without isi and apn the store buttons are the configured app's store pages, never the
            // link itself (a page is no store); with efr=1 a phone still goes to the link.
            let bare = try await client.call(.get, Self.long(""), headers: [.userAgent: Self.desktop])
            let stores = bare.text.matches(of: /class="button store"[^>]*href="([^"]*)"/).map { String($0.output.1) }
            #expect(!stores.isEmpty && stores.allSatisfy { $0.hasPrefix("https://apps.apple.com/") || $0.hasPrefix("https://play.google.com/") }, "\(stores)")
            let redirected = try await client.call(.get, Self.long("efr=1"), headers: [.userAgent: LandingPageTests.iPhone])
            #expect(redirected.status == .found && redirected.headers[.location] == "https://rabble.community/g/spring")
        }
    }

    /// A page a CDN may keep (a long link's preview, a route's page) says what it depends on: a
    /// phone must not get the desktop's page, nor a person the page a crawler got.
    @Test func cacheablePagesVaryByUserAgentAndPrefetch() async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            for uri in [Self.long("st=Spring"), "/join/g42?code=abc", Self.long("efr=1")] {
                let r = try await client.call(.get, uri, headers: [.userAgent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"])
                #expect(r.status == .ok && r.headers[.cacheControl] == "public, max-age=300", "\(uri): \(r.status) \(r.headers)")
                #expect(r.headers[.vary] == "User-Agent, Sec-Purpose, Purpose, X-Purpose, X-Moz", "\(uri): \(r.headers)")
            }
            let phone = try await client.call(.get, Self.long("st=Spring"), headers: [.userAgent: Self.android])
            #expect(phone.headers[.cacheControl] == "private, no-store")
        }
    }

    /// Nothing is ever redirected to a host the configuration does not allow.
    @Test(arguments: [
        ("/?link=https://evil.example/x&efr=1", "link: host evil.example"),
        ("/?link=javascript:alert(1)&efr=1", "link: javascript: URLs are never accepted"),
        ("/?link=https://rabble.community.evil.example/&efr=1", "host rabble.community.evil.example"),
        ("/?link=https://rabble.community/x&afl=https://evil.example/&efr=1", "afl: host evil.example"),
        ("/?link=https://rabble.community/x&ifl=//evil.example/&efr=1", "ifl"),
        ("/?link=https://rabble.community/x&ofl=https://evil.example@rabble.community.evil.example/&efr=1", "ofl"),
        ("/?link=https://rabble.community/x&apn=com.other.app&efr=1", "apn: \"com.other.app\" is not an Android package"),
        ("/?link=https://rabble.community/x&ibi=com.other.app", "ibi: \"com.other.app\" is not an iOS bundle ID"),
        ("/?link=https://rabble.community/x&isi=12ab", "isi must be an App Store ID"),
        // Store pages only of this configuration's apps: a link on your domain does not advertise
        // or install someone else's app.
        ("/?link=https://rabble.community/x&isi=310633997&efr=1", "isi: 310633997 is not an appStoreId of this configuration"),
        ("/?link=https://rabble.community/x&ifl=https%3A%2F%2Fapps.apple.com%2Fapp%2Fid310633997&efr=1", "ifl: apps.apple.com is allowed only for the App Store page"),
        ("/?link=https://rabble.community/x&afl=https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.evil.app&efr=1", "afl: play.google.com is allowed only for the Play Store page"),
        ("/?link=https://rabble.community/x&afl=https%3A%2F%2Fplay.google.com%2Fstore%2Fsearch%3Fq%3Dplur&efr=1", "afl: play.google.com is allowed only"),
        ("/?link=https://play.google.com/store/apps/details?id=com.evil.app&efr=1", "link: play.google.com is allowed only"),
        ("/?link=https://rabble.community/x&st=a%00b", "st contains the control character U+0000"),
        ("/?link=&efr=1", "needs link"),
        ("/?link=https://evil.example/&link=https://rabble.community/g/x", "link is given more than once"),
        ("/?link=https://rabble.community/g/x&afl=https://rabble.community/a&afl=https://rabble.community/b&efr=1", "afl is given more than once"),
    ])
    func longLinksToHostsNotAllowedAreRefused(_ uri: String, _ reason: String) async throws {
        let h = try await Harness.make()
        try await h.app().test(.router) { client in
            let r = try await client.call(.get, uri, headers: [.userAgent: Self.android])
            #expect(r.status == .badRequest && r.headers[.location] == nil, "\(uri): \(r.status)")
            #expect(r.text.contains(LandingPage.escape(reason)), "\(uri): \(r.text)")
        }
    }

    /// Imported short links answer at their old paths (and at /i/{path}); routes keep theirs;
    /// links made through the API are not served at the root.
    @Test(arguments: Backend.available)
    func importedShortLinksKeepTheirPaths(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        let csv = """
            Short link,Long link,Link name
            https://rabble.community/summer,"https://rabble.community/?link=https://rabble.community/g/summer&st=Summer%20rave&apn=community.rabble.plur",Summer
            https://rabble.community/join,"https://rabble.community/?link=https://rabble.community/g/shadow",Shadowing a route

            """
        let plan = try LinkImport(configuration: h.service.configuration).firebase(csv, now: h.clock.today)
        #expect(plan.problems.isEmpty && plan.links.map(\.code) == ["summer", "join"])
        #expect(try await h.store.importLinks(plan.links) == [.created, .created])
        #expect(try await h.store.importLinks(plan.links) == [.unchanged, .unchanged], "idempotent")
        try await h.app().test(.router) { client in
            let page = try await client.call(.get, "/summer", headers: [.userAgent: Self.desktop])
            #expect(page.status == .ok && page.text.contains(#"<meta property="og:title" content="Summer rave">"#))
            #expect(try await client.call(.get, "/i/summer", headers: [.userAgent: Self.desktop]).status == .ok)
            let android = try await client.call(.get, "/summer", headers: [.userAgent: Self.android])
            #expect(android.text.contains(#"<a id="open-app" class="button" href="plur://group/summer">"#), "the app link of link's route: \(android.text)")
            #expect(android.text.contains("https://play.google.com/store/apps/details?id=community.rabble.plur&amp;referrer=sy_claim%3D"))
            let join = try await client.call(.get, "/join/g1?code=abc", headers: [.userAgent: Self.desktop])
            #expect(join.status == .ok && join.text.contains("Join a Plur community"), "the route keeps its path")
            let made = try await client.call(.post, "/api/links", token: h.writer, body: #"{"code": "apyMade2", "deepLink": "plur://group/x"}"#)
            #expect(made.status == .created)
            #expect(try await client.call(.get, "/apyMade2").status == .notFound, "only imported links answer at the root")
            #expect(try await client.call(.get, "/api/links/summer", token: h.reader).json?["kind"]?.stringValue == "fdl")
            try await h.service.flushClicks()
            #expect(try await h.store.link(code: "summer")?.clicks == 3, "visits at the old path count as clicks")
        }
        // A changed file updates what was imported; a link of another kind is never touched.
        var changed = plan.links
        changed[0].title = "Summer rave, moved"
        var other = StoredLink(code: "apyMade2", createdAt: h.clock.today)
        other.kind = .fdl
        other.webURL = "https://rabble.community/"
        #expect(try await h.store.importLinks(changed + [other]) == [.updated, .unchanged, .conflict])
        #expect(try await h.store.link(code: "summer")?.title == "Summer rave, moved")
        #expect(try await h.store.link(code: "apyMade2")?.kind == .link)
    }

    /// An export row is checked as the API checks a link: a title past its limit, or a short link
    /// on a path the service answers itself (or a route matches first), is reported, not imported.
    @Test func rowsTheServiceCouldNeverServeAreReportedWithTheirLine() async throws {
        let h = try await Harness.make()
        let long = String(repeating: "a", count: LinkInput.maximumTitleLength + 1)
        let csv = """
            shortLink,longLink
            https://rabble.community/healthz,"https://rabble.community/?link=https://rabble.community/g/a"
            https://rabble.community/admin,"https://rabble.community/?link=https://rabble.community/g/a"
            https://rabble.community/toolong,"https://rabble.community/?link=https://rabble.community/g/a&st=\(long)"
            https://rabble.community/fine,"https://rabble.community/?link=https://rabble.community/g/a&st=Fine"
            https://rabble.community/join-community,"https://rabble.community/?link=https://rabble.community/g/a"

            """
        let plan = try LinkImport(configuration: h.service.configuration).firebase(csv, now: h.clock.today)
        #expect(plan.links.map(\.code) == ["fine"])
        #expect(plan.problems.map(\.line) == [2, 3, 4, 6])
        // A route owns its path even without the query items it needs.
        #expect(plan.problems[3].message.contains("/join-community is the route \"joinCommunity\""), "\(plan.problems)")
        let query = try LinkImport(configuration: h.service.configuration).firebase(
            "shortLink,link\nhttps://rabble.community/qq5?x=1,https://rabble.community/g/a\n", now: h.clock.today)
        #expect(query.links.map(\.code) == ["qq5"] && query.notes.contains { $0.hasPrefix("line 2: shortLink \"https://rabble.community/qq5?x=1\" has a query") }, "\(query.notes)")
        #expect(plan.problems[0].message.contains("/healthz is one of the service's own paths"), "\(plan.problems)")
        #expect(plan.problems[2].message.contains("st is longer than \(LinkInput.maximumTitleLength) characters"), "\(plan.problems)")
        #expect(!plan.problems[2].message.contains(long), "the value is not repeated back")
        // The name column stands in for a missing title, under the same limit.
        let named = try LinkImport(configuration: h.service.configuration).firebase(
            "shortLink,link,name\nhttps://rabble.community/nmbig,https://rabble.community/g/a,\(long)\n", now: h.clock.today)
        #expect(named.links.isEmpty && named.problems.first?.message.contains("name is longer than") == true, "\(named.problems)")
    }

    /// A parameter's own column overrides the long link's parameter of that name (the console's
    /// export has both); a parameter given twice inside the long link is still refused.
    @Test func aParameterColumnOverridesTheLongLinks() async throws {
        let h = try await Harness.make()
        let plan = try LinkImport(configuration: h.service.configuration).firebase("""
            Short Dynamic Link,Long Dynamic Link,Deep link,st
            https://rabble.community/same,"https://rabble.community/?link=https://rabble.community/g/a&st=Old",https://rabble.community/g/a,New
            https://rabble.community/other,"https://rabble.community/?link=https://rabble.community/g/a",https://rabble.community/g/b,
            https://rabble.community/twice,"https://rabble.community/?link=https://rabble.community/g/a&st=A&st=B",,

            """, now: h.clock.today)
        #expect(plan.links.map(\.code) == ["same", "other"], "\(plan.problems)")
        #expect(plan.links.map(\.title) == ["New", nil])
        #expect(plan.links.map(\.webURL) == ["https://rabble.community/g/a", "https://rabble.community/g/b"])
        #expect(plan.problems.map(\.description) == ["line 4: st is given more than once; give each parameter once"])
    }

    /// A row cut short or shifted is left out with its line; a header naming a column twice is refused.
    @Test func rowsWithTheWrongNumberOfFieldsAndRepeatedColumnsAreNotGuessedAt() async throws {
        let h = try await Harness.make()
        let importer = LinkImport(configuration: h.service.configuration)
        let header = LinkImport.columns.joined(separator: ",")
        let good = "gdcade2," + "link,plur://group/x" + String(repeating: ",", count: LinkImport.columns.count - 3)
        let plan = try importer.ownLinks("\(header)\nqtad,link,plur://group/x\n\(good)\n\(good.replacingOccurrences(of: "gdcade2", with: "gdcade3")),extra\n", now: h.clock.today)
        #expect(plan.links.map(\.code) == ["gdcade2"], "\(plan.problems)")
        #expect(plan.problems.map(\.description) == ["line 2: 3 fields where the header has \(LinkImport.columns.count)",
                                                     "line 4: \(LinkImport.columns.count + 1) fields where the header has \(LinkImport.columns.count)"])
        #expect(throws: LinkImport.Failure.self) { try importer.ownLinks("code,code,kind\nabc,abd,link\n", now: h.clock.today) }
        #expect(throws: LinkImport.Failure.self) { try importer.firebase("shortLink,longLink,link,Long link\nx,y,z,w\n", now: h.clock.today) }
        // A Firebase export: a row ending before a column that is read, or with a value past the
        // header (an unquoted comma in the name), is left out; empty fields past the header are not values.
        let firebase = try importer.firebase("""
            Short Dynamic Link,Link name,Long Dynamic Link,Clicks
            https://rabble.community/cut,only the name
            https://rabble.community/shifted,Name, with a comma,"https://rabble.community/?link=https://rabble.community/g/a",3
            https://rabble.community/fine,Fine,"https://rabble.community/?link=https://rabble.community/g/a",3,,
            https://rabble.community/noclicks,No clicks,"https://rabble.community/?link=https://rabble.community/g/a"

            """, now: h.clock.today)
        #expect(firebase.links.map(\.code) == ["fine", "noclicks"], "\(firebase.problems)")
        #expect(firebase.problems.map(\.description) == ["line 2: 2 fields where the header has 4", "line 3: 5 fields where the header has 4"])
    }

    /// `import csv` checks what the API would: an invite is what POST /api/invite makes, parameters
    /// need a route, a link is not created in the future, and a Firebase code is not put on a
    /// path the service or a route owns.
    @Test func importedRowsAreCheckedAsTheAPIChecksThem() async throws {
        let h = try await Harness.make()
        let invites = try #require(h.service.configuration.invites)
        let codeParameter = try #require(invites.codeParameter)
        let field = try #require(invites.fields.first).parameter
        func row(_ values: [String: String]) -> String {
            CSVFields.record(LinkImport.columns.map { values[$0] ?? "" })
        }
        func parameters(_ pairs: [(String, String)]) -> String { JSONWriter.compact(.object(pairs.map { ($0.0, .string($0.1)) })) }
        let future = LinkImport.iso(h.clock.today.addingTimeInterval(86_400))
        let csv = CSVFields.record(LinkImport.columns)
            + row(["code": "nvgd2345", "kind": "invite", "route": invites.route, "parameters": parameters([(field, "g-1"), (codeParameter, "nvgd2345")])])
            + row(["code": "nvbd2345", "kind": "invite", "deepLink": "plur://group/x"])
            + row(["code": "nvbd3456", "kind": "invite", "route": invites.route, "parameters": parameters([(field, "g-1"), (codeParameter, "someother")])])
            + row(["code": "nvbd4567", "kind": "invite", "route": invites.route, "parameters": parameters([("admin", "1"), (codeParameter, "nvbd4567")])])
            + row(["code": "parbd234", "kind": "link", "deepLink": "plur://group/x", "parameters": parameters([("a", "1")])])
            + row(["code": "crebd234", "kind": "link", "deepLink": "plur://group/x", "createdAt": future])
            + row(["code": "healthz", "kind": "fdl", "webURL": "https://rabble.community/g/a"])
            + row(["code": "expbd234", "kind": "link", "deepLink": "plur://group/x", "createdAt": "2024-05-01T00:00:00Z", "expiresAt": "1970-01-02T00:00:00Z"])
        let plan = try LinkImport(configuration: h.service.configuration).ownLinks(csv, now: h.clock.today)
        #expect(plan.links.map(\.code) == ["nvgd2345"], "\(plan.problems)")
        let messages = plan.problems.map(\.description)
        #expect(messages.count == 7, "\(messages.joined(separator: "\n"))")
        #expect(messages.contains { $0.hasPrefix("line 3: an invite's route is") }, "\(messages)")
        #expect(messages.contains { $0 == "line 4: an invite's \(codeParameter) parameter is its code (nvbd3456)" }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("line 5: ") && $0.contains("no parameter \"admin\"") }, "\(messages)")
        #expect(messages.contains { $0 == "line 6: parameters are given but no route: they belong to a route" }, "\(messages)")
        #expect(messages.contains { $0 == "line 7: createdAt \(future) is in the future" }, "\(messages)")
        #expect(messages.contains { $0.hasPrefix("line 8: code healthz: the path /healthz is one of the service's own paths") }, "\(messages)")
        #expect(messages.contains { $0 == "line 9: expiresAt 1970-01-02T00:00:00Z is before createdAt 2024-05-01T00:00:00Z" }, "\(messages)")
    }

    /// Free text that a spreadsheet would run as a formula is exported behind a `'`, and an
    /// import gives back exactly what was stored.
    @Test(arguments: ["=HYPERLINK(\"http://evil.example\")", "+1", "-2", "@SUM(A1)", "'=x", "''y", "'plain", "plain", "", "\r\n=1+1", "\r\nnew", "'\r\nx", "-A1",
                       "''=double", "'''-x", "'", "'''", "''-) wink"])
    func exportedTextIsSafeInASpreadsheetAndRoundTrips(_ title: String) throws {
        let written = CSVFields.spreadsheetSafe(title)
        #expect(!(written.unicodeScalars.first.map(CSVFields.formulaStarts.contains) ?? false))
        #expect(CSVFields.spreadsheetText(written) == title)
        // As a field of a record: quoted when it holds a line break ("\r\n" is one Character),
        // read back as one field.
        let record = CSVFields.record(["a", written, "b"])
        let parsed = try CSV.parse(record)
        #expect(parsed.count == 1 && parsed.first?.fields == ["a", written, "b"], "\(record.debugDescription)")
    }

    /// A link read back from its export is the link: free text however many `'` it starts with,
    /// its last change; an empty title or description is none, through the API as in the CSV.
    @Test func exportAndImportKeepTextAndTheLastChange() async throws {
        let h = try await Harness.make()
        let created = Date(timeIntervalSince1970: 1_790_000_000)
        var link = StoredLink(code: "rthhhhh", createdAt: created)
        link.deepLink = "plur://group/z"
        link.title = "''=double"
        link.description = "'-) wink"
        link.updatedAt = created.addingTimeInterval(60)
        let plan = try LinkImport(configuration: h.service.configuration).ownLinks(LinkImport.export([link]), now: created.addingTimeInterval(120))
        #expect(plan.problems.isEmpty, "\(plan.problems)")
        let back = try #require(plan.links.first)
        #expect(back.title == link.title && back.description == link.description && back.updatedAt == link.updatedAt, "\(back)")
        let before = LinkImport.export([link]).split(separator: "\n").last.map(String.init)
        #expect(LinkImport.export([back]).split(separator: "\n").last.map(String.init) == before)
        try await h.app().test(.router) { client in
            let made = try await client.call(.post, "/api/links", token: h.writer, body: #"{"deepLink": "plur://group/e", "title": "", "description": ""}"#)
            #expect(made.status == .created && made.json?["title"] == .null && made.json?["description"] == .null, "\(made.text)")
        }
    }

    /// Export and import csv give back a link whose code starts with - (an imported Firebase
    /// code) and whose description holds CR LF, and no field starts a spreadsheet formula.
    @Test func codesAndLineBreaksRoundTripThroughCSV() throws {
        var link = StoredLink(code: "-2-3", createdAt: Date(timeIntervalSince1970: 1_790_000_000))
        link.kind = .fdl
        link.webURL = "https://rabble.community/g/x"
        link.description = "x\r\n=1+1"
        let csv = LinkImport.export([link])
        let records = try CSV.parse(csv)
        #expect(records.count == 2, "\(csv.debugDescription)")
        for field in records.flatMap(\.fields) { #expect(!(field.unicodeScalars.first.map(CSVFields.formulaStarts.contains) ?? false), "\(field.debugDescription)") }
        #expect(records.last?.fields.first == "'-2-3")
    }
}
