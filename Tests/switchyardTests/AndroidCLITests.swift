import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing

/// Android 15 dynamic App Links through the binary: decide, explain, validate, generate from
/// the route table, and both platforms side by side.
@Suite struct AndroidCLITests {
    static let fingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"

    static func statements(_ rules: String, package: String = "com.example.app") -> String {
        #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "\#(package)", "sha256_cert_fingerprints": ["\#(fingerprint)"]}, "relation_extensions": {"delegate_permission/common.handle_all_urls": {"dynamic_app_link_components": \#(rules)}}}]"#
    }

    static func write(_ text: String, _ name: String) throws -> String {
        let path = try ServiceProcessTests.temporaryDirectory().appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A table shaped after the guide's examples (ordering, a catch-all, a query map), one case
    /// per line; a broken case gets its error and the run goes on (status 1).
    @Test func decideJSONLines() async throws {
        let ordered = Self.statements(#"[{"/": "/help/*", "exclude": true}, {"/": "/help/faq"}, {"/": "*"}]"#)
        let queries = Self.statements(#"[{"/": "/search", "?": {"q": "?*", "lang": "en"}}, {"/": "/shop/*"}]"#)
        let only = Self.statements(#"[{"/": "/polycy/*", "exclude": true}]"#)
        let malformed = Self.statements(#"[{"/": "/a"}, {"?": "q=*"}]"#)
        let cases: [(String, String, String, String)] = [
            ("1", ordered, "https://e.com/help/faq", "exclude"),       // the first rule wins, not the more specific one
            ("2", ordered, "https://e.com/home", "match"),
            ("3", queries, "https://e.com/search?lang=en&q=shoes", "match"),
            ("4", queries, "https://e.com/search?q=shoes", "no_match"),
            ("5", queries, "https://e.com/search?q=&lang=en", "no_match"),
            ("6", queries, "https://e.com/shop/1?ref=ad", "match"),
            ("7", only, "https://e.com/home", "no_match"),
            ("8", malformed, "https://e.com/a", "manifest"),
        ]
        var input = cases.map { #"{"id": "\#($0.0)", "assetlinks": \#($0.1), "package": "com.example.app", "url": "\#($0.2)"}"# }
        input.append(#"{"id": "9", "assetlinks": \#(ordered), "package": "com.other.app", "url": "https://e.com/home"}"#)
        input.append(#"{"id": "10", "assetlinks": "not json", "package": "com.example.app", "url": "https://e.com/"}"#)
        input.append(#"{"id": "11", "assetlinks": \#(ordered), "url": "https://e.com/"}"#)
        let run = try await CLITests.run(["assetlinks", "decide", "--jsonl"], stdin: input.joined(separator: "\n") + "\n")
        #expect(run.status == 1, "\(run.stderr)")
        let expected = cases.map { #"{"id":"\#($0.0)","decision":"\#($0.3)"}"# } + [
            #"{"id":"9","decision":"not_associated"}"#,
        ]
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(Array(lines.prefix(9)) == expected)
        #expect(lines.count == 11)
        #expect(lines[9].contains(#""id":"10","error":{"code":"json-syntax""#))
        #expect(lines[10].contains(#""id":"11","error":{"code":"missing-key""#))
    }

    /// The file whose only rule excludes is refused by validate (it keeps every URL of the site
    /// out of the app), and explain names the deciding rule.
    @Test func validateAndExplain() async throws {
        let only = try Self.write(Self.statements(#"[{"/": "/polycy/*", "exclude": true}]"#), "only.json")
        let validated = try await CLITests.run(["assetlinks", "validate", only])
        #expect(validated.status == 1)
        #expect(validated.stdout.contains("every rule excludes") && validated.stdout.contains("[only-exclusions]"), "\(validated.stdout)")
        let typo = try Self.write(Self.statements(#"[{"/": "/admin/*", "exlude": true}, {"/": "*"}]"#), "typo.json")
        let warned = try await CLITests.run(["assetlinks", "validate", typo])
        #expect(warned.status == 0)
        #expect(warned.stdout.contains(#"did you mean "exclude"?"#), "\(warned.stdout)")
        let explained = try await CLITests.run(["assetlinks", "explain", typo, "https://e.com/admin/x", "--package", "com.example.app"])
        #expect(explained.status == 0)
        #expect(explained.stdout == """
              rule 0 {"/":"/admin/*"} matches
            match: Android 15 opens https://e.com/admin/x in com.example.app

            """, "\(explained.stdout)")
        let json = try await CLITests.run(["assetlinks", "explain", only, "https://e.com/polycy/a", "--package", "com.example.app", "--json"])
        #expect(json.stdout.hasPrefix(#"{"decision":"exclude","statement":0,"rule":0,"#))
    }

    /// One rule source: `assetlinks generate --routes` gives the rules of the AASA `aasa generate`
    /// makes from the same table; `routes platforms` finds no disagreement between them, and
    /// finds the served file that keeps everything out.
    @Test func generateFromRoutesAndCompareBothPlatforms() async throws {
        let routes = CLITests.root.appendingPathComponent("Examples/plur-routes.yaml").path
        let generated = try await CLITests.run(["assetlinks", "generate", "--package", "community.rabble.plur", "--fingerprint", Self.fingerprint, "--routes", routes])
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stdout.contains("dynamic_app_link_components"))
        #expect(generated.stderr.contains("Android 14 and lower ignore dynamic rules"))
        // A fingerprint as keytool prints it, without colons in lower case or its whole line, is written as the file wants it.
        let keytoolLine = try await CLITests.run(["assetlinks", "generate", "--package", "community.rabble.plur", "--fingerprint", "SHA256: " + Self.fingerprint, "--routes", routes])
        #expect(keytoolLine.status == 0 && keytoolLine.stdout == generated.stdout, "\(keytoolLine.stderr)")
        // One key given in two forms is one key.
        let twice = try await CLITests.run(["assetlinks", "generate", "--package", "community.rabble.plur", "--fingerprint", Self.fingerprint, "--fingerprint", Self.fingerprint.lowercased(), "--routes", routes])
        #expect(twice.status == 0 && twice.stdout == generated.stdout, "\(twice.stdout)")
        let compact = try await CLITests.run(["assetlinks", "generate", "--package", "community.rabble.plur", "--fingerprint", Self.fingerprint.lowercased().replacingOccurrences(of: ":", with: ""), "--routes", routes])
        #expect(compact.status == 0 && compact.stdout == generated.stdout, "\(compact.stderr)")
        let file = try Self.write(generated.stdout, "assetlinks.json")
        #expect(try await CLITests.run(["assetlinks", "validate", file]).status == 0)
        let same = try await CLITests.run(["routes", "platforms", "--routes", routes, "--assetlinks", file, "--package", "community.rabble.plur"])
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        // Every URL decided alike; an embedded URL's text is any text to a pattern ("wider").
        #expect(same.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("same") || $0.hasPrefix("wider") }, "\(same.stdout)")
        #expect(same.stdout.contains("router route group "), "the router's answer is printed beside the platforms'")
        #expect(same.stdout.contains("sy_extra=1"), "a URL with a parameter no route reads is asked too")
        let only = try Self.write(Self.statements(#"[{"/": "/polycy/*", "exclude": true}]"#, package: "community.rabble.plur"), "only.json")
        let differ = try await CLITests.run(["routes", "platforms", "--routes", routes, "--assetlinks", only, "--json"])
        #expect(differ.status == 1)
        #expect(differ.stdout.contains(#""router":{"route":"group","excluded":false},"ios":"match","android":"no_match","verdict":"DIFFER","disagree":true"#), "\(differ.stdout)")
        // Text that is no URL is not decided: said with the reason, status 1, nothing printed.
        let notURL = try await CLITests.run(["routes", "platforms", "--routes", routes, "not a url", "https://rabble.community/\u{1B}[31mx"])
        #expect(notURL.status == 1 && notURL.stdout.isEmpty, "\(notURL.stdout)")
        #expect(notURL.stderr.contains("error: not a url: ") && notURL.stderr.contains("\\u{1B}[31mx"), "\(notURL.stderr)")
        // An app the served file does not name is refused: every URL would stay on the web.
        let otherApp = try await CLITests.run(["routes", "platforms", "--routes", routes, "--assetlinks", file, "--package", "com.other.app"])
        #expect(otherApp.status == 2 && otherApp.stderr.contains("--package com.other.app is not in the assetlinks.json (it names community.rabble.plur)"), "\(otherApp.stderr)")
        // Among URLs, one that is none is said in its place and the others are still decided.
        let mixed = try await CLITests.run(["routes", "platforms", "--routes", routes, "https://rabble.community/g/x", "notaurl", "https://rabble.community/g/y"])
        #expect(mixed.status == 1)
        #expect(mixed.stdout.split(separator: "\n").map { $0.split(separator: " ").last ?? "" } == ["https://rabble.community/g/x", "https://rabble.community/g/y"], "\(mixed.stdout)")
        #expect(mixed.stderr.contains("error: notaurl: not an absolute URL") && mixed.stderr.contains("2 URLs, 0 where the router, iOS and Android 15 disagree; 1 not a URL"), "\(mixed.stderr)")
        let mixedJSON = try await CLITests.run(["routes", "platforms", "--routes", routes, "--json", "https://rabble.community/g/x", "https://", "a\u{1}b"])
        let lines = mixedJSON.stdout.split(separator: "\n")
        #expect(mixedJSON.status == 1 && lines.count == 3, "\(mixedJSON.stdout)")
        #expect(lines[1] == #"{"url":"https://","error":{"code":"invalid-url","message":"the URL has no host a browser would go to"}}"#, "\(mixedJSON.stdout)")
        #expect(lines.last?.hasPrefix(#"{"url":"a\u0001b","error":{"code":"invalid-url","#) == true, "\(mixedJSON.stdout)")
    }

    /// `aasa compare` against two local HTTPS servers, the site and a stand-in for Apple's CDN,
    /// that disagree: the differing JSON and decisions are printed with the CDN's age headers,
    /// status 1; the same file on both is status 0.
    @Test func aasaCompareFindsTheCDNCopyBehindTheSite() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let ca = try await blocking { try TestCA(in: directory) }
        let site = CLITests.testsDirectory.appendingPathComponent("../../Examples/shop-aasa.json").path
        // The CDN still has last month's file: /help/* was not excluded yet, /new/* not there.
        let stale = try Self.write("""
            {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"],
              "components": [{"/": "/buy/*", "?": {"ref": "?*"}}, {"/": "/buy/*", "#": "top"}, {"/": "/buy/*", "exclude": true}, {"/": "/help/*"}]}]}}
            """, "stale.json")
        let server = try LocalServer(tls: (ca.cert, ca.key), environment: ["TEST_AASA": site, "TEST_CDN_AASA": stale])
        let domain = "127.0.0.1:\(server.port)"
        let arguments = ["aasa", "compare", domain, "--cdn-base", server.origin + "/a/v1/", "--ca-file", ca.caFile, "--allow-private-addresses"]
        let differ = try await CLITests.run(arguments)
        #expect(differ.status == 1, "\(differ.stdout)\(differ.stderr)")
        #expect(differ.stdout.contains("cdn:  \(server.origin)/a/v1/\(domain): 200"), "\(differ.stdout)")
        #expect(differ.stdout.contains(", age 86400, cache-control max-age=3600"))
        #expect(differ.stdout.contains("bytes: differ"))
        #expect(differ.stdout.contains("$.applinks.details[0].components: 5 entries in the first, 4 in the second"), "\(differ.stdout)")
        #expect(differ.stdout.contains("https://127.0.0.1/help/x ABCDE12345.com.example.shop: site exclude, cdn match"), "\(differ.stdout)")
        let urls = try await CLITests.run(arguments + ["--url", "https://127.0.0.1/buy/1?ref=a", "--json"])
        #expect(urls.status == 0, "the one URL asked is decided alike: \(urls.stdout)")
        #expect(urls.stdout.contains(#""decisionDifferences":[]"#) && urls.stdout.contains(#""sameBytes":false"#))
        let same = try LocalServer(tls: (ca.cert, ca.key), environment: ["TEST_AASA": site, "TEST_CDN_AASA": site])
        let agree = try await CLITests.run(["aasa", "compare", "127.0.0.1:\(same.port)", "--cdn-base", same.origin + "/a/v1", "--ca-file", ca.caFile, "--allow-private-addresses"])
        #expect(agree.status == 0, "\(agree.stdout)")
        #expect(agree.stdout.contains("bytes: the same") && agree.stdout.contains("json: the same") && agree.stdout.contains("0 differ"))
        let unreachable = try await CLITests.run(["aasa", "compare", "127.0.0.1:1", "--cdn-base", same.origin + "/a/v1", "--ca-file", ca.caFile, "--allow-private-addresses"])
        #expect(unreachable.status == 2 && unreachable.stderr.contains("could not fetch"), "\(unreachable.stderr)")
        // A CDN without a copy (404) decides nothing: every example differs, and the JSON of the
        // two copies was not compared (null, not an empty list).
        let none = try await CLITests.run(["aasa", "compare", domain, "--cdn-base", server.origin + "/nothing/", "--ca-file", ca.caFile, "--allow-private-addresses", "--json"])
        #expect(none.status == 1 && none.stdout.contains(#""status":404"#) && none.stdout.contains(#""jsonDifferences":null"#), "\(none.stdout)")
        // A URL of another host is refused: the files of DOMAIN leave it alone, so both copies would "agree".
        let elsewhere = try await CLITests.run(arguments + ["--url", "https://shop.example/help/x"])
        #expect(elsewhere.status == 2 && elsewhere.stderr.contains("--url https://shop.example/help/x: not on \(domain): only \(domain)'s URLs are decided by its file"), "\(elsewhere.stderr)")
        // A host and a port only: credentials would reach the CDN in its path, a fragment fetch another file.
        for bad in ["https://example.com", "user:s3cret@127.0.0.1:\(server.port)", "127.0.0.1:\(server.port)#x"] {
            let badDomain = try await CLITests.run(["aasa", "compare", bad, "--cdn-base", server.origin + "/a/v1/", "--ca-file", ca.caFile, "--allow-private-addresses"])
            #expect(badDomain.status == 2 && badDomain.stderr.contains("Usage: switchyard aasa compare") && !badDomain.stdout.contains("cdn:"), "\(badDomain.stderr)")
        }
    }

    /// `serve` with `appleCDN.check` compares the stand-in CDN's copy with the AASA it serves, for
    /// each of its hosts, and says so in /healthz (whose status it never changes) and a gauge.
    @Test func serveComparesAppleCDNCopyAndReportsItInHealthAndMetrics() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let ca = try await blocking { try TestCA(in: directory) }
        let example = try String(contentsOf: CLITests.root.appendingPathComponent("Sources/LinkService/Resources/example-config.yaml"), encoding: .utf8)
        // Last month's file: the group pages (/g/*) were not in it yet.
        let stale = try Self.write("""
            {"applinks": {"details": [{"appIDs": ["ABCDE12345.community.rabble.plur"], "components": [{"/": "/i/*"}, {"/": "/join/*"}]}]}}
            """, "stale.json")
        func run(cdnFile: String) async throws -> (health: String, metrics: String, aasa: String) {
            let server = try LocalServer(tls: (ca.cert, ca.key), environment: ["TEST_CDN_AASA": cdnFile])
            let config = try Self.write(example + """

                appleCDN:
                  check: true
                  base: \(server.origin)/a/v1/
                  caFile: \(ca.caFile)
                  allowPrivateAddresses: true

                """, "config.yaml")
            let database = "sqlite:" + directory.appendingPathComponent("\(UUID().uuidString).sqlite").path
            let served = try await blocking {
                try CLITests.withService(CLITests.binary, ["serve", "--config", config, "--port", "0", "--database", database]) { origin -> (String, String, String) in
                    var health = ""
                    for _ in 0..<100 {
                        health = HTTP.send("GET", origin + "/healthz").body
                        if !health.contains("not checked yet") { break }
                        Thread.sleep(forTimeInterval: 0.1)
                    }
                    return (health, HTTP.send("GET", origin + "/metrics").body, HTTP.send("GET", origin + "/.well-known/apple-app-site-association").body)
                }
            }
            return try #require(served.result, "serve did not start: \(served.log)")
        }
        let differs = try await run(cdnFile: stale)
        #expect(differs.health.hasPrefix(#"{"status":"ok""#), "the CDN's lag never degrades health: \(differs.health)")
        #expect(differs.health.contains(#""host":"rabble.community","state":"differs""#), "\(differs.health)")
        #expect(differs.health.contains(#""host":"www.rabble.community","state":"differs""#), "\(differs.health)")
        #expect(differs.health.contains(#""age":"86400""#) && differs.health.contains(#""served":"match","cdn":"no_match""#), "\(differs.health)")
        let gauge = try #require(differs.metrics.split(separator: "\n").first { $0.hasPrefix(#"switchyard_apple_cdn_aasa_differences{host="rabble.community"}"#) })
        #expect((Double(gauge.split(separator: " ").last ?? "") ?? 0) > 0, "\(gauge)")

        // The CDN holding exactly what is served: the same, and the gauge at 0.
        let current = try Self.write(differs.aasa, "current.json")
        let same = try await run(cdnFile: current)
        #expect(same.health.contains(#""host":"rabble.community","state":"same""#), "\(same.health)")
        #expect(same.metrics.contains(#"switchyard_apple_cdn_aasa_differences{host="rabble.community"} 0"#), "\(same.metrics)")
    }
}
