import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkService
import LinkStorage
import SwitchyardCore
import SwitchyardTestSupport
import Testing

/// Firebase Dynamic Links' REST API, answered as Google's did: request bodies written from
/// Google's reference (`POST /v1/shortLinks` in both forms, `GET /v1/{link}/linkStats`), its
/// error shape, and the keys that may use it.
@Suite struct FirebaseAPITests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"

    /// The long link of Google's example, on this service's domain and apps.
    static let longLink = "https://rabble.community/?link=https://rabble.community/g/summer&apn=community.rabble.plur&ibi=community.rabble.plur"
        + "&isi=1234567890&st=Summer+rave&sd=Join%20us"

    @Test(arguments: Backend.available)
    func bothRequestFormsMakeAShortLinkThatIsServed(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        let key = try await h.token("android-app", [.fdlCreate])
        try await h.app().test(.router) { client in
            // The long form, with a parameter Firebase does not know and one that is not used.
            let long = try await client.call(.post, "/v1/shortLinks?key=\(key)", body: JSONWriter.compact(.object([("longDynamicLink", .string(Self.longLink + "&ius=plur&utm_x=1"))])))
            #expect(long.status == .ok, "\(long.text)")
            let short = try #require(long.json?["shortLink"]?.stringValue)
            let code = String(short.dropFirst("https://rabble.community/".count))
            #expect(short.hasPrefix("https://rabble.community/") && code.count == 17, "UNGUESSABLE is the default: \(short)")
            #expect(code.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
            #expect(long.json?["previewLink"]?.stringValue == short + "?d=1")
            #expect(long.json?["warning"]?.arrayValue?.compactMap { $0["warningCode"]?.stringValue } == ["UNRECOGNIZED_PARAM", "UNNECESSARY_IOS_URL_SCHEME"])
            let stored = try #require(try await h.store.link(code: code))
            #expect(stored.kind == .fdl && stored.title == "Summer rave" && stored.description == "Join us")
            #expect(stored.appStoreURL == "https://apps.apple.com/app/id1234567890" && stored.playStoreURL == "https://play.google.com/store/apps/details?id=community.rabble.plur")
            let page = try await client.call(.get, "/\(code)", headers: [.userAgent: Self.iPhone])
            #expect(page.status == .ok && page.text.contains(#"<meta property="og:title" content="Summer rave">"#))
            #expect(page.text.contains(#"<a id="open-app" class="button" href="plur://group/summer">"#))
            #expect(try await client.call(.get, "/\(code)?d=1").text.contains("Summer rave"), "the preview link shows the page")

            // The parameter form, as Google's reference writes it, with a SHORT suffix and a bearer key.
            let info = """
                {"dynamicLinkInfo": {"domainUriPrefix": "https://rabble.community", "link": "https://rabble.community/g/winter",
                  "androidInfo": {"androidPackageName": "community.rabble.plur", "androidFallbackLink": "https://rabble.community/android"},
                  "iosInfo": {"iosBundleId": "community.rabble.plur", "iosAppStoreId": "1234567890"},
                  "navigationInfo": {"enableForcedRedirect": false},
                  "analyticsInfo": {"googlePlayAnalytics": {"utmSource": "mail", "utmCampaign": "winter"}, "itunesConnectAnalytics": {"at": "1l3v", "ct": "winter"}},
                  "socialMetaTagInfo": {"socialTitle": "Winter", "socialDescription": "Cold", "socialImageLink": "https://rabble.community/w.png"},
                  "desktopInfo": {"desktopFallbackLink": "https://rabble.community/desktop"}},
                 "suffix": {"option": "SHORT"}}
                """
            let made = try await client.call(.post, "/v1/shortLinks", token: key, body: info)
            #expect(made.status == .ok, "\(made.text)")
            let shortCode = try #require(made.json?["shortLink"]?.stringValue?.split(separator: "/").last.map(String.init))
            #expect(shortCode.count == 4, "SHORT starts at 4 characters: \(shortCode)")
            #expect(made.json?["warning"] == nil, "no warnings, no member: \(made.text)")
            let winter = try #require(try await h.store.link(code: shortCode))
            #expect(winter.title == "Winter" && winter.imageURL == "https://rabble.community/w.png" && winter.webURL == "https://rabble.community/desktop")
            #expect(winter.playStoreURL == "https://rabble.community/android")
            // The deprecated host-only domain works, with its warning.
            let old = try await client.call(.post, "/v1/shortLinks", token: key,
                                            body: #"{"dynamicLinkInfo": {"dynamicLinkDomain": "www.rabble.community", "link": "https://rabble.community/g/old"}}"#)
            #expect(old.json?["shortLink"]?.stringValue?.hasPrefix("https://www.rabble.community/") == true, "\(old.text)")
            #expect(old.json?["warning"]?.arrayValue?.first?["warningCode"]?.stringValue == "DEPRECATED_PARAM")
        }
    }

    @Test func refusalsHaveGooglesShape() async throws {
        let h = try await Harness.make()
        let key = try await h.token("android-app", [.fdlCreate])
        try await h.app().test(.router) { client in
            func refused(_ body: String, key given: String? = key, _ status: HTTPResponse.Status, _ name: String, _ words: String,
                         sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws {
                let answer = try await client.call(.post, "/v1/shortLinks" + (given.map { "?key=\($0)" } ?? ""), body: body)
                #expect(answer.status == status, "\(answer.text)", sourceLocation: sourceLocation)
                #expect(answer.json?.at("error.code") == .int(Int(status.code)), "\(answer.text)", sourceLocation: sourceLocation)
                #expect(answer.json?.at("error.status")?.stringValue == name, "\(answer.text)", sourceLocation: sourceLocation)
                #expect(answer.json?.at("error.message")?.stringValue?.contains(words) == true, "\(answer.text)", sourceLocation: sourceLocation)
                #expect(answer.headers[.contentType]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
            }
            try await refused(#"{"longDynamicLink": "https://example.page.link/?link=https://rabble.community/g/x"}"#, .badRequest, "INVALID_ARGUMENT",
                              "does not serve the Dynamic Links domain \"https://example.page.link\"")
            try await refused(#"{"longDynamicLink": "not a link"}"#, .badRequest, "INVALID_ARGUMENT", "Long link is not parsable")
            try await refused(#"{"longDynamicLink": "https://rabble.community/abcd"}"#, .badRequest, "INVALID_ARGUMENT", "no long Dynamic Link")
            try await refused(#"{"longDynamicLink": "\#(Self.longLink)", "dynamicLinkInfo": {"link": "https://rabble.community/g/x"}}"#,
                              .badRequest, "INVALID_ARGUMENT", "not both")
            try await refused("{}", .badRequest, "INVALID_ARGUMENT", "needs longDynamicLink or dynamicLinkInfo")
            try await refused(#"{"dynamicLinkInfo": {"link": "https://rabble.community/g/x"}}"#, .badRequest, "INVALID_ARGUMENT", "domainUriPrefix")
            try await refused(#"{"dynamicLinkInfo": {"domainUriPrefix": "https://rabble.community", "link": "https://rabble.community/g/x", "iosInfo": {"iosBundleID": "x"}}}"#,
                              .badRequest, "INVALID_ARGUMENT", #"Unknown name "iosBundleID" at 'dynamicLinkInfo.iosInfo'"#)
            try await refused(#"{"longDynamicLink": "\#(Self.longLink)", "suffix": {"option": "CUSTOM", "customSuffix": "mine"}}"#,
                              .badRequest, "INVALID_ARGUMENT", "CUSTOM is for managed short links")
            // Nothing leads to another app or another site.
            try await refused(#"{"longDynamicLink": "https://rabble.community/?link=https://rabble.community/g/x&apn=com.other.app"}"#,
                              .badRequest, "INVALID_ARGUMENT", "is not an Android package of this configuration")
            try await refused(#"{"longDynamicLink": "https://rabble.community/?link=https://evil.example/"}"#, .badRequest, "INVALID_ARGUMENT", "evil.example")
            try await refused(#"{"dynamicLinkInfo": {"domainUriPrefix": "https://rabble.community/invite", "link": "https://rabble.community/g/x"}}"#,
                              .badRequest, "INVALID_ARGUMENT", "has a path")
            // Keys: none, a wrong one, one without the scope.
            try await refused(#"{"longDynamicLink": "\#(Self.longLink)"}"#, key: nil, .unauthorized, "UNAUTHENTICATED", "needs a key")
            try await refused(#"{"longDynamicLink": "\#(Self.longLink)"}"#, key: "sy_aaaaaaaaaaaa_bbbb", .unauthorized, "UNAUTHENTICATED", "not valid")
            try await refused(#"{"longDynamicLink": "\#(Self.longLink)"}"#, key: h.reader, .forbidden, "PERMISSION_DENIED", "fdl:create")
            // The key an app carries makes short links and nothing else.
            #expect(try await client.call(.post, "/api/links", token: key, body: #"{"deepLink": "plur://group/x"}"#).status == .forbidden)
            #expect(try await client.call(.get, "/api/links", token: key).status == .forbidden)
            // A links:write token may use the API too.
            #expect(try await client.call(.post, "/v1/shortLinks?key=\(h.writer)", body: #"{"longDynamicLink": "\#(Self.longLink)"}"#).status == .ok)
        }
    }

    /// linkStats after visits from three platforms and a first open through a deferred claim:
    /// counts by platform and event, as strings; previews and bots are not clicks.
    @Test(arguments: Backend.available)
    func linkStatsCountClicksByPlatformAndFirstOpens(_ backend: Backend) async throws {
        let h = try await Harness.make(backend: backend)
        let key = try await h.token("android-app", [.fdlCreate])
        try await h.app().test(.router) { client in
            let short = try #require(try await client.call(.post, "/v1/shortLinks?key=\(key)", body: #"{"longDynamicLink": "\#(Self.longLink)"}"#).json?["shortLink"]?.stringValue)
            let code = String(short.dropFirst("https://rabble.community/".count))
            let stats = "/v1/" + short.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "/linkStats?durationDays=7"
            let empty = try await client.call(.get, stats, token: h.reader)
            #expect(empty.status == .ok && empty.text.trimmingCharacters(in: .whitespacesAndNewlines) == "{}", "nothing counted yet: no member, as Google's API writes it: \(empty.text)")

            let iPhonePage = try await client.call(.get, "/\(code)", headers: [.userAgent: Self.iPhone])
            _ = try await client.call(.get, "/\(code)", headers: [.userAgent: Self.iPhone])
            _ = try await client.call(.get, "/\(code)", headers: [.userAgent: Self.android])
            _ = try await client.call(.get, "/\(code)")
            _ = try await client.call(.get, "/\(code)", headers: [.userAgent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"])
            // The app, installed, redeems the claim the iPhone's page carried: a first open.
            let claimURL = try #require(iPhonePage.text.firstMatch(of: /data-claim="https:\/\/rabble\.community\/d\/([^"]+)"/)?.1)
            let redeemed = try await client.call(.post, "/api/deferred/claim", body: #"{"token": "\#(claimURL)"}"#)
            #expect(redeemed.status == .ok, "\(redeemed.text)")
            try await h.service.flushClicks()

            let answer = try await client.call(.get, stats, token: h.reader)
            #expect(answer.status == .ok, "\(answer.text)")
            let events = try #require(answer.json?["linkEventStats"]?.arrayValue).map {
                [$0["platform"]?.stringValue ?? "", $0["event"]?.stringValue ?? "", $0["count"]?.stringValue ?? ""]
            }
            #expect(events == [["ANDROID", "CLICK", "1"], ["IOS", "CLICK", "2"], ["DESKTOP", "CLICK", "1"], ["IOS", "APP_FIRST_OPEN", "1"]], "\(answer.text)")
            // The key in the query works as Firebase's did; a key that may only make links may not read them.
            #expect(try await client.call(.get, stats + "&key=\(h.reader)").status == .ok)
            #expect(try await client.call(.get, stats + "&key=\(key)").json?.at("error.status")?.stringValue == "PERMISSION_DENIED")
            // The link's other address, and what is not a link of this service.
            #expect(try await client.call(.get, "/v1/https%3A%2F%2Frabble.community%2Fi%2F\(code)/linkStats?durationDays=1", token: h.reader).json?["linkEventStats"] != nil)
            let stranger = try await client.call(.get, "/v1/https%3A%2F%2Fexample.page.link%2F\(code)/linkStats?durationDays=7", token: h.reader)
            #expect(stranger.status == .notFound && stranger.json?.at("error.status")?.stringValue == "NOT_FOUND")
            for bad in ["", "&durationDays=0", "&durationDays=abc", "&durationDays=99999"] {
                let answer = try await client.call(.get, stats.replacingOccurrences(of: "?durationDays=7", with: "?x=1") + bad, token: h.reader)
                #expect(answer.status == .badRequest && answer.json?.at("error.message")?.stringValue?.contains("durationDays") == true, "\(bad): \(answer.text)")
            }
        }
    }

    /// What a first review found: an http link keeps its app button, an iPad fallback that is not
    /// kept is said, types and doubled keys are refused, refusals are counted, every answer under
    /// /v1 has Google's shape, and a token in an escaped short link is not logged.
    @Test func theReviewsFindingsHold() async throws {
        let h = try await Harness.make()
        let key = try await h.token("android-app", [.fdlCreate])
        try await h.app().test(.router) { client in
            let http = try await client.call(.post, "/v1/shortLinks?key=\(key)", body: #"{"longDynamicLink": "https://rabble.community/?link=http://rabble.community/g/x&isi=1234567890&ipfl=https://rabble.community/ipad"}"#)
            let code = try #require(http.json?["shortLink"]?.stringValue?.split(separator: "/").last.map(String.init), "\(http.text)")
            #expect(try await client.call(.get, "/\(code)", headers: [.userAgent: Self.iPhone]).text.contains(#"<a id="open-app" class="button" href="plur://group/x">"#))
            #expect(http.json?["warning"]?.arrayValue?.contains { $0["warningMessage"]?.stringValue?.hasPrefix("ipfl") == true } == true, "\(http.text)")

            func status(_ body: String, _ uri: String = "/v1/shortLinks?key=\(key)", headers: HTTPFields = [:]) async throws -> (HTTPResponse.Status, String) {
                let answer = try await client.call(.post, uri, body: body, headers: headers)
                return (answer.status, answer.json?.at("error.message")?.stringValue ?? answer.text)
            }
            let info = #""domainUriPrefix": "https://rabble.community", "link": "https://rabble.community/g/x""#
            #expect(try await status(#"{"dynamicLinkInfo": {\#(info), "navigationInfo": {"enableForcedRedirect": "true"}}}"#).1.contains("must be a boolean"))
            #expect(try await status(#"{"dynamicLinkInfo": {\#(info), "analyticsInfo": {"googlePlayAnalytics": {"utmSource": 1}}}}"#).1
                .contains("dynamicLinkInfo.analyticsInfo.googlePlayAnalytics.utmSource must be a string"))
            #expect(try await status(#"{"dynamicLinkInfo": {"domainUriPrefix": 5, "link": "https://rabble.community/g/x"}}"#).1.contains("domainUriPrefix must be a string"))
            #expect(try await status(#"{"dynamicLinkInfo": {\#(info)}, "suffix": {"option": "SHORT", "customSuffix": "mine"}}"#).1.contains("customSuffix goes only with"))
            #expect(try await status(#"{"dynamicLinkInfo": {\#(info)}, "suffix": null, "sdkVersion": "21.1.0"}"#).0 == .ok)
            let twice = try await status(#"{"dynamicLinkInfo": {\#(info)}}"#, headers: [.authorization: "Bearer \(key)"])
            #expect(twice.0 == .badRequest && twice.1.contains("give the key once"))
            #expect(try await status(#"{"dynamicLinkInfo": {\#(info)}}"#, "/v1/shortLinks?key=\(key)&key=\(key)").0 == .badRequest)

            // Refusals under /v1 are counted as the API's are.
            func counter(_ name: String) async throws -> Double {
                let text = try await client.call(.get, "/metrics").text
                return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
            }
            let failures = try await counter("switchyard_auth_failures_total")
            _ = try await status(#"{"dynamicLinkInfo": {\#(info)}}"#, "/v1/shortLinks?key=sy_aaaaaaaaaaaa_bbbb")
            #expect(try await counter("switchyard_auth_failures_total") == failures + 1)

            // A path of /v1 nothing answers, or a wrong method, in Google's shape.
            let get = try await client.call(.get, "/v1/shortLinks")
            #expect(get.status == .methodNotAllowed && get.headers[.allow] == "POST" && get.json?.at("error.status")?.stringValue == "FAILED_PRECONDITION", "\(get.text)")
            let nothing = try await client.call(.get, "/v1/nothing")
            #expect(nothing.status == .notFound && nothing.json?.at("error.status")?.stringValue == "NOT_FOUND", "\(nothing.text)")
            for days in ["+7", "7&durationDays=1"] {
                let answer = try await client.call(.get, "/v1/https%3A%2F%2Frabble.community%2F\(code)/linkStats?durationDays=\(days)", token: h.reader)
                #expect(answer.status == .badRequest, "\(days): \(answer.text)")
            }
        }
        let secret = "sy_abcdefghijkm_" + String(repeating: "S", count: 43)
        let logged = ObservabilityMiddleware.loggedPath("/v1/https%3A%2F%2Frabble.community%2F\(secret)/linkStats")
        #expect(!logged.contains("SSSS") && logged.hasPrefix("/v1/") && logged.hasSuffix("/linkStats"), "\(logged)")
    }
}
