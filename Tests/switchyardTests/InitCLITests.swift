import Foundation
import SwitchyardTestSupport
import Testing

/// `switchyard init` through the binary: the files it writes are served by `serve`, and what
/// `serve` serves passes `aasa validate` and `assetlinks validate`.
@Suite struct InitCLITests {
    static let fingerprint = "146de983c5730650d8eeb9952f34fc6416a08342e61dbea88a0496b23fcf44e5"

    @Test func initThenServeThenBothValidatorsPass() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let written = try await CLITests.run(["init", "--domain", "Links.Example.com", "--team-id", "ABCDE12345", "--bundle-id", "com.example.shop",
                                              "--app-store-id", "1234567890", "--package", "com.example.shop", "--fingerprint", Self.fingerprint,
                                              "--scheme", "shop", "--directory", directory.path])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(written.stdout.contains("wrote \(directory.path)/switchyard.yaml"))
        #expect(written.stdout.hasSuffix("next: cd \(directory.path) && switchyard serve (it reads ./switchyard.yaml and keeps its data in ./.switchyard/)\n"), "\(written.stdout)")
        let configuration = directory.appendingPathComponent("switchyard.yaml").path
        let text = try String(contentsOfFile: configuration, encoding: .utf8)
        #expect(text.contains("routeTable: \"routes.yaml\""))
        #expect(text.contains("14:6D:E9:83:C5:73:06:50"), "the fingerprint as assetlinks wants it: \(text)")
        // The route table alone is what the app reads: `route` takes it.
        let routed = try await CLITests.run(["route", "--routes", directory.appendingPathComponent("routes.yaml").path, "https://links.example.com/i/abc"])
        #expect(routed.stdout.contains("link(code: abc)"), "\(routed.stdout)\(routed.stderr)")
        // The configuration given where the route table belongs says which file to give.
        let mistaken = try await CLITests.run(["route", "--routes", configuration, "https://links.example.com/i/abc"])
        #expect(mistaken.status == 2 && mistaken.stderr.contains("this is a service configuration; give its route table (routes.yaml) instead"), "\(mistaken.stderr)")

