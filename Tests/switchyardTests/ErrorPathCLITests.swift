import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing

/// What the commands say, and with which status, when an input cannot be read or is wrong:
/// the reason in plain words, never internal text, and the README's exit statuses.
@Suite struct ErrorPathCLITests {
    static func temporaryDirectory() throws -> URL {
        let url = TestTemporary.root.appendingPathComponent("switchyard-err-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A missing manifest: one line with the reason, status 2 (a second line
    /// "error: /nonexistent: ExitCode(rawValue: 2)" leaked before).
    /// A configuration whose rule manifest cannot be read is refused, naming the file and the key,
    /// before the database is made (it was made and migrated first, and left behind).
    @Test func serveRefusesAnUnreadableManifestBeforeMakingTheDatabase() async throws {
        let dir = try Self.temporaryDirectory()
        let example = CLITests.binary.deletingLastPathComponent().appendingPathComponent("Switchyard_LinkService.resources/example-config.yaml")
        let config = dir.appendingPathComponent("c17.yaml")
        try (String(contentsOf: example, encoding: .utf8) + "\nresolve:\n  manifest: /nonexistent/rules.json\n").write(to: config, atomically: true, encoding: .utf8)
        let database = dir.appendingPathComponent("links.sqlite")
        let r = try await CLITests.run(["serve", "--config", config.path, "--port", "0", "--database", "sqlite:" + database.path])
        #expect(r.status == 2)
        #expect(r.stderr.contains("error: \(config.path): resolve.manifest: cannot read manifest file '/nonexistent/rules.json'"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database.path), "the database was made")
    }

    /// JSON that is not an object is no manifest: every command that reads one says so with
    /// status 2, `manifest lint` included (it said 1).
    /// A URL with a user name and password is not fetched, and the password appears nowhere:
    /// not in the finding, the summary or the JSON, whatever else is wrong with the URL.
    @Test func aPasswordInAnAssociationURLIsNeverRepeated() async throws {
        for command in ["aasa", "assetlinks"] {
            for url in ["https://user:s3cretPW@127.0.0.1:9/", "http://user:s3cretPW@127.0.0.1:9/", "https://user:s3cretPW@127.0.0.1:99999/"] {
                for json in [false, true] {
                    let r = try await CLITests.run([command, "validate", url, "--allow-private-addresses"] + (json ? ["--json"] : []))
                    #expect(r.status == 1, "\(command) \(url): \(r.status) \(r.stderr)")
                    #expect(!(r.stdout + r.stderr).contains("s3cret"), "\(command) \(url): \(r.stdout)\(r.stderr)")
                    #expect((r.stdout + r.stderr).contains("holds a user name or password"), "\(r.stdout)\(r.stderr)")
                }
            }
        }
    }

    @Test func aManifestThatIsNotAnObjectIsStatus2Everywhere() async throws {
        let dir = try Self.temporaryDirectory()
        for (name, text) in [("array.json", "[1,2,3]"), ("null.json", "null"), ("string.json", "\"rules\"")] {
            let file = dir.appendingPathComponent(name).path
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            for command in [["manifest", "lint", file], ["manifest", "lint", "--json", file], ["manifest", "test", file, "--offline"],
                            ["resolve", "--offline", "--manifest", file, "https://x.example/"], ["unwrap", "--manifest", file, "https://x.example/"]] {
                let r = try await CLITests.run(command)
                #expect(r.status == 2, "\(command): \(r.status) \(r.stdout) \(r.stderr)")
                #expect((r.stdout + r.stderr).contains("must be a JSON object"), "\(command): \(r.stdout) \(r.stderr)")
            }
        }
    }

    /// Output that cannot be written (a full disk) is said, with status 2; a reader that went away
    /// (`| head`) still ends the command quietly with 141, as a shell reports SIGPIPE.
    @Test func aFailedWriteToStandardOutputIsSaid() async throws {
        let binary = CLITests.binary.path
        for command in ["resolve --offline https://twitter.com/jack/status/20", "manifest lint Inputs/small-manifest.json", "aasa validate ../../Examples/shop-aasa.json"] {
            let full = try await CLITests.run(["/bin/sh", "-c", "'\(binary)' \(command) > /dev/full"], shell: true)
            #expect(full.status == 2, "\(command): \(full.status) \(full.stderr)")
            #expect(full.stderr.contains("error: cannot write to standard output: No space left on device"), "\(command): \(full.stderr)")
        }
        // The input is made inside the shell: the command ends before reading all of it, and a
        // pipe from this process would then fail (SIGPIPE) here.
        let closed = try await CLITests.run(["/bin/sh", "-c", "yes https://twitter.com/jack/status/20 | head -n 20000 | '\(binary)' resolve --offline | head -n 1 > /dev/null"], shell: true)
        #expect(closed.stderr.isEmpty, "\(closed.stderr)")
    }

    @Test(arguments: [["resolve", "--offline"], ["unwrap"], ["manifest", "test"]])
    func aMissingManifestIsOneLineAndStatus2(_ command: [String]) async throws {
        let arguments = command == ["manifest", "test"] ? command + ["/nonexistent/m.json"] : command + ["--manifest", "/nonexistent/m.json", "https://x.example/"]
        let r = try await CLITests.run(arguments)
        #expect(r.status == 2)
        #expect(r.stderr == "error: cannot read '/nonexistent/m.json': no such file\n", "\(r.stderr)")
    }

    /// Commands that only read the database make none where there is none: a mistyped path
    /// said "no link with code …" (or listed nothing, status 0) and left an empty database behind,
    /// its missing directory made too.
    @Test(arguments: [["token", "list"], ["token", "revoke", "t1"], ["link", "qr", "abc", "-o", "x.png"], ["export", "csv"]])
    func aReadingCommandMakesNoDatabaseWhereThereIsNone(_ command: [String]) async throws {
        let directory = try Self.temporaryDirectory()
        let path = directory.appendingPathComponent("nodir/typo.sqlite").path
        let r = try await CLITests.run(command + ["--database", "sqlite:" + path])
        #expect(r.status == 2, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr == "error: no database at \(path) (--database sqlite:\(path)); this command reads one and makes none — `switchyard serve` or `switchyard token create` make it\n", "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("nodir").path))
    }

    /// `--help` after a word that names no command is a usage error (it printed the parent's help
    /// and exited 0); after real commands it is help, status 0.
    @Test func helpAfterAnUnknownCommandIsAUsageError() async throws {
        let top = try await CLITests.run(["nosuch", "--help"])
        #expect(top.status == 2 && top.stdout.isEmpty, "\(top.stdout)")
        #expect(top.stderr.hasPrefix("Error: Unexpected argument 'nosuch': it is not a command of switchyard (commands: init, serve, token, relay,"), "\(top.stderr)")
        #expect(!top.stderr.contains("script-worker"))
        let nested = try await CLITests.run(["link", "nosuch", "-h"])
        #expect(nested.status == 2 && nested.stderr.contains("it is not a command of switchyard link (commands: qr"), "\(nested.stderr)")
        // A misspelt command, with or without --help, is named with the one meant.
        for words in [["reslove", "https://x.example/"], ["aasa", "valdiate", "x.json"], ["tokne", "--help"]] {
            let r = try await CLITests.run(words)
            #expect(r.status == 2 && r.stdout.isEmpty, "\(words): \(r.stdout)")
            let meant = ["reslove": "resolve", "valdiate": "validate", "tokne": "token"][words.first == "aasa" ? words[1] : words[0]]!
            #expect(r.stderr.contains("did you mean '\(meant)'?"), "\(words): \(r.stderr)")
        }
        for good in [["--help"], ["link", "qr", "--help"], ["resolve", "https://x.example/", "--help"], ["help", "link"]] {
            let r = try await CLITests.run(good)
            #expect(r.status == 0 && r.stdout.contains("USAGE:"), "\(good): \(r.stderr)")
        }
    }

    @Test func linkQRSizeIsForPNGsOnly() async throws {
        let r = try await CLITests.run(["link", "qr", "abc", "-o", "x.svg", "--size", "100"])
        #expect(r.status == 2 && r.stderr.contains("--size applies to PNG only; an SVG scales to any size"), "\(r.stderr)")
    }

    @Test func plistCheckOfAMissingFileIsStatus2() async throws {
        let missing = try await CLITests.run(["plist", "check", "--info-plist", "/nonexistent/Info.plist"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "error: cannot read '/nonexistent/Info.plist': no such file\n", "\(missing.stderr)")
        #expect(missing.stdout.isEmpty)
        let directory = try Self.temporaryDirectory()
        let entitlements = try await CLITests.run(["plist", "check", "--info-plist", "../../Examples/shop-aasa.json", "--entitlements", directory.path])
        #expect(entitlements.status == 2)
        #expect(entitlements.stderr.contains("it is a directory"), "\(entitlements.stderr)")
        // A device that never ends is read no further than a plist's limit (the check read it whole).
        let endless = try await CLITests.run(["plist", "check", "--info-plist", "/dev/zero"])
        #expect(endless.status == 2)
        #expect(endless.stderr == "error: cannot read '/dev/zero': larger than 16777216 bytes; reading stopped there\n", "\(endless.stderr)")
    }

    @Test func callbackKeysSayWhatIsWrongWithThem() async throws {
        let directory = try Self.temporaryDirectory()
        let missing = try await CLITests.run(["callback", "verify", "helper://x-callback-url/a", "--key", "k1=/nonexistent/k1.key"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "error: cannot read '/nonexistent/k1.key': no such file\n", "\(missing.stderr)")
        let short = directory.appendingPathComponent("short.key")
        try Data("0123456789".utf8).write(to: short)
        let tooShort = try await CLITests.run(["callback", "verify", "helper://x-callback-url/a", "--key", "k1=\(short.path)"])
        #expect(tooShort.status == 2)
        #expect(tooShort.stderr.contains("has 10 bytes; a key needs at least 16 random bytes"), "\(tooShort.stderr)")
        let aDirectory = try await CLITests.run(["callback", "build", "--scheme", "helper", "--action", "a", "--key", "k1=\(directory.path)"])
        #expect(aDirectory.status == 2)
        #expect(aDirectory.stderr.contains("it is a directory"), "\(aDirectory.stderr)")
        // A malformed --key is a usage error that shows the subcommand's usage, not the top level's.
        let shape = try await CLITests.run(["callback", "verify", "helper://x-callback-url/a", "--key", "k1"])
        #expect(shape.status == 2)
        #expect(shape.stderr.contains("--key 'k1' is not ID=FILE"), "\(shape.stderr)")
        #expect(shape.stderr.contains("Usage: switchyard callback verify"), "\(shape.stderr)")
    }

    @Test func anInboxThatCannotBeMadeSaysTheSystemsReason() async throws {
        let r = try await CLITests.run(["relay", "send", "--inbox", "/proc/switchyard-test/inbox", "plur://x"])
        #expect(r.status == 2)
        #expect(r.stderr == "error: cannot use '/proc/switchyard-test/inbox' as the inbox: cannot create /proc/switchyard-test: no such file or directory\n", "\(r.stderr)")
        let file = try Self.temporaryDirectory().appendingPathComponent("file")
        try Data().write(to: file)
        let notADirectory = try await CLITests.run(["relay", "status", "--inbox", file.path + "/inbox"])
        #expect(notADirectory.status == 2)
        #expect(notADirectory.stderr.contains("\(file.path) is not a directory"), "\(notADirectory.stderr)")
    }

    /// A negative number is the option's (out of range) value, not "Missing value".
    @Test(arguments: [["resolve", "--max-line-bytes", "-5"], ["unwrap", "--max-line-bytes", "-5"], ["resolve", "--time-limit", "-1"], ["resolve", "--network-timeout", "-1"]])
    func aNegativeValueIsSaidToBeOutOfRange(_ arguments: [String]) async throws {
        let r = try await CLITests.run(arguments + ["https://x.example/"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("\(arguments[1]) must be"), "\(r.stderr)")
        #expect(!r.stderr.contains("Missing value"))
    }

    @Test(arguments: [["relay", "watch", "--max-attempts", "-1"], ["relay", "watch", "--handler-timeout", "-1"]])
    func aNegativeRelayOptionIsSaidToBeOutOfRange(_ arguments: [String]) async throws {
        let inbox = TestTemporary.root.appendingPathComponent("inbox-\(UUID().uuidString)").path
        let r = try await CLITests.run(arguments + ["--inbox", inbox])
        #expect(r.status == 2, "\(r.status)")
        #expect(r.stderr.contains("\(arguments[2]) must be"), "\(r.stderr)")
        #expect(!r.stderr.contains("Missing value"))
    }

    @Test func aasaDecideRefusesCasesWhoseURLIsNoURLAndNumbersLinesWithoutAnID() async throws {
        let aasa = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": [{"/": "*"}]}]}}"#
        let input = [
            #"{"id": 1, "aasa": \#(aasa), "appId": "ABCDE12345.com.example.app", "url": "not a url"}"#,
            "not json",
            "   ",
            #"{"aasa": \#(aasa), "appId": "ABCDE12345.com.example.app"}"#,
            #"{"id": 5, "aasa": \#(aasa), "appId": "ABCDE12345.com.example.app", "url": "https://example.com/x"}"#,
            #"{"aasa": \#(aasa), "appId": "ABCDE12345.com.example.app", "url": "https://example.com/x"}"#,
            #"{"id": 7, "aasa": \#(aasa), "appId": "ABCDE12345.com.example.app", "url": 5}"#,
            #"{"id": 8, "appId": "ABCDE12345.com.example.app", "url": "https://example.com/x"}"#,
            #"{"id": 9, "aasa": \#(aasa), "appId": "ABCDE12345.com.example.app", "url": "https://example.com/x", "url": "https://example.com/y"}"#,
        ].joined(separator: "\n") + "\n"
        let r = try await CLITests.run(["aasa", "decide", "--jsonl"], stdin: input)
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 8, "the blank line gives no output line: \(r.stdout)")
        #expect(lines[7] == #"{"id":9,"error":{"code":"duplicate-key","message":"the case gives \"url\" more than once"}}"#, "\(lines[7])")
        // An answer to a case without an id says its line too; a key of the wrong type is not a
        // missing one.
        #expect(lines[4] == #"{"id":null,"line":6,"decision":"match"}"#, "\(lines[4])")
        #expect(lines[5] == #"{"id":7,"error":{"code":"wrong-type","message":"\"url\" must be a string, found number"}}"#, "\(lines[5])")
        #expect(lines[6].hasPrefix(#"{"id":8,"error":{"code":"missing-key","message":"\"aasa\" is missing"#), "\(lines[6])")
        #expect(lines[0] == #"{"id":1,"error":{"code":"invalid-url","message":"\"url\": not an absolute URL (expected a scheme such as https: followed by the rest of the link)"}}"#, "\(lines[0])")
        #expect(lines[1].hasPrefix(#"{"id":null,"line":2,"error":{"code":"json-syntax","#), "\(lines[1])")
        #expect(lines[2].hasPrefix(#"{"id":null,"line":4,"error":{"code":"missing-key","#), "\(lines[2])")
        #expect(lines[3] == #"{"id":5,"decision":"match"}"#)
    }

    /// A file that is no AASA is named in each finding (it said only "line 1, column 1: …").
    @Test func aasaExplainNamesTheFileItCannotRead() async throws {
        let r = try await CLITests.run(["aasa", "explain", "/dev/null", "https://a.example/x", "--app-id", "ABCDE12345.com.example.shop"])
        #expect(r.status == 2)
        #expect(r.stderr == "error: /dev/null: line 1, column 1: invalid JSON: unexpected end of input, expected a value [json-syntax]\n", "\(r.stderr)")
    }

    @Test func aasaExplainOfAnHTTPSURLWithoutAHostIsStatus1() async throws {
        let r = try await CLITests.run(["aasa", "explain", "../../Examples/shop-aasa.json", "https:/x", "--app-id", "ABCDE12345.com.example.shop"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("  the URL has no host, so it cannot be a universal link\n"), "\(r.stdout)")
        // "plur:/x" and "mailto:" are absolute URLs of another scheme (it said "not an absolute
        // URL", status 1): not universal links, as plur://x/y is not, and that is an answer.
        for url in ["plur:/x", "mailto:a@shop.example", "plur://x/y"] {
            let other = try await CLITests.run(["aasa", "explain", "../../Examples/shop-aasa.json", url, "--app-id", "ABCDE12345.com.example.shop"])
            #expect(other.status == 0, "\(url): \(other.stdout)")
            #expect(other.stdout == "  only https URLs can be universal links\nno_match: iOS does not offer \(url) to ABCDE12345.com.example.shop\n", "\(url): \(other.stdout)")
        }
        // A well-formed URL the file does not hand to the app is an answer, not an error.
        let other = try await CLITests.run(["aasa", "explain", "../../Examples/shop-aasa.json", "https://other.example/", "--app-id", "ABCDE12345.com.example.shop"])
        #expect(other.status == 0, "\(other.stdout)")
    }

    /// `assetlinks explain` answers as `aasa explain` does: an http(s) URL without a host is
    /// invalid input (status 1, it was 0), a URL of another scheme is an answer (status 0).
    @Test func assetlinksExplainOfAnHTTPSURLWithoutAHostIsStatus1() async throws {
        let file = try Self.temporaryDirectory().appendingPathComponent("assetlinks.json")
        try Data(#"[{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app","package_name":"com.example.app","sha256_cert_fingerprints":["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"]}}]"#.utf8).write(to: file)
        for (url, status) in [("https:/x", Int32(1)), ("https://", 1), ("plur://x/y", 0), ("https://shop.example/x", 0)] {
            let r = try await CLITests.run(["assetlinks", "explain", file.path, url, "--package", "com.example.app"])
            #expect(r.status == status, "\(url): \(r.stdout) \(r.stderr)")
        }
    }

    /// Stdin that cannot be read is not an empty input: a directory or a closed stdin ends the
    /// batch commands with status 2 and the reason (it was 0, as if nothing had been asked).
    @Test(arguments: [["resolve", "--offline"], ["unwrap"], ["route", "--routes", "../../Examples/plur-routes.yaml"], ["aasa", "decide", "--jsonl"],
                      ["relay", "send", "--stdin", "--inbox", TestTemporary.root.path + "/switchyard-stdin-inbox"]])
    func stdinThatCannotBeReadIsStatus2(_ command: [String]) async throws {
        let quoted = command.map { "'\($0)'" }.joined(separator: " ")
        for (redirect, reason) in [("< /", "it is a directory"), ("<&-", "it is closed")] {
            let r = try await CLITests.run(["/bin/sh", "-c", "exec \"$0\" \(quoted) \(redirect)", CLITests.binary.path], shell: true)
            #expect(r.status == 2, "\(command) \(redirect): \(r.stderr)")
            #expect(r.stderr.contains("error: cannot read stdin: \(reason)"), "\(command) \(redirect): \(r.stderr)")
        }
    }

    /// A source that is no URL to fetch is a finding about it: status 1, the reason in the
    /// report, and with --json still one object on stdout.
    @Test func aSourceURLThatCannotBeFetchedIsAFinding() async throws {
        for source in ["https:///x", "https://", "https://rabble.community/a b"] {
            let text = try await CLITests.run(["aasa", "validate", source])
            #expect(text.status == 1, "\(source): \(text.stderr)")
            #expect(text.stdout.contains("error: $: ") && text.stdout.contains("; nothing was fetched [invalid-url]\n"), "\(source): \(text.stdout)")
            let json = try await CLITests.run(["assetlinks", "validate", source, "--json"])
            #expect(json.status == 1, "\(source): \(json.stderr)")
            let report = try JSONParser.parse(json.stdout)
            #expect(report["valid"] == .bool(false) && report["file"]?.stringValue == source, "\(json.stdout)")
            #expect(report["findings"]?.arrayValue?.first?["code"]?.stringValue == "invalid-url", "\(json.stdout)")
        }
        let noHost = try await CLITests.run(["aasa", "validate", "https:///x"])
        #expect(noHost.stdout.contains("error: $: the URL has no host; nothing was fetched [invalid-url]"), "\(noHost.stdout)")
    }

    /// Inputs that are wrong in a way a person can fix say so in words, with the documented status.
    @Test func wrongValuesSayWhatIsWrongInWords() async throws {
        for (arguments, status, message) in [
            (["aasa", "validate", "https://127.0.0.1:9/", "--ca-file", "/dev/null"], Int32(2), "error: cannot use '/dev/null' as a certificate authority: it holds no PEM certificate"),
            (["aasa", "generate", "--routes", "/dev/null", "--team-id", "bad", "--bundle-id", "com.example.app"], 2,
             #"--team-id "bad" is not a team ID: it is 10 upper-case letters or digits"#),
            (["aasa", "generate", "--routes", "/dev/null", "--team-id", "ABCDE12345", "--bundle-id", "ABCDE12345.com.example.app"], 2,
             "--bundle-id ABCDE12345.com.example.app starts with the team ID: give the bundle ID alone"),
            (["aasa", "generate", "--routes", "/dev/null", "--team-id", "ABCDE12345", "--bundle-id", "com example"], 2, #"--bundle-id: the bundle ID "com example" may only contain letters, digits"#),
            (["relay", "send", "--inbox", "", "plur://g/a"], 2, "--inbox is empty; give the inbox directory"),
            (["relay", "watch", "--inbox", try Self.temporaryDirectory().path + "/inbox", "--record", ""], 2, "--record is empty: give the file to append each request to"),
            (["aasa", "generate", "--routes", "/dev/null", "--team-id", "ABCDE12345", "--bundle-id", ""], 2, #"--bundle-id: the bundle ID is empty ("ABCDE12345." ends at the team ID"#),
            (["relay", "send", "--batch", "3", "plur://g/a"], 2, "--batch is for --stdin"),
            (["relay", "send", "--meta", "a=1", "--meta", "a=2", "plur://g/a"], 2, "--meta the key 'a' is given twice"),
            (["relay", "send", "--meta", " k =v", "plur://g/a"], 2, "--meta the key ' k ' starts or ends with a space"),
            (["relay", "send", "--source", "", "--inbox", try Self.temporaryDirectory().path + "/inbox", "plur://g/a"], 1, "refused: 'plur://g/a': the source is empty"),
            (["callback", "build", "--scheme", "h", "--action", "a", "--id", "r1"], 2, "--id and --expires-in are parts of a signed request: give --key too"),
            (["callback", "build", "--scheme", "h", "--action", ""], 2, "--action is empty"),
            (["callback", "build", "--scheme", "HTTPS", "--action", "a"], 2, "--scheme HTTPS is the web's scheme, not an app's"),
            (["aasa", "generate", "--routes", "/dev/null", "--team-id", "ABCDE12345", "--bundle-id", "com..x"], 2, #"--bundle-id: the bundle ID "com..x" has an empty part"#),
            (["aasa", "generate", "--routes", "/dev/null", "--team-id", "TEAMID1234", "--bundle-id", "a.b"], 2, "--team-id: "),
            (["aasa", "generate", "--routes", "/dev/null", "--team-id", "ABCDE12345", "--bundle-id", "a.b", "--bundle-id", "a.b"], 2, "--bundle-id a.b is given twice"),
            (["plist", "check", "--info-plist", "../../Examples/shop-aasa.json", "--aasa", "/dev/zero"], 2, "cannot read '/dev/zero': larger than 131072 bytes"),
            (["aasa", "generate", "--routes", "/dev/null", "--team-id", "ABCDE12345", "--bundle-id", "com.example.app", "--app-clip", "bad id"], 2,
             #"--app-clip "bad id" is not TEAMID.bundle.id"#),
            // The option's text reaches the terminal escaped (a bidi override here).
            (["aasa", "generate", "--routes", "/dev/null", "--team-id", "ABCDE\u{202E}2345", "--bundle-id", "a.b"], 2,
             #"--team-id "ABCDE\u202e2345" is not a team ID"#),  // quoted as JSON, with JSON's escape
            (["resolve", "--offline", "--header", ": v", "https://x.example/"], 2, "--header ': v' is not 'Name: value' (a field name, a colon, a value on one line)"),
            (["resolve", "--offline", "--header", "A: b\r\nInjected: x", "https://x.example/"], 2, #"--header 'A: b\u{D}\u{A}Injected: x' is not"#),
            (["relay", "watch", "--inbox", "/nonexistent/inbox", "--open-with", "echo", "--record", "/nonexistent/r"], 2, "--open-with and --record cannot be given together"),
            (["route", "--routes", "/dev/null", "x://y"], 2, "the file is empty"),
            (["route", "--routes", "Inputs", "x://y"], 2, "cannot read 'Inputs': it is a directory"),
            (["callback", "parse", "javascript:alert(1)"], 1, "not an x-callback-url: no // after the scheme"),
            (["relay", "send", "--stdin", "--batch", "-1"], 2, "--batch must be 1–10000"),
            (["callback", "build", "--scheme", "h", "--action", "a", "--expires-in", "-5"], 2, "--expires-in must be a number of seconds above 0"),
            (["callback", "build", "--scheme", "h", "--action", "a", "--param", "=v"], 2, "--param '=v' is not name=value (a name before the =)"),
            (["serve", "--host", "999.1.1.1", "--port", "0", "--database", "sqlite:" + (try Self.temporaryDirectory()).appendingPathComponent("db.sqlite").path], 2,
             "the host is not an address or a name this machine resolves"),
        ] {
            let r = try await CLITests.run(arguments)
            #expect(r.status == status, "\(arguments): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(arguments): \(r.stderr)")
            #expect(!r.stderr.contains("Error:") || message.hasPrefix("--"), "no type names: \(r.stderr)")
            #expect(!r.stderr.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\r" }, "escaped: \(r.stderr)")
        }
    }

    /// Blank and whitespace-only stdin lines are skipped, and the help says so.
    @Test(arguments: [["resolve"], ["unwrap"], ["route"], ["aasa", "decide"]])
    func theHelpSaysBlankLinesAreSkipped(_ command: [String]) async throws {
        let r = try await CLITests.run(command + ["--help"])
        #expect(r.status == 0)
        let text = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains("Blank and whitespace-only lines are skipped"), "\(r.stdout)")
    }

    /// An inbox behind a directory the user may not search is said to be so, not "missing": run
    /// as nobody (setpriv) against directories of mode 600 and 700.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to run as another user"))
    func anInboxBehindADirectoryThatMayNotBeSearchedSaysSo() async throws {
        let directory = try Self.temporaryDirectory()
        for (name, mode) in [("hid", 0o600), ("locked", 0o700)] {
            try FileManager.default.createDirectory(atPath: directory.path + "/\(name)/inbox", withIntermediateDirectories: true)
            #expect(chmod(directory.path + "/\(name)", mode_t(mode)) == 0)
        }
        func asNobody(_ arguments: [String]) async throws -> CLITests.Run {
            try await CLITests.run(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", CLITests.binary.path] + arguments, shell: true)
        }
        let status = try await asNobody(["relay", "status", "--inbox", directory.path + "/hid/inbox"])
        #expect(status.status == 2 && status.stderr == "error: cannot use the inbox at '\(directory.path)/hid/inbox': cannot search \(directory.path)/hid: permission denied\n", "\(status.stderr)")
        let send = try await asNobody(["relay", "send", "plur://x", "--inbox", directory.path + "/locked/inbox"])
        #expect(send.status == 2 && send.stderr == "error: cannot use '\(directory.path)/locked/inbox' as the inbox: cannot search \(directory.path)/locked: permission denied\n", "\(send.stderr)")
        // Through a symbolic link into such a directory, the link is named, not its readable parent.
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/link", withDestinationPath: directory.path + "/locked/inbox")
        let linked = try await asNobody(["relay", "status", "--inbox", directory.path + "/link"])
        #expect(linked.status == 2 && linked.stderr == "error: cannot use the inbox at '\(directory.path)/link': cannot search the way into \(directory.path)/link: permission denied\n", "\(linked.stderr)")
    }

    /// A database this user may not write is said to be so, with status 2 (it cannot be used),
    /// whether SQLite refuses to open it or opens it read-only and refuses the write.
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv to run as another user"))
    func aDatabaseThisUserMayNotWriteIsStatus2WithTheReason() async throws {
        let directory = try Self.temporaryDirectory()
        let export = CLITests.root.appendingPathComponent("Examples/fdl-export.csv").path
        func asNobody(_ arguments: [String]) async throws -> CLITests.Run {
            try await CLITests.run(["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", CLITests.binary.path] + arguments, shell: true)
        }
        for (name, mode) in [("closed", 0o755), ("open", 0o777)] {
            let folder = directory.path + "/" + name
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            #expect(try await CLITests.run(["token", "create", "--name", "t", "--database", "sqlite:\(folder)/db.sqlite"]).status == 0)
            #expect(chmod(folder + "/db.sqlite", 0o644) == 0 && chmod(folder, mode_t(mode)) == 0)
            let r = try await asNobody(["import", "fdl", export, "--database", "sqlite:\(folder)/db.sqlite"])
            #expect(r.status == 2 && r.stdout.isEmpty, "\(name): \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains(name == "closed" ? "db.sqlite: permission denied: this user cannot read and write the file"
                                                       : "error: nothing was imported: sqlite: attempt to write a readonly database"), "\(name): \(r.stderr)")
        }
        let made = try await asNobody(["import", "fdl", export, "--database", "sqlite:\(directory.path)/closed/new.sqlite"])
        #expect(made.status == 2 && made.stderr.contains("new.sqlite: permission denied: this user cannot make a file in \(directory.path)/closed"), "\(made.stderr)")
    }

    /// A status check creates nothing: a missing inbox is reported with status 2 (only send and
    /// watch, which write, make it).
    @Test func relayStatusOfAMissingInboxCreatesNothingAndSaysSo() async throws {
        let directory = try Self.temporaryDirectory()
        let missing = directory.appendingPathComponent("no/such/inbox").path
        for arguments in [["relay", "status", "--inbox", missing], ["relay", "status", "--json", "--inbox", missing]] {
            let r = try await CLITests.run(arguments)
            #expect(r.status == 2)
            #expect(r.stdout.isEmpty, "\(r.stdout)")
            #expect(r.stderr == "error: there is no inbox at '\(missing)': \(directory.path)/no does not exist (it is made by the first relay send or watch)\n", "\(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("no").path))
        // Once something was sent, status reads it.
        #expect(try await CLITests.run(["relay", "send", "--inbox", missing, "plur://x"]).status == 0)
        let r = try await CLITests.run(["relay", "status", "--inbox", missing])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("\(missing): 1 waiting"), "\(r.stdout)")
    }

    /// `route` applies the input check of resolve and unwrap (a space, a control character, no
    /// scheme), still one line per input; `aasa validate` fetches no URL with a control character.
    @Test func routeAndAASAValidateRefuseURLsWithSpacesOrControlCharacters() async throws {
        let routes = CLITests.root.appendingPathComponent("Examples/plur-routes.yaml").path
        let inputs = ["plur://group/ravers", "plur://group/a b", "plur://group/\u{1B}[2J", "not a url", "plur://group/x\u{9B}1m"]
        let human = try await CLITests.run(["route", "--routes", routes], stdin: inputs.joined(separator: "\n") + "\n")
        #expect(human.status == 1)
        let lines = human.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == inputs.count, "\(human.stdout)")
        #expect(lines.dropFirst().allSatisfy { $0.contains(" → error: ") }, "\(human.stdout)")
        #expect(lines[1] == "plur://group/a b → error: contains a space")
        #expect(lines[2] == "plur://group/\\u{1B}[2J → error: contains the control character U+001B")
        #expect(!TerminalSafetyCLITests.hasControl(human.stdout))
        let json = try await CLITests.run(["route", "--routes", routes, "--json", "plur://group/a b"])
        #expect(json.status == 1)
        #expect(json.stdout == #"{"url":"plur://group/a b","route":null,"error":{"code":"invalid-url","message":"contains a space"}}"# + "\n", "\(json.stdout)")

        let server = try LocalServer()
        for command in ["aasa", "assetlinks"] {
            let r = try await CLITests.run([command, "validate", "https://127.0.0.1:\(server.port)/\u{1B}[2J"])
            #expect(r.status == 1)
            #expect(r.stdout.contains("error: $: contains the control character U+001B; nothing was fetched [invalid-url]\n"), "\(r.stdout)")
            #expect(r.stdout.contains("https://127.0.0.1:\(server.port)/\\u{1B}[2J: invalid, 1 error"), "\(r.stdout)")
            #expect(!TerminalSafetyCLITests.hasControl(r.stdout.replacingOccurrences(of: "\n", with: "")))
        }
        #expect(try await server.hits() == 0)
    }

    /// `unwrap` answers every input with a line, an invalid one too, so output lines keep
    /// matching input lines.
    @Test func unwrapPrintsALineForEveryInputAnInvalidOneToo() async throws {
        let inputs = (0..<1000).map { $0 % 10 == 3 ? "not a url \($0)" : "https://example.com/\($0)" }
        let r = try await CLITests.run(["unwrap"], stdin: inputs.joined(separator: "\n") + "\n")
        #expect(r.status == 1)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == inputs.count)
        #expect(lines[3] == "error: not a url 3: not an absolute URL (expected a scheme such as https: followed by the rest of the link)", "\(lines[3])")
        #expect(lines[4] == "https://example.com/4")
        #expect(r.stderr.split(separator: "\n").count == 100)
        // One argument: the reason on stderr only, as resolve does.
        let one = try await CLITests.run(["unwrap", "not a url"])
        #expect(one.status == 1 && one.stdout.isEmpty && one.stderr.hasPrefix("error: not a url: "))
    }
}
