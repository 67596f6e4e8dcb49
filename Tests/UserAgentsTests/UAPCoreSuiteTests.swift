import Foundation
import SwitchyardCore
import SwitchyardDocuments
import SwitchyardTestSupport
import Testing
import UserAgents

/// uap-core's own test suites, as Debian's uap-core package ships them, case for case: every
/// expected family, version part, brand and model, through the literal index and through the
/// list in order.
@Suite struct UAPCoreSuiteTests {
    static let directory = "/usr/share/uap-core"
    static var installed: Bool { FileManager.default.fileExists(atPath: directory + "/regexes.yaml") }
    static var required: Bool { ProcessInfo.processInfo.environment["SWITCHYARD_REQUIRE_TOOLS"] != nil }

    static let parser: UserAgentParser? = try? UserAgentParser(contentsOf: directory + "/regexes.yaml")

    static func cases(_ file: String) throws -> [JSONValue] {
        try #require(try StructuredDocument.read(contentsOf: "\(directory)/tests/\(file)")["test_cases"]?.arrayValue, "\(file) has no test_cases")
    }

    static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let s)?: return s
        case .number(_, let t)?: return t
        default: return nil
        }
    }

    /// Runs `check` on every case of `file`; returns how many there were and lists every mismatch.
    static func run(_ file: String, _ check: (JSONValue, String) -> [String]) throws -> Int {
        let all = try cases(file)
        var failures: [String] = []
        for c in all {
            guard let ua = text(c["user_agent_string"]) else { continue }
            failures += check(c, ua)
        }
        #expect(failures.isEmpty, "\(failures.count) of \(all.count) cases of \(file) differ; first: \(failures.prefix(15).joined(separator: "\n"))")
        return all.count
    }

    @Test(.enabled(if: installed || required, "uap-core is not installed (bash .ci/run --setup installs it)"))
    func theUserAgentSuitePasses() throws {
        let parser = try #require(Self.parser)
        let n = try Self.run("test_ua.yaml") { c, ua in
            let got = parser.browser(ua)
            let want = [Self.text(c["family"]), Self.text(c["major"]), Self.text(c["minor"]), Self.text(c["patch"])]
            let have = [got.family, got.major, got.minor, got.patch]
            return have == want ? [] : ["\(ua.debugDescription): \(have) ≠ \(want)"]
        }
        #expect(n > 1000)
    }

    @Test(.enabled(if: installed || required, "uap-core is not installed (bash .ci/run --setup installs it)"))
    func theOSSuitePasses() throws {
        let parser = try #require(Self.parser)
        let n = try Self.run("test_os.yaml") { c, ua in
            let got = parser.system(ua)
            let want = [Self.text(c["family"]), Self.text(c["major"]), Self.text(c["minor"]), Self.text(c["patch"]), Self.text(c["patch_minor"])]
            let have = [got.family, got.major, got.minor, got.patch, got.patchMinor]
            return have == want ? [] : ["\(ua.debugDescription): \(have) ≠ \(want)"]
        }
        #expect(n > 400)
    }

    @Test(.enabled(if: installed || required, "uap-core is not installed (bash .ci/run --setup installs it)"))
    func theDeviceSuitePasses() throws {
        let parser = try #require(Self.parser)
        let n = try Self.run("test_device.yaml") { c, ua in
            let got = parser.device(ua)
            let want = [Self.text(c["family"]), Self.text(c["brand"]), Self.text(c["model"])]
            let have = [got.family, got.brand, got.model]
            return have == want ? [] : ["\(ua.debugDescription): \(have) ≠ \(want)"]
        }
        #expect(n > 10000)
    }

    /// The index answers as the list tried in order does, on every User-Agent of the suites.
    @Test(.enabled(if: installed || required, "uap-core is not installed (bash .ci/run --setup installs it)"))
    func theIndexAgreesWithTheListInOrder() throws {
        let parser = try #require(Self.parser)
        var agents: [String] = []
        for file in ["test_ua.yaml", "test_os.yaml"] { agents += try Self.cases(file).compactMap { Self.text($0["user_agent_string"]) } }
        agents += try Self.cases("test_device.yaml").prefix(3000).compactMap { Self.text($0["user_agent_string"]) }
        var differing: [String] = []
        for ua in agents where parser.parse(ua) != parser.parse(ua, linear: true) { differing.append(ua) }
        #expect(differing.isEmpty, "\(differing.count) differ, first: \(differing.prefix(5))")
    }
}

