import SwitchyardTestSupport
import SwitchyardCore
import Foundation
import Testing

/// Bounded time and memory for what a file or an input can make the binary do: catastrophic
/// regexes, endless lines, huge association files.
@Suite struct HostileInputCLITests {
    static let hostile = "https://ok.example/" + String(repeating: "a", count: 160) + "!"

    /// `callback build` makes only URLs it could verify: a scheme per RFC 3986, a printable key id.
    @Test func callbackBuildRefusesASchemeThatIsNotOneAndAKeyIdWithControlCharacters() async throws {
        let directory = try ErrorPathCLITests.temporaryDirectory()
        let key = directory.appendingPathComponent("k.key").path
        try Data((0..<32).map { UInt8($0) }).write(to: URL(fileURLWithPath: key))
        for scheme in ["a b", "1app", "", "app\u{1B}[31m", "h\u{00E9}"] {
            let r = try await CLITests.run(["callback", "build", "--scheme", scheme, "--action", "x"])
            #expect(r.status == 2 && r.stdout.isEmpty, "\(scheme): \(r.stdout)")
            #expect(r.stderr.contains("is not a URL scheme"), "\(r.stderr)")
            #expect(!r.stderr.contains("\u{1B}"), "escaped")
        }
        #expect(try await CLITests.run(["callback", "build", "--scheme", "x-app+v1.2", "--action", "x"]).status == 0)
        // Schemes that run code or read files are never signed, as a target or as a callback.
        let denied = try await CLITests.run(["callback", "build", "--scheme", "javascript", "--action", "x"])
        #expect(denied.status == 2 && denied.stderr.contains("--scheme javascript is always denied"), "\(denied.stderr)")
        let success = try await CLITests.run(["callback", "build", "--scheme", "h", "--action", "x", "--success", "javascript:alert(1)"])
        #expect(success.status == 2 && success.stderr.contains("--success uses the scheme javascript:, which is always denied"), "\(success.stderr)")
        // The x-callback parameters go through the same checks whichever option carries them.
        let viaParam = try await CLITests.run(["callback", "build", "--scheme", "h", "--action", "x", "--param", "x-success=javascript:alert(1)", "--key", "k=\(key)"])
        #expect(viaParam.status == 2 && viaParam.stdout.isEmpty && viaParam.stderr.contains("--param x-success is an x-callback-url parameter: give it with --success"), "\(viaParam.stderr)")
        let signature = try await CLITests.run(["callback", "build", "--scheme", "h", "--action", "x", "--param", "X-SY-SIG=forged"])
        #expect(signature.status == 2 && signature.stderr.contains("names starting with x-sy- belong to the signature"), "\(signature.stderr)")
        let notURL = try await CLITests.run(["callback", "build", "--scheme", "h", "--action", "x", "--success", "not a url"])
        #expect(notURL.status == 2 && notURL.stderr.contains("--success is not a URL: not an absolute URL"), "\(notURL.stderr)")
        let nonces = try ErrorPathCLITests.temporaryDirectory().appendingPathComponent("n").path
        let verify = try await CLITests.run(["callback", "verify", "h://x-callback-url/x?x-error=data:text/html,x", "--key", "k=\(key)", "--seen", nonces])
        #expect(verify.status == 1 && verify.stderr == "refused: denied-callback: x-error uses the scheme data:, which is always denied\n", "\(verify.stderr)")
        #expect(!FileManager.default.fileExists(atPath: nonces), "nothing is recorded for a refused request")
        let token = try await CLITests.run(["token", "create", "--name", "a\u{1B}[2Jb", "--database", "sqlite:" + ErrorPathCLITests.temporaryDirectory().appendingPathComponent("t.sqlite").path])
        #expect(token.status == 2 && token.stderr.contains("--name contains U+001B"), "\(token.stderr)")
        let bad = try await CLITests.run(["callback", "build", "--scheme", "h", "--action", "x", "--key", "k\u{1B}[31m=\(key)"])
        #expect(bad.status == 2 && bad.stderr.contains("the key id must not contain spaces, control or bidirectional format characters (it holds U+001B)"), "\(bad.stderr)")
    }