        // As init says: serve run from that directory, with no options, reads its configuration
        // and keeps its database there.
        let served = try await blocking {
            try CLITests.withService(CLITests.binary, ["serve", "--port", "0"], in: directory) { origin in
                (HTTP.send("GET", origin + "/.well-known/apple-app-site-association"), HTTP.send("GET", origin + "/.well-known/assetlinks.json"))
            }
        }
        let (aasa, assetlinks) = try #require(served.result, "serve did not start: \(served.log)")
        #expect(served.log.contains(#""config":"switchyard.yaml""#) && served.log.contains(#""database":"sqlite:\#(directory.path)/.switchyard/switchyard.sqlite""#), "\(served.log)")
        #expect(aasa.status == 200 && assetlinks.status == 200)
        try Data(aasa.body.utf8).write(to: directory.appendingPathComponent("aasa.json"))
        try Data(assetlinks.body.utf8).write(to: directory.appendingPathComponent("assetlinks.json"))
        let checkedAASA = try await CLITests.run(["aasa", "validate", directory.appendingPathComponent("aasa.json").path])
        #expect(checkedAASA.status == 0 && checkedAASA.stdout.contains("valid, 0 errors, 0 warnings"), "\(checkedAASA.stdout)")
        #expect(aasa.body.contains("ABCDE12345.com.example.shop"))
        let checkedLinks = try await CLITests.run(["assetlinks", "validate", directory.appendingPathComponent("assetlinks.json").path])
        #expect(checkedLinks.status == 0 && checkedLinks.stdout.contains("valid, 0 errors"), "\(checkedLinks.stdout)")
    }

    /// `init --add-domain` adds an app's domain to a configuration already there: a configuration
    /// of one domain becomes a domains list whose first entry is what it was, and `serve` then
    /// answers each domain's association files by host. A name or host already there changes
    /// nothing.
    @Test func addingADomainToAConfiguration() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let first = try await CLITests.run(["init", "--domain", "links.rabble.example", "--team-id", "ABCDE12345", "--bundle-id", "community.rabble.plur",
                                            "--scheme", "plur", "--directory", directory.path])
        #expect(first.status == 0, "\(first.stderr)")
        let added = try await CLITests.run(["init", "--add-domain", "shop", "--domain", "go.shop.example", "--team-id", "FGHIJ67890",
                                            "--bundle-id", "example.shop.app", "--scheme", "shop", "--directory", directory.path])
        #expect(added.status == 0 && added.stdout.hasPrefix("added the domain shop (go.shop.example) to \(directory.path)/switchyard.yaml"), "\(added.stdout)\(added.stderr)")
        let books = try await CLITests.run(["init", "--add-domain", "books", "--domain", "books.example", "--package", "example.books",
                                            "--fingerprint", Self.fingerprint, "--directory", directory.path])
        #expect(books.status == 0, "\(books.stderr)")
        let path = directory.appendingPathComponent("switchyard.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("domains:\n  - name: links.rabble.example\n    publicURL: \"https://links.rabble.example\""), "\(text)")
        #expect(text.contains("  - name: shop\n") && text.contains("  - name: books\n") && !text.contains("\nservice:"), "\(text)")
        // The file's own closing comment stays at the top level, and the emptied service section's comments stay too.
        #expect(text.contains("\n# The other sections") && text.contains("# service:\n") && text.contains("# trustForwardedFor: true"), "\(text)")
        // A token limited to a domain the configuration has not is refused.
        let token = try await CLITests.run(["token", "create", "--name", "t", "--domain", "nosuch", "--config", path, "--database", "sqlite:" + directory.appendingPathComponent("t.sqlite").path])
        #expect(token.status == 2 && token.stderr.contains(#"--domain "nosuch": no domain of \#(path) is named so (domains: links.rabble.example, shop, books)"#), "\(token.stderr)")

        // Refused, and nothing changed: a name taken, a host another domain has.
        for (arguments, message) in [
            (["--add-domain", "shop", "--domain", "x.example", "--team-id", "FGHIJ67890", "--bundle-id", "example.x"], "has a domain named shop already"),
            (["--add-domain", "dup", "--domain", "go.shop.example", "--team-id", "FGHIJ67890", "--bundle-id", "example.y"], "go.shop.example is a host of domains[1] (shop) already"),
        ] {
            let refused = try await CLITests.run(["init"] + arguments + ["--directory", directory.path])
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(refused.stderr)")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == text)
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("routes-dup.yaml").path))

        // Served by host: each domain's AASA names its own app.
        let served = try await blocking {
            try CLITests.withService(CLITests.binary, ["serve", "--port", "0"], in: directory) { origin in
                (HTTP.send("GET", origin + "/.well-known/apple-app-site-association", headers: ["Host": "links.rabble.example"]),
                 HTTP.send("GET", origin + "/.well-known/apple-app-site-association", headers: ["Host": "go.shop.example"]),
                 HTTP.send("GET", origin + "/.well-known/assetlinks.json", headers: ["Host": "books.example"]))
            }
        }
        let (plur, shop, booksLinks) = try #require(served.result, "serve did not start: \(served.log)")
        #expect(plur.status == 200 && plur.body.contains("ABCDE12345.community.rabble.plur") && !plur.body.contains("FGHIJ67890"))
        #expect(shop.status == 200 && shop.body.contains("FGHIJ67890.example.shop.app") && !shop.body.contains("ABCDE12345"))
        #expect(booksLinks.status == 200 && booksLinks.body.contains("example.books"))
    }

    /// The examples the written files carry in comments work once uncommented: the product
    /// route's page offers the app route it names.
    @Test func theCommentedExamplesWorkUncommented() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let written = try await CLITests.run(["init", "--domain", "links.example.com", "--team-id", "ABCDE12345", "--bundle-id", "com.example.shop",
                                              "--scheme", "shop", "--directory", directory.path])
        #expect(written.status == 0, "\(written.stderr)")
        let examples = [
            ("routes.yaml", "  # - {name: product,", "  - {name: product,"), ("routes.yaml", "  # - {name: appProduct,", "  - {name: appProduct,"),
            ("switchyard.yaml", "  # pages:", "  pages:"), ("switchyard.yaml", "  #   product: appProduct", "    product: appProduct"),
        ]
        for (file, commented, example) in examples {
            let path = directory.appendingPathComponent(file).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains(commented), "\(file) has no \(commented.debugDescription): \(text)")
            try Data(text.replacingOccurrences(of: commented, with: example).utf8).write(to: URL(fileURLWithPath: path))
        }
        let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)"
        let served = try await blocking {
            try CLITests.withService(CLITests.binary, ["serve", "--port", "0"], in: directory) { origin in
                HTTP.send("GET", origin + "/p/42", headers: ["User-Agent": iPhone]).body
            }
        }
        let page = try #require(served.result, "serve did not start: \(served.log)")
        #expect(page.contains(#"<a id="open-app" class="button" href="shop://product/42">Open in the app</a>"#), "\(page)")
    }

    /// On a terminal (a pseudo-terminal made by `script`), each answer is checked when given and
    /// asked again with the reason; the files then hold the answers that passed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) is not installed"))
    func onATerminalEachAnswerIsCheckedAndAskedAgain() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let answers = ["https://links.example.com", "links.example.com", "abc", "ABCDE12345", "ABCDE12345.com.example.shop", "com.example.shop",
                       "", "com..shop", "com.example.shop", "12:34", "146de983c5730650d8eeb9952f34fc6416a08342e61dbea88a0496b23fcf44e5",
                       "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E6", "", "tel", "shop"]
        let command = "\(CLITests.binary.path) init --directory \(directory.path)"
        let run = try await CLITests.run(["/usr/bin/script", "-qec", command, "/dev/null"], stdin: answers.joined(separator: "\n") + "\n", shell: true)
        let said = run.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        #expect(run.status == 0, "\(said)")
        for reason in ["is not a domain name: give the host alone (links.example.com), without scheme, port or path; try again",
                       "\"abc\" is not a team ID (10 capital letters and digits: Membership details in the developer account); try again", "starts with the team ID; give the bundle ID alone (com.example.shop); try again",
                       "\"12:34\" is not a SHA-256 fingerprint", "tel: belongs to the system"] {
            #expect(said.contains(reason), "\(reason) not in: \(said)")
        }
        let text = try String(contentsOf: directory.appendingPathComponent("switchyard.yaml"), encoding: .utf8)
        for line in ["teamId: \"ABCDE12345\"", "bundleId: \"com.example.shop\"", "package: \"com.example.shop\"", "scheme: \"shop\"",
                     "\"14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5\"",
                     "\"14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E6\""] {
            #expect(text.contains(line), "\(line) not in: \(text)")
        }
        #expect(!text.contains("    appStoreId: "), "the App Store question was skipped")
    }

    @Test func anAndroidOnlyAppGetsNoAASAAndValidAssetlinks() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let written = try await CLITests.run(["init", "--domain", "links.example.com", "--package", "com.example.shop",
                                              "--fingerprint", Self.fingerprint, "--directory", directory.path])
        #expect(written.status == 0, "\(written.stderr)")
        let served = try await blocking {
            try CLITests.withService(CLITests.binary, ["serve", "--config", directory.appendingPathComponent("switchyard.yaml").path, "--port", "0",
                                                       "--database", "sqlite:" + directory.appendingPathComponent("s.sqlite").path]) { origin in
                (HTTP.send("GET", origin + "/.well-known/apple-app-site-association").status, HTTP.send("GET", origin + "/.well-known/assetlinks.json").status)
            }
        }
        let (aasa, assetlinks) = try #require(served.result, "serve did not start: \(served.log)")
        #expect(aasa == 404, "no iOS app, no AASA (rather than one that names no app)")
        #expect(assetlinks == 200)
    }

    @Test(arguments: [
        (["--team-id", "ABCDE12345", "--bundle-id", "a.b"], "--domain is missing"),
        (["--domain", "x.example"], "no app"),
        (["--domain", "x.example", "--team-id", "ABCDE12345"], "--bundle-id is missing"),
        (["--domain", "x.example", "--team-id", "ABCDE", "--bundle-id", "a.b"], "--team-id: \"ABCDE\" is not a team ID"),
        (["--domain", "x.example", "--package", "a.b", "--fingerprint", "12:34"], "is not a SHA-256 fingerprint"),
        (["--domain", "x.example", "--package", "a.b"], "needs the SHA-256 fingerprint"),
        (["--domain", "evil.com@x.example", "--team-id", "ABCDE12345", "--bundle-id", "a.b"], "domain"),
        (["--domain", "x.example", "--team-id", "ABCDE12345", "--bundle-id", "a.b", "--name", "x\nwebcredentials: true"], "--name: "),
        (["--domain", "localhost", "--team-id", "ABCDE12345", "--bundle-id", "a.b"], "--domain: \"localhost\" is not a public domain name"),
        (["--domain", "127.0.0.1", "--team-id", "ABCDE12345", "--bundle-id", "a.b"], "is an IP address"),
        (["--domain", "a_b.example", "--team-id", "ABCDE12345", "--bundle-id", "a.b"], "is not a DNS name"),
        // A value that starts with a dash is the domain given, not a missing one.
        (["--domain", "-bad.com", "--team-id", "ABCDE12345", "--bundle-id", "a.b"], "--domain: \"-bad.com\" is not a DNS name"),
        (["--domain", "x.example", "--team-id", "ABCDE12345", "--bundle-id", "a.b", "--scheme", "tel"], "--scheme: tel: belongs to the system"),
        (["--domain", "x.example", "--team-id", "abcde12345", "--bundle-id", "a.b"], "--team-id: \"abcde12345\" is not a team ID"),
        (["--domain", "x.example", "--team-id", "ABCDE12345", "--bundle-id", "a.b", "--name", " "], "--name: the app's name is empty"),
        (["--domain", "https://x.example:8443", "--team-id", "ABCDE12345", "--bundle-id", "a.b"],
         "--domain: \"https://x.example:8443\" is not a domain name: give the host alone (x.example), without scheme, port or path"),
        (["--domain", "x.example", "--team-id", "ABCDE12345", "--bundle-id", "ABCDE12345.com.e.shop"],
         "--bundle-id: \"ABCDE12345.com.e.shop\" starts with the team ID; give the bundle ID alone (com.e.shop)"),
    ])
    func aMissingOrWrongValueIsRefusedAndNothingIsWritten(arguments: [String], message: String) async throws {
        let directory = try ServiceProcessTests.temporaryDirectory()
        let run = try await CLITests.run(["init", "--directory", directory.path] + arguments, stdin: "")
        #expect(run.status == 2)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test func existingFilesAreKeptWithoutForce() async throws {
        // A symlink is a file that is there, even when it points nowhere.
        let linked = try ServiceProcessTests.temporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: linked.appendingPathComponent("switchyard.yaml").path, withDestinationPath: "/nonexistent/target")
        let dangling = try await CLITests.run(["init", "--domain", "x.example", "--team-id", "ABCDE12345", "--bundle-id", "a.b", "--directory", linked.path])
        #expect(dangling.status == 2 && dangling.stderr.contains("exists already"), "\(dangling.stderr)")
        let directory = try ServiceProcessTests.temporaryDirectory()
        let arguments = ["init", "--domain", "x.example", "--team-id", "ABCDE12345", "--bundle-id", "a.b", "--directory", directory.path]
        try Data("mine\n".utf8).write(to: directory.appendingPathComponent("switchyard.yaml"))
        let refused = try await CLITests.run(arguments)
        #expect(refused.status == 2 && refused.stderr.contains("exists already"))
        #expect(try String(contentsOfFile: directory.appendingPathComponent("switchyard.yaml").path, encoding: .utf8) == "mine\n")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("routes.yaml").path))
        #expect(try await CLITests.run(arguments + ["--force"]).status == 0)
        // --force replaces files, not a directory in a file's place: refused before anything is written.
        for name in ["switchyard.yaml", "routes.yaml"] {
            let directory = try ServiceProcessTests.temporaryDirectory()
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(name), withIntermediateDirectories: false)
            let run = try await CLITests.run(["init", "--domain", "x.example", "--team-id", "ABCDE12345", "--bundle-id", "a.b", "--directory", directory.path, "--force"])
            #expect(run.status == 2 && run.stderr.contains("\(directory.path)/\(name) is a directory; nothing was written"), "\(run.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [name])
        }
    }

    /// Past a file-size limit a write fails and is said, with status 2 and nothing left behind,
    /// instead of SIGXFSZ ending the command half-way.
    @Test func aFileSizeLimitIsSaidNotASignal() async throws {
        let directory = try ServiceProcessTests.temporaryDirectory().appendingPathComponent("limited").path
        let run = try await CLITests.run(["/bin/sh", "-c", "ulimit -f 1; exec '\(CLITests.binary.path)' init --domain links.example.com --team-id ABCDE12345 --bundle-id com.example.shop --scheme shop --directory '\(directory)'"], shell: true)
        #expect(run.status == 2 && run.stderr.contains("File too large"), "\(run.status) \(run.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).isEmpty)
    }

    /// A configuration with no app is refused by serve, naming the keys to fill.
    @Test func serveRefusesAConfigurationWithNoApp() async throws {
        let run = try await CLITests.run(["serve", "--config", "../../Examples/plur-routes.yaml", "--port", "0"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("no app is configured") && run.stderr.contains("add an apple entry"), "\(run.stderr)")
    }
}