/// The specification's rules on small rule sets written here.
@Suite struct UserAgentRulesTests {
    static func parser(_ yaml: String) throws -> UserAgentParser {
        try UserAgentParser(try StructuredDocument.parse(yaml: yaml))
    }

    @Test func replacementsGroupsAndTheOtherDefaults() throws {
        let parser = try Self.parser("""
            user_agent_parsers:
              - regex: '(Namoroka|Shiretoko|Minefield)/(\\d+)\\.(\\d+)\\.(\\d+(?:pre)?)'
                family_replacement: 'Firefox ($1)'
              - regex: '(Bot)/(\\d+)'
                v1_replacement: '9'
            os_parsers:
              - regex: 'Win(95|98|3.1|NT|ME|2000)'
                os_replacement: 'Windows $1'
            device_parsers:
              - regex: '; *(PEDI)_(PLUS)_(W) Build'
                device_replacement: 'Odys $1 $2 $3'
                brand_replacement: 'Odys'
                model_replacement: '$1 $2 $3'
              - regex: 'phone ?(x)?'
                regex_flag: 'i'
                device_replacement: 'Phone $1'
            """)
        let fx = parser.browser("Mozilla/5.0 (Windows; Windows NT 5.1; rv:2.0b3pre) Gecko/20100727 Minefield/4.0.1pre")
        #expect(fx == .init(family: "Firefox (Minefield)", major: "4", minor: "0", patch: "1pre"))
        #expect(parser.browser("a Bot/3 z") == .init(family: "Bot", major: "9"))
        #expect(parser.browser("nothing") == .init(family: "Other"))
        #expect(parser.system("Mozilla/5.0 (Windows; U; Win95; en-US; rv:1.1) Gecko/20020826") == .init(family: "Windows 95"))
        #expect(parser.device("Android 4.2.2; de-de; PEDI_PLUS_W Build/JDQ39") == .init(family: "Odys PEDI PLUS W", brand: "Odys", model: "PEDI PLUS W"))
        // Case-insensitive by regex_flag; a group that took no part is empty, and the result trimmed.
        #expect(parser.device("a PHONE here") == .init(family: "Phone"))
        #expect(parser.device("none") == .init(family: "Other"))
    }

    @Test func rulesThatCannotBeUsedAreRefusedWithTheirPlace() throws {
        for (yaml, words) in [
            ("os_parsers: []\ndevice_parsers: []", "user_agent_parsers is missing"),
            ("user_agent_parsers: [{regex: '('}]\nos_parsers: []\ndevice_parsers: []", "user_agent_parsers[0]"),
            ("user_agent_parsers: [{family_replacement: x}]\nos_parsers: []\ndevice_parsers: []", "an entry has no regex"),
            ("user_agent_parsers: [{regex: a, regex_flag: x}]\nos_parsers: []\ndevice_parsers: []", "regex_flag"),
        ] {
            let error = #expect(throws: UserAgentRulesError.self) { try Self.parser(yaml) }
            #expect("\(error.map { "\($0)" } ?? "")".contains(words), "\(String(describing: error))")
        }
    }

    /// The example of the module's DocC overview.
    @Test(.enabled(if: UAPCoreSuiteTests.installed || UAPCoreSuiteTests.required, "uap-core is not installed"))
    func theOverviewExampleHolds() throws {
        let parser = try UserAgentParser(contentsOf: "/usr/share/uap-core/regexes.yaml")
        let parsed = parser.parse("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36")
        #expect(parsed.userAgent.family == "Chrome Mobile" && parsed.os.major == "14" && parsed.device.model == "Pixel 8")
    }
}