    /// `unwrap` and `resolve` never report a wrapper's parameter as its URL when it is no link
    /// (an escape sequence, a URL with a line break in it): the input comes back as it is.
    @Test func aWrapperAroundSomethingThatIsNoLinkIsNotUnwrapped() async throws {
        for target in ["%1B%5D0%3Bpwned%07", "https%3A%2F%2Fx.example%2F%0Afake"] {
            let url = "https://www.youtube.com/redirect?event=video_description&q=\(target)&v=x"
            let unwrap = try await CLITests.run(["unwrap", "--json", url])
            #expect(unwrap.status == 0 && unwrap.stdout.contains(#""output":"\#(url)""#), "\(unwrap.stdout)")
            let resolve = try await CLITests.run(["resolve", "--offline", "--json", url])
            #expect(resolve.stdout.contains(#""unwrapped":null"#), "\(resolve.stdout)")
        }
    }

    @Test func aCatastrophicRegexFailsItsActionWithRegexTimeoutAndTheRestIsAnswered() async throws {
        let r = try await CLITests.run(["resolve", "--offline", "--json", "--manifest", "../../Examples/catastrophic-manifest.json", Self.hostile])
        // Without a budget this evaluation does not end (2^160 ways to split the a's); with the
        // 0.1 s default it is quick — the bound is loose because the suite runs tests in parallel.
        #expect(r.seconds < 60, "took \(r.seconds) s")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""action":0,"title":"Hostile","format":0,"appId":"app","url":null,"error":{"code":"regex-timeout""#), "\(r.stdout)")
        #expect(r.stdout.contains(#""url":"app://ok/aaaa"#))
        // A bigger budget is an option; nonsense is a usage error.
        let bad = try await CLITests.run(["resolve", "--offline", "--regex-time-limit", "0", "https://ok.example/"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("--regex-time-limit"))
    }

    @Test func aScriptThatAllocatesWithoutEndFailsWithScriptMemoryAndTheProcessStaysSmall() async throws {
        // Without the bound this script reached 5.4 GB within its 15 s time limit.
        let r = try await BatchCLITests.run(["resolve", "--offline", "--json", "--manifest", "Inputs/memory-manifest.json"],
                                            input: ["https://hog.example/", "https://other.example/", "https://hog.example/again"], stride: 1, timeLimit: 120)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.count == 3)
        for n in [0, 2] {
            // Stopped by the worker's own heap watch, or (on a loaded machine, when the heap
            // grows between two looks) by the engine ending the worker: both say the limit.
            #expect(r.lines[n]?.contains(#""title":"Hog","format":0,"appId":"app","url":null,"error":{"code":"script-memory","message":"the script was stopped after its "#) == true, "\(r.lines[n] ?? "")")
            #expect(r.lines[n]?.contains("passed the 256 MB memory limit") == true, "\(r.lines[n] ?? "")")
            #expect(r.lines[n]?.contains(#""url":"app://fine""#) == true)
        }
        // The URL between the two runs on the worker the hog left large: it must not be blamed.
        #expect(r.lines[1]?.contains(#""url":"app://fine","error":null"#) == true, "\(r.lines[1] ?? "")")
        #expect(r.peakKiB < 700 * 1024, "peak RSS \(r.peakKiB) KiB")
        let smaller = try await BatchCLITests.run(["resolve", "--offline", "--json", "--script-memory", "64", "--manifest", "Inputs/memory-manifest.json"],
                                                  input: ["https://hog.example/"], stride: 1, timeLimit: 120)
        #expect(smaller.lines[0]?.contains("passed the 64 MB memory limit") == true)
        #expect(smaller.peakKiB < 400 * 1024, "peak RSS \(smaller.peakKiB) KiB")
        #expect(try await CLITests.run(["resolve", "--script-memory", "0", "https://x.example/"]).status == 2)
    }

    @Test func manifestTestSaysARegexRanOutOfTimeRatherThanThatItDoesNotMatch() async throws {
        let r = try await CLITests.run(["manifest", "test", "../../Examples/catastrophic-manifest.json", "--offline"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("the regex ran longer than 0.1 s on this input and was stopped (regex-timeout)"), "\(r.stdout)")
        #expect(!r.stdout.contains("does not match"))
    }

    @Test func anEndlessManifestIsRefusedAtTheCap() async throws {
        for command in [["resolve", "--offline"], ["unwrap"]] {
            let r = try await CLITests.run(command + ["--manifest", "/dev/zero", "https://x.example/"])
            #expect(r.status == 2)
            #expect(r.stderr.contains("error: cannot read '/dev/zero': larger than 67108864 bytes; reading stopped there"), "\(r.stderr)")
        }
    }

    /// Route tables and the service configuration are read with the same cap.
    @Test(arguments: [["route", "--routes", "/dev/zero", "https://x.example/"], ["aasa", "generate", "--routes", "/dev/zero", "--team-id", "ABCDE12345", "--bundle-id", "com.example.app"],
                      ["serve", "--config", "/dev/zero", "--port", "0"]])
    func anEndlessRouteTableOrConfigurationIsRefusedAtTheCap(_ arguments: [String]) async throws {
        let r = try await CLITests.run(arguments)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("cannot read '/dev/zero': larger than 67108864 bytes; reading stopped there"), "\(r.stderr)")
    }

    @Test func lintWarnsAboutCatastrophicShapesWithTheirPath() async throws {
        let r = try await CLITests.run(["manifest", "lint", "../../Examples/catastrophic-manifest.json"])
        #expect(r.status == 0, "warnings only: \(r.stdout)")
        #expect(r.stdout.contains("warning: actions[0].regex: the repeated group (a+)+ contains a+"), "\(r.stdout)")
        #expect(r.stdout.contains("[regex-catastrophic]"))
        #expect(!r.stdout.contains("actions[1]"))
    }

    @Test func anOverlongLineIsSkippedWithoutBeingKeptAndTheNextIsAnswered() async throws {
        // 50 MB without a newline, then a good line: flat memory, a warning with the line number.
        let long = String(repeating: "0", count: 50 << 20)
        let r = try await BatchCLITests.run(["resolve", "--offline", "--json", "--manifest", "../../Examples/catastrophic-manifest.json"],
                                            input: ["https://ok.example/first", long, "https://ok.example/third"], timeLimit: 120)
        #expect(r.status == 1, "an over-long line makes the status 1: \(r.stderr)")
        #expect(r.count == 3)
        #expect(r.lines[1]?.contains("52428800 bytes, over the 65536-byte limit; not read") == true, "\(r.lines)")
        #expect(r.lines[2]?.contains("app://ok/third") == true)
        #expect(r.peakKiB < 150 * 1024, "peak RSS \(r.peakKiB) KiB")
        let small = try await CLITests.run(["unwrap", "--max-line-bytes", "20"], stdin: "https://a.example/1\nhttps://b.example/looooooong\n")
        #expect(small.stdout == "https://a.example/1\nerror: stdin line 2: 28 bytes, over the 20-byte limit; not read\n", "\(small.stdout)")
        #expect(try await CLITests.run(["route", "--max-line-bytes", "0", "x"]).status == 2)
    }

    @Test(arguments: ["aasa", "assetlinks"])
    func validateStopsReadingAHugeFileAndSaysItIsTooLarge(_ command: String) async throws {
        let big = TestTemporary.root.appendingPathComponent("huge-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: big) }
        // 50 MB of valid-looking JSON: only the size is reported, nothing past twice the limit is read.
        var text = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.app"], "components": ["#
        text += String(repeating: #"{"/": "/some/path/*"}, "#, count: (50 << 20) / 22) + #"{"/": "/"}]}]}}"#
        try Data(text.utf8).write(to: big)
        let limit = command == "aasa" ? 131072 : 1048576
        for source in [big.path, "/dev/zero"] {
            let r = try await CLITests.run([command, "validate", source])
            #expect(r.status == 1)
            #expect(r.stdout.contains("error: $: the file is over \(limit * 2) bytes (reading stopped there); the limit is \(limit) [file-too-large]"), "\(r.stdout)")
            #expect(!r.stdout.contains("json-syntax"))
            #expect(r.stdout.contains("invalid, 1 error"))
        }
    }

    /// A pattern too large to check (here 12,001 characters, no variable) matches nothing, and
    /// every command says so: `validate` finds it (it said "valid, 0 errors"), `explain` names it
    /// with its size instead of printing it whole as "does not match", `decide` lists it.
    @Test func aPatternTooLargeToCheckIsNamedByValidateExplainAndDecide() async throws {
        let directory = try ErrorPathCLITests.temporaryDirectory()
        let big = "/" + String(repeating: "a*", count: 6_000)
        let json = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.x"], "components": [{"/": "\#(big)"}, {"/": "/ok/*"}]}, {"appID": "ABCDE12345.com.x", "paths": ["\#(big)"]}]}}"#
        let file = directory.appendingPathComponent("apple-app-site-association").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        let validate = try await CLITests.run(["aasa", "validate", file])
        #expect(validate.status == 1, "\(validate.stdout)")
        #expect(validate.stdout.contains("applinks.details[0].components[0]./: the pattern is longer than 10000 characters (12001 bytes); it is not checked here and matches nothing [pattern-too-large]"), "\(validate.stdout)")
        let explain = try await CLITests.run(["aasa", "explain", file, "https://e.com/aaaa", "--app-id", "ABCDE12345.com.x"])
        #expect(explain.status == 0)
        #expect(explain.stdout.hasPrefix(#"  details[0].components[0] {"/": "/a*a*"#), "\(explain.stdout.prefix(300))")
        #expect(explain.stdout.contains(#"… (12001 bytes)}: no — its "/" pattern expands to more than 10000 characters and wildcards, so it is not compiled and matches nothing [pattern-too-large]"#), "\(explain.stdout.prefix(600))")
        #expect(explain.stdout.contains(#"  details[0].components[1] {"/": "/ok/*"}: no — "/" does not match"#))
        #expect(explain.stdout.utf8.count < 2_000, "the pattern is not printed whole")
        let json2 = try await CLITests.run(["aasa", "explain", file, "https://e.com/ok/1", "--app-id", "ABCDE12345.com.x", "--json"])
        #expect(json2.stdout.contains(#""steps":[{"detail":0,"component":0,"failed":"/","patternTooLarge":true},{"detail":0,"component":1,"failed":null,"patternTooLarge":false}]"#), "\(json2.stdout)")
        let cases = [#"{"id": 1, "aasa": \#(json), "appId": "ABCDE12345.com.x", "url": "https://e.com/ok/1"}"#,
                     #"{"id": 2, "aasa": {"applinks": {"details": [{"appIDs": ["ABCDE12345.com.x"], "components": [{"/": "/ok/*"}]}]}}, "appId": "ABCDE12345.com.x", "url": "https://e.com/ok/1"}"#,
                     #"{"id": 3, "aasa": \#(json), "appId": "ABCDE12345.com.x", "url": "https://e.com/no"}"#]
        let decide = try await CLITests.run(["aasa", "decide", "--jsonl"], stdin: cases.joined(separator: "\n") + "\n")
        #expect(decide.stdout == #"""
            {"id":1,"decision":"match","patternTooLarge":["details[0].components[0]"]}
            {"id":2,"decision":"match"}
            {"id":3,"decision":"no_match","patternTooLarge":["details[0].components[0]","details[1].paths[0]"]}

            """#, "\(decide.stdout)")
    }
}
