import SwitchyardCore
import AssociatedDomains
import Testing

@Suite struct DecideTests {
    static let app = "ABCDE12345.com.example.app"

    struct Case: Sendable, CustomStringConvertible {
        let name: String
        let components: String
        let url: String
        let decision: AppSiteAssociation.Decision
        var detailExtra: String = ""
        var domainExtra: String = ""
        /// Why iOS decides so, for the cases added with the swcutil disagreements.
        var reason: String = ""
        var description: String { "\(name): \(url)" }
    }

    /// Read leniently, as iOS does: a file with mistakes still decides URLs.
    static func aasa(_ c: Case) throws -> AppSiteAssociation {
        let text = """
            {"applinks": {\(c.domainExtra)"details": [{"appIDs": ["\(app)"], \(c.detailExtra)"components": \(c.components)}]}}
            """
        return try #require(AppSiteAssociation.read(bytes: Array(text.utf8)).0)
    }

    @Test(arguments: [
        // Path: * is zero or more characters (slashes included), ? exactly one, no escapes.
        Case(name: "exact", components: ##"[{"/": "/buy/42"}]"##, url: "https://e.com/buy/42", decision: .match),
        Case(name: "exact other", components: ##"[{"/": "/buy/42"}]"##, url: "https://e.com/buy/43", decision: .noMatch),
        Case(name: "star crosses slashes", components: ##"[{"/": "/buy/*"}]"##, url: "https://e.com/buy/a/b/c", decision: .match),
        Case(name: "star zero chars", components: ##"[{"/": "/buy*"}]"##, url: "https://e.com/buy", decision: .match),
        Case(name: "/buy/* matches /buy", components: ##"[{"/": "/buy/*"}]"##, url: "https://e.com/buy", decision: .match),
        Case(name: "/buy/* does not match /buyer", components: ##"[{"/": "/buy/*"}]"##, url: "https://e.com/buyer", decision: .noMatch),
        Case(name: "question mark one char", components: ##"[{"/": "/p/?"}]"##, url: "https://e.com/p/7", decision: .match),
        Case(name: "question mark not two", components: ##"[{"/": "/p/?"}]"##, url: "https://e.com/p/77", decision: .noMatch),
        Case(name: "question mark one non-ASCII char", components: ##"[{"/": "/p/?", "percentEncoded": false}]"##, url: "https://e.com/p/%C3%A9", decision: .match),
        Case(name: "question mark not zero", components: ##"[{"/": "/p/?"}]"##, url: "https://e.com/p/", decision: .noMatch),
        Case(name: "no escapes: backslash is literal", components: ##"[{"/": "/a\\*"}]"##, url: "https://e.com/a\\xyz", decision: .match),
        Case(name: "leading slash optional", components: ##"[{"/": "buy/*"}]"##, url: "https://e.com/buy/1", decision: .match),
        Case(name: "trailing slash in URL", components: ##"[{"/": "/about"}]"##, url: "https://e.com/about/", decision: .match),
        Case(name: "trailing slash in pattern", components: ##"[{"/": "/about/"}]"##, url: "https://e.com/about", decision: .match),
        Case(name: "root", components: ##"[{"/": "/"}]"##, url: "https://e.com", decision: .match),
        Case(name: "root exact only", components: ##"[{"/": "/"}]"##, url: "https://e.com/x", decision: .noMatch),
        Case(name: "absent path matches anything", components: ##"[{"#": "top"}]"##, url: "https://e.com/any/path#top", decision: .match),
        // Query as a string: the whole query.
        Case(name: "query string whole", components: ##"[{"?": "a=1"}]"##, url: "https://e.com/?a=1", decision: .match),
        Case(name: "query string partial is no match", components: ##"[{"?": "a=1"}]"##, url: "https://e.com/?a=1&b=2", decision: .noMatch),
        Case(name: "query string absent is empty", components: ##"[{"?": ""}]"##, url: "https://e.com/x", decision: .match),
        // Query as a dictionary: every named item, order irrelevant, every occurrence, absent = "".
        Case(name: "dict any order", components: ##"[{"?": {"b": "2", "a": "1"}}]"##, url: "https://e.com/?a=1&x=9&b=2", decision: .match),
        Case(name: "dict value mismatch", components: ##"[{"?": {"a": "1"}}]"##, url: "https://e.com/?a=2", decision: .noMatch),
        Case(name: "dict repeated all must match", components: ##"[{"?": {"a": "1*"}}]"##, url: "https://e.com/?a=12&a=2", decision: .noMatch),
        Case(name: "dict repeated all match", components: ##"[{"?": {"a": "1*"}}]"##, url: "https://e.com/?a=12&a=13", decision: .match),
        Case(name: "dict absent item is empty: * matches", components: ##"[{"?": {"a": "*"}}]"##, url: "https://e.com/", decision: .match),
        Case(name: "dict absent item is empty: ?* does not", components: ##"[{"?": {"a": "?*"}}]"##, url: "https://e.com/", decision: .noMatch),
        Case(name: "dict non-string value voids the dict", components: ##"[{"/": "/q", "?": {"a": "1", "b": 2}}]"##, url: "https://e.com/q?a=zzz", decision: .match),
        // Fragment.
        Case(name: "fragment", components: ##"[{"#": "no_universal_links"}]"##, url: "https://e.com/a#no_universal_links", decision: .match),
        Case(name: "fragment mismatch", components: ##"[{"#": "x"}]"##, url: "https://e.com/a#y", decision: .noMatch),
        // All keys must match; first match decides; exclude.
        Case(name: "all keys", components: ##"[{"/": "/a", "?": {"k": "v"}}]"##, url: "https://e.com/a?k=w", decision: .noMatch),
        Case(name: "exclude first", components: ##"[{"/": "/a/*", "exclude": true}, {"/": "*"}]"##, url: "https://e.com/a/1", decision: .exclude),
        Case(name: "exclude later is shadowed", components: ##"[{"/": "*"}, {"/": "/a/*", "exclude": true}]"##, url: "https://e.com/a/1", decision: .match),
        Case(name: "fragment exclude then catch-all", components: ##"[{"#": "nope", "exclude": true}, {"/": "*"}]"##, url: "https://e.com/x#nope", decision: .exclude),
        // caseSensitive and percentEncoded: defaults true, most specific wins.
        Case(name: "case-sensitive by default", components: ##"[{"/": "/About"}]"##, url: "https://e.com/about", decision: .noMatch),
        Case(name: "component case-insensitive", components: ##"[{"/": "/About", "caseSensitive": false}]"##, url: "https://e.com/ABOUT", decision: .match),
        Case(name: "domain default case-insensitive", components: ##"[{"/": "/About"}]"##, url: "https://e.com/about", decision: .match,
             domainExtra: #""defaults": {"caseSensitive": false}, "#),
        Case(name: "detail overrides domain", components: ##"[{"/": "/About"}]"##, url: "https://e.com/about", decision: .noMatch,
             detailExtra: #""defaults": {"caseSensitive": true}, "#, domainExtra: #""defaults": {"caseSensitive": false}, "#),
        Case(name: "component overrides detail", components: ##"[{"/": "/About", "caseSensitive": false}]"##, url: "https://e.com/about", decision: .match,
             detailExtra: #""defaults": {"caseSensitive": true}, "#),
        Case(name: "percentEncoded true compares raw text", components: ##"[{"/": "/café"}]"##, url: "https://e.com/caf%C3%A9", decision: .noMatch),
        Case(name: "percentEncoded true raw pattern", components: ##"[{"/": "/caf%C3%A9"}]"##, url: "https://e.com/caf%C3%A9", decision: .match),
        Case(name: "percentEncoded false decodes the URL", components: ##"[{"/": "/café", "percentEncoded": false}]"##, url: "https://e.com/caf%C3%A9", decision: .match),
        Case(name: "percentEncoded false does not decode the pattern", components: ##"[{"/": "/caf%C3%A9", "percentEncoded": false}]"##, url: "https://e.com/caf%C3%A9", decision: .noMatch),
        Case(name: "percentEncoded false query", components: ##"[{"?": {"q": "a b"}, "percentEncoded": false}]"##, url: "https://e.com/?q=a%20b", decision: .match),
        // Substitution variables.
        Case(name: "custom variable", components: ##"[{"/": "/$(shop)/item/*"}]"##, url: "https://e.com/toys/item/9", decision: .match,
             detailExtra: #""substitutionVariables": {"shop": ["toys", "books"]}, "#),
        Case(name: "custom variable other value", components: ##"[{"/": "/$(shop)/item/*"}]"##, url: "https://e.com/food/item/9", decision: .noMatch,
             detailExtra: #""substitutionVariables": {"shop": ["toys", "books"]}, "#),
        Case(name: "domain-wide variable", components: ##"[{"/": "/$(shop)/*"}]"##, url: "https://e.com/books/1", decision: .match,
             domainExtra: #""substitutionVariables": {"shop": ["books"]}, "#),
        Case(name: "built-in lang", components: ##"[{"/": "/$(lang)/help"}]"##, url: "https://e.com/de/help", decision: .match),
        Case(name: "built-in lang not a language", components: ##"[{"/": "/$(lang)/help"}]"##, url: "https://e.com/qq/help", decision: .noMatch),
        Case(name: "built-in region", components: ##"[{"/": "/$(region)/*"}]"##, url: "https://e.com/DE/x", decision: .match),
        Case(name: "built-in digit is one character", components: ##"[{"/": "/v$(digit)"}]"##, url: "https://e.com/v7", decision: .match),
        Case(name: "built-in digit not a letter", components: ##"[{"/": "/v$(digit)"}]"##, url: "https://e.com/vx", decision: .noMatch),
        Case(name: "built-in alpha", components: ##"[{"/": "/$(alpha)$(alnum)$(xdigit)"}]"##, url: "https://e.com/q7f", decision: .match),
        // Only https; other hosts.
        Case(name: "http is not a universal link", components: ##"[{"/": "*"}]"##, url: "http://e.com/x", decision: .noMatch),
    ])
    func decidesAsIOSDoes(_ c: Case) throws {
        #expect(try Self.aasa(c).decide(c.url, for: Self.app) == c.decision)
    }

    /// Patterns with many stars against a long path end (they took minutes when every star was
    /// retried at every position): without a variable, and with one (the automaton).
    @Test(arguments: ["/*a*a*a*a*a*c", "/*a*$(v)*a*a*c", "/" + String(repeating: "*a", count: 30) + "*c"])
    func manyStarsOnALongPathEnd(_ pattern: String) throws {
        let json = #"{"applinks": {"substitutionVariables": {"v": ["a", "aa"]}, "details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "\#(pattern)"}]}]}}"#
        let aasa = try AppSiteAssociation(json: json)
        #expect(aasa.decide("https://e.com/" + String(repeating: "a", count: 20_000), for: Self.app) == .noMatch)
        #expect(aasa.decide("https://e.com/" + String(repeating: "a", count: 20_000) + "c", for: Self.app) == .match)
    }

    /// Variables whose values expand past `Glob.maximumSize` (long lists used many times, values
    /// that name the variable again) are not compiled: the pattern matches nothing and the
    /// validator says so, instead of a check that runs for minutes. A realistic list still works.
    @Test func aPatternThatExpandsTooFarIsRefusedNotRun() throws {
        let values = (0..<200).map { #""v\#($0)-\#(String(repeating: "x", count: 40))""# }.joined(separator: ", ")
        let huge = "/" + String(repeating: "$(v)/", count: 20) + "*"
        let nested = "/$(w)"
        let json = #"{"applinks": {"substitutionVariables": {"v": [\#(values)], "w": ["$(w)$(w)$(w)$(w)$(w)$(w)a", "$(w)$(w)b"]}, "details": [{"appIDs": ["\#(Self.app)"], "components": [{"/": "\#(huge)"}, {"/": "\#(nested)"}, {"/": "/$(lang)/$(lang)/$(v)/ok"}]}]}}"#
        let aasa = try AppSiteAssociation(json: json)
        let start = ContinuousClock.now
        let path = "https://e.com/" + String(repeating: "v1-" + String(repeating: "x", count: 40) + "/", count: 20) + String(repeating: "y", count: 5_000)
        #expect(aasa.decide(path, for: Self.app) == .noMatch)
        #expect(aasa.decide("https://e.com/de/fr/v7-\(String(repeating: "x", count: 40))/ok", for: Self.app) == .match)
        #expect(ContinuousClock.now - start < .seconds(5), "\(ContinuousClock.now - start)")
        let findings = AppSiteAssociation.validate(bytes: Array(json.utf8)).filter { $0.code == .patternTooLarge }
        #expect(findings.map(\.path) == ["applinks.details[0].components[0]./", "applinks.details[0].components[1]./"], "\(findings)")
    }

    /// A key twice in one object is a warning at its path; the last is read.
    @Test func validationNamesKeysThatAppearTwice() throws {
        let json = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.a.b"], "components": [{"/": "/x", "exclude": true, "exclude": false}]}]}}"#
        let findings = AppSiteAssociation.validate(bytes: Array(json.utf8)).filter { $0.code == .duplicateKey }
        #expect(findings.map(\.path) == ["applinks.details[0].components[0].exclude"], "\(findings)")
        #expect(try AppSiteAssociation(json: json).decide("https://e.com/x", for: "ABCDE12345.a.b") == .match, "the last (false) is read")
    }

    @Test func legacyPaths() throws {
        let aasa = try AppSiteAssociation(json: """
            {"applinks": {"apps": [], "details": [
              {"appID": "\(Self.app)", "paths": ["NOT /help/*", "/help/me", "/buy/*", "NOT /buy/secret"]},
              {"appIDs": ["ABCDE12345.other"], "paths": ["*"], "components": [{"/": "/only"}]}
            ]}}
            """)
        #expect(aasa.decide("https://e.com/help/me", for: Self.app) == .exclude)  // first match wins
        #expect(aasa.decide("https://e.com/buy/secret", for: Self.app) == .match)
        #expect(aasa.decide("https://e.com/other", for: Self.app) == .noMatch)
        #expect(aasa.decide("https://e.com/BUY/1", for: Self.app) == .noMatch)  // case-sensitive
        // Components take precedence: "paths": ["*"] is ignored.
        #expect(aasa.decide("https://e.com/anything", for: "ABCDE12345.other") == .noMatch)
        #expect(aasa.decide("https://e.com/only", for: "ABCDE12345.other") == .match)
        // An app that no detail lists gets nothing.
        #expect(aasa.decide("https://e.com/buy/1", for: "ZZZZZ99999.nobody") == .noMatch)
    }

    @Test func laterDetailsForTheSameAppAreConsulted() throws {
        let aasa = try AppSiteAssociation(json: """
            {"applinks": {"details": [
              {"appIDs": ["\(Self.app)"], "components": [{"/": "/a"}]},
              {"appIDs": ["\(Self.app)"], "components": [{"/": "/b"}]}
            ]}}
            """)
        #expect(aasa.decide("https://e.com/b", for: Self.app) == .match)
    }

    @Test func domainMustMatchWhenGiven() throws {
        let aasa = try AppSiteAssociation(json: ##"{"applinks": {"details": [{"appIDs": ["\##(Self.app)"], "components": [{"/": "*"}]}]}}"##)
        #expect(aasa.decide("https://E.com/x", for: Self.app, domain: "e.com") == .match)
        #expect(aasa.decide("https://other.com/x", for: Self.app, domain: "e.com") == .noMatch)
    }

    @Test func explainNamesTheDecidingEntryAndTheFailedKeys() throws {
        let aasa = try AppSiteAssociation(json: """
            {"applinks": {"details": [
              {"appIDs": ["ABCDE12345.other"], "components": [{"/": "*"}]},
              {"appIDs": ["\(Self.app)"], "components": [
                {"/": "/shop/*", "?": {"ref": "?*"}},
                {"/": "/shop/*", "#": "top"},
                {"/": "/blog/*"},
                {"/": "/shop/*", "exclude": true}
              ]}
            ]}}
            """)
        let e = aasa.explain("https://e.com/shop/1#bottom", for: Self.app)
        #expect(e.decision == .exclude)
        #expect(e.decidedBy?.detail == 1 && e.decidedBy?.entry == 3)
        #expect(e.steps.map(\.failed) == [.query, .fragment, .path, nil])
        #expect(e.steps.allSatisfy { $0.detail == 1 })
        let none = aasa.explain("https://e.com/shop/1", for: "ZZZZZ99999.nobody")
        #expect(none.decision == .noMatch && none.note?.hasPrefix("no detail lists the app ID ZZZZZ99999.nobody (the file lists ") == true, "\(none.note ?? "")")
    }
}

// MARK: - Areas where swcutil disagreed with us

extension DecideTests {
    /// (b) With `caseSensitive: false` everything a pattern stands for is compared without
    /// case: its literal text, the values of its variables, and the built-in classes.
    @Test(arguments: [
        Case(name: "upper accepts a lower-case letter", components: ##"[{"/": "/v/$(upper)", "caseSensitive": false}]"##, url: "https://e.com/v/a", decision: .match,
             reason: "without case, a equals A, which $(upper) accepts"),
        Case(name: "upper accepts an upper-case letter", components: ##"[{"/": "/v/$(upper)", "caseSensitive": false}]"##, url: "https://e.com/v/A", decision: .match,
             reason: "the URL is folded to lower case, so the class must be folded too"),
        Case(name: "upper case-sensitive rejects lower", components: ##"[{"/": "/v/$(upper)"}]"##, url: "https://e.com/v/a", decision: .noMatch,
             reason: "case-sensitive by default: $(upper) is A-Z only"),
        Case(name: "upper is still one letter", components: ##"[{"/": "/v/$(upper)", "caseSensitive": false}]"##, url: "https://e.com/v/7", decision: .noMatch,
             reason: "folding case does not make a digit a letter"),
        Case(name: "lower accepts upper-case", components: ##"[{"/": "/v/$(lower)", "caseSensitive": false}]"##, url: "https://e.com/v/Q", decision: .match,
             reason: "Q equals q without case"),
        Case(name: "xdigit without case", components: ##"[{"/": "/c/$(xdigit)$(xdigit)", "caseSensitive": false}]"##, url: "https://e.com/c/Fa", decision: .match,
             reason: "A-F and a-f both stay hex digits"),
        Case(name: "alpha and alnum without case", components: ##"[{"/": "/$(alpha)$(alnum)", "caseSensitive": false}]"##, url: "https://e.com/Zq", decision: .match,
             reason: "letters of either case"),
        Case(name: "digit without case rejects a letter", components: ##"[{"/": "/v$(digit)", "caseSensitive": false}]"##, url: "https://e.com/vx", decision: .noMatch,
             reason: "digits have no case"),
        Case(name: "domain default folds classes", components: ##"[{"/": "/v/$(upper)"}]"##, url: "https://e.com/v/k", decision: .match,
             domainExtra: #""defaults": {"caseSensitive": false}, "#, reason: "the domain-wide default reaches the classes too"),
        Case(name: "detail default folds classes", components: ##"[{"/": "/v/$(upper)"}]"##, url: "https://e.com/v/k", decision: .match,
             detailExtra: #""defaults": {"caseSensitive": false}, "#, reason: "the detail default reaches the classes too"),
        Case(name: "component true overrides a false default", components: ##"[{"/": "/v/$(upper)", "caseSensitive": true}]"##, url: "https://e.com/v/k", decision: .noMatch,
             detailExtra: #""defaults": {"caseSensitive": false}, "#, reason: "the component's own setting wins"),
        Case(name: "variable name with capitals, without case", components: ##"[{"/": "/$(shopName)/*", "caseSensitive": false}]"##, url: "https://e.com/TOYS/1", decision: .match,
             detailExtra: #""substitutionVariables": {"shopName": ["Toys"]}, "#, reason: "names are not folded; only text is"),
        Case(name: "variable name with capitals, with case", components: ##"[{"/": "/$(shopName)/*"}]"##, url: "https://e.com/Toys/1", decision: .match,
             detailExtra: #""substitutionVariables": {"shopName": ["Toys"]}, "#, reason: "regression: the case-sensitive path"),
        Case(name: "variable value without case", components: ##"[{"/": "/$(shop)/*", "caseSensitive": false}]"##, url: "https://e.com/toys/1", decision: .match,
             detailExtra: #""substitutionVariables": {"shop": ["Toys"]}, "#, reason: "values are compared without case like the rest"),
        Case(name: "variable value with case", components: ##"[{"/": "/$(shop)/*"}]"##, url: "https://e.com/toys/1", decision: .noMatch,
             detailExtra: #""substitutionVariables": {"shop": ["Toys"]}, "#, reason: "case-sensitive by default"),
        Case(name: "domain variable, domain default without case", components: ##"[{"/": "/$(shop)/*"}]"##, url: "https://e.com/BOOKS/x", decision: .match,
             domainExtra: #""defaults": {"caseSensitive": false}, "substitutionVariables": {"shop": ["Books"]}, "#, reason: "domain-wide variable and default"),
        Case(name: "region lower-case without case", components: ##"[{"/": "/$(region)/*", "caseSensitive": false}]"##, url: "https://e.com/de/x", decision: .match,
             reason: "region codes are listed in upper case"),
        Case(name: "region lower-case with case", components: ##"[{"/": "/$(region)/*"}]"##, url: "https://e.com/de/x", decision: .noMatch,
             reason: "with case, de is not a region code"),
        Case(name: "lang upper-case without case", components: ##"[{"/": "/$(lang)/help"}]"##, url: "https://e.com/DE/help", decision: .match,
             domainExtra: #""defaults": {"caseSensitive": false}, "#, reason: "language codes are listed in lower case"),
        Case(name: "lang_region both folded", components: ##"[{"/": "/$(lang)_$(region)/*", "caseSensitive": false}]"##, url: "https://e.com/EN_gb/x", decision: .match,
             reason: "two word lists in one pattern"),
        Case(name: "query item name and variable without case", components: ##"[{"?": {"Ref": "$(src)"}, "caseSensitive": false}]"##, url: "https://e.com/?ref=MAIL", decision: .match,
             detailExtra: #""substitutionVariables": {"src": ["Mail"]}, "#, reason: "query names and values fold too"),
        Case(name: "fragment variable without case", components: ##"[{"#": "$(tab)", "caseSensitive": false}]"##, url: "https://e.com/x#TOP", decision: .match,
             detailExtra: #""substitutionVariables": {"tab": ["Top"]}, "#, reason: "fragment values fold too"),
        Case(name: "decoded non-ASCII value without case", components: ##"[{"/": "/$(place)", "caseSensitive": false, "percentEncoded": false}]"##, url: "https://e.com/CAF%C3%89", decision: .match,
             detailExtra: #""substitutionVariables": {"place": ["Café"]}, "#, reason: "É decoded, then folded like é"),
        Case(name: "wildcard in a value", components: ##"[{"/": "/$(shop)/1"}]"##, url: "https://e.com/toys/1", decision: .match,
             detailExtra: #""substitutionVariables": {"shop": ["to*"]}, "#, reason: "a value is pattern text: * is a wildcard"),
        Case(name: "question mark in a value", components: ##"[{"/": "/$(shop)/1"}]"##, url: "https://e.com/bk/1", decision: .match,
             detailExtra: #""substitutionVariables": {"shop": ["b?"]}, "#, reason: "a value is pattern text: ? is one character"),
        Case(name: "wildcard value without case", components: ##"[{"/": "/$(shop)/1", "caseSensitive": false}]"##, url: "https://e.com/TOYS/1", decision: .match,
             detailExtra: #""substitutionVariables": {"shop": ["To*"]}, "#, reason: "the literal part of a value folds, the wildcard stays"),
        Case(name: "unknown variable is literal text without case", components: ##"[{"/": "/$(Nope)", "caseSensitive": false}]"##, url: "https://e.com/$(NOPE)", decision: .match,
             reason: "unknown $(Nope) is literal text, compared without case like any other"),
        Case(name: "unknown variable is literal text with case", components: ##"[{"/": "/$(Nope)"}]"##, url: "https://e.com/$(NOPE)", decision: .noMatch,
             reason: "and with case, only as written"),
    ])
    func caseInsensitiveVariables(_ c: Case) throws {
        #expect(try Self.aasa(c).decide(c.url, for: Self.app) == c.decision, "\(c.reason)")
    }

    /// (c) Slashes as iOS takes them: a run of slashes is one slash and a trailing slash is
    /// dropped, in the pattern and in the URL's path. Apple's `swcutil` matches the pattern "//abc"
    /// to "/abc", and "/buy/" and "/buy/*" to "/buy//"; the other cases follow the same rule.
    @Test(arguments: [
        Case(name: "//abc matches /abc", components: ##"[{"/": "//abc"}]"##, url: "https://e.com/abc", decision: .match,
             reason: "swcutil: a leading run of slashes in the pattern is one slash"),
        Case(name: "/buy/ matches /buy//", components: ##"[{"/": "/buy/"}]"##, url: "https://e.com/buy//", decision: .match,
             reason: "swcutil: the trailing run of slashes is dropped from both sides"),
        Case(name: "/buy/* matches /buy//", components: ##"[{"/": "/buy/*"}]"##, url: "https://e.com/buy//", decision: .match,
             reason: "swcutil: /buy// is /buy, which /buy/* also matches"),
        Case(name: "/buy/ matches /buy", components: ##"[{"/": "/buy/"}]"##, url: "https://e.com/buy", decision: .match,
             reason: "swcutil: a trailing slash in the pattern is dropped"),
        Case(name: "/a matches //a", components: ##"[{"/": "/a"}]"##, url: "https://e.com//a", decision: .match,
             reason: "the URL's leading run of slashes is one slash too"),
        Case(name: "//a matches //a", components: ##"[{"/": "//a"}]"##, url: "https://e.com//a", decision: .match,
             reason: "both sides are /a"),
        Case(name: "/a/b matches /a//b", components: ##"[{"/": "/a/b"}]"##, url: "https://e.com/a//b", decision: .match,
             reason: "a run inside the path is one slash"),
        Case(name: "/a//b matches /a/b", components: ##"[{"/": "/a//b"}]"##, url: "https://e.com/a/b", decision: .match,
             reason: "and inside the pattern"),
        Case(name: "/a/* matches //a/b", components: ##"[{"/": "/a/*"}]"##, url: "https://e.com//a/b", decision: .match,
             reason: "//a/b is /a/b"),
        Case(name: "/a/* matches /a//b", components: ##"[{"/": "/a/*"}]"##, url: "https://e.com/a//b", decision: .match,
             reason: "* matches any characters, slashes included"),
        Case(name: "/* matches //x//y", components: ##"[{"/": "/*"}]"##, url: "https://e.com//x//y", decision: .match,
             reason: "* matches /x/y"),
        Case(name: "? matches a slash", components: ##"[{"/": "/a?b"}]"##, url: "https://e.com/a/b", decision: .match,
             reason: "? is any one character"),
        Case(name: "/a??b does not match /a//b", components: ##"[{"/": "/a??b"}]"##, url: "https://e.com/a//b", decision: .noMatch,
             reason: "/a//b is /a/b: one character between a and b, not two"),
        Case(name: "/ matches //", components: ##"[{"/": "/"}]"##, url: "https://e.com//", decision: .match,
             reason: "// is the root"),
        Case(name: "/ matches the empty path", components: ##"[{"/": "/"}]"##, url: "https://e.com", decision: .match,
             reason: "swcutil: a URL without a path is the root"),
        Case(name: "//* matches the root", components: ##"[{"/": "//*"}]"##, url: "https://e.com/", decision: .match,
             reason: "//* is /*"),
        Case(name: "/a// matches /a/", components: ##"[{"/": "/a//"}]"##, url: "https://e.com/a/", decision: .match,
             reason: "both are /a"),
        Case(name: "/a//* matches /a", components: ##"[{"/": "/a//*"}]"##, url: "https://e.com/a", decision: .match,
             reason: "/a//* is /a/*, which also matches /a"),
        Case(name: "/a/* still matches /a", components: ##"[{"/": "/a/*"}]"##, url: "https://e.com/a", decision: .match,
             reason: "swcutil: the usual prefix rule"),
        Case(name: "/a/* matches /a/", components: ##"[{"/": "/a/*"}]"##, url: "https://e.com/a/", decision: .match,
             reason: "swcutil"),
        Case(name: "/a/* does not match /ab", components: ##"[{"/": "/a/*"}]"##, url: "https://e.com/ab", decision: .noMatch,
             reason: "swcutil: /buy/* does not match /buyer"),
        Case(name: "/a/*/c does not match /a/c", components: ##"[{"/": "/a/*/c"}]"##, url: "https://e.com/a/c", decision: .noMatch,
             reason: "swcutil: only a trailing /* may match nothing with its slash"),
        Case(name: "/* matches the root", components: ##"[{"/": "/*"}]"##, url: "https://e.com", decision: .match,
             reason: "regression: * matches nothing"),
        Case(name: "encoded %2F is not a slash", components: ##"[{"/": "/a/b"}]"##, url: "https://e.com/a%2Fb", decision: .noMatch,
             reason: "percentEncoded (default true) compares the raw path"),
        Case(name: "raw %2F pattern", components: ##"[{"/": "/a%2Fb"}]"##, url: "https://e.com/a%2Fb", decision: .match,
             reason: "the raw text as written"),
        Case(name: "decoded %2F is a slash", components: ##"[{"/": "/a/b", "percentEncoded": false}]"##, url: "https://e.com/a%2Fb", decision: .match,
             reason: "percentEncoded false compares the decoded path, where %2F is /"),
        Case(name: "decoded %2F%2F is one slash", components: ##"[{"/": "/a/b", "percentEncoded": false}]"##, url: "https://e.com/a%2F%2Fb", decision: .match,
             reason: "decoding gives /a//b, taken as /a/b"),
        Case(name: "raw %2F%2F is not a slash", components: ##"[{"/": "/a/b"}]"##, url: "https://e.com/a%2F%2Fb", decision: .noMatch,
             reason: "with the default, the raw escapes are compared"),
        Case(name: "decoded %2F%2F matches //", components: ##"[{"/": "/a//b", "percentEncoded": false}]"##, url: "https://e.com/a%2F%2Fb", decision: .match,
             reason: "decoded text as it is"),
        Case(name: "decoded leading %2F", components: ##"[{"/": "//a", "percentEncoded": false}]"##, url: "https://e.com/%2Fa", decision: .match,
             reason: "/%2Fa decodes to //a, which is /a as the pattern is"),
        Case(name: "dot segments are not removed", components: ##"[{"/": "/b"}]"##, url: "https://e.com/a/../b", decision: .noMatch,
             reason: "dot segments are kept: /a/../b is compared as written"),
        Case(name: "dot segments compared as written", components: ##"[{"/": "/a/*"}]"##, url: "https://e.com/a/../b", decision: .match,
             reason: "and so it starts with /a/"),
        Case(name: "slashes in the query are kept", components: ##"[{"?": "u=//x"}]"##, url: "https://e.com/?u=//x", decision: .match,
             reason: "the query is compared as written too"),
        Case(name: "slashes in the fragment are kept", components: ##"[{"#": "a//b"}]"##, url: "https://e.com/p#a//b", decision: .match,
             reason: "and the fragment"),
    ])
    func repeatedSlashes(_ c: Case) throws {
        #expect(try Self.aasa(c).decide(c.url, for: Self.app) == c.decision, "\(c.reason)")
    }

    @Test func legacyPathsTakeSlashesAsComponentsDo() throws {
        let aasa = try AppSiteAssociation(json: ##"{"applinks": {"apps": [], "details": [{"appID": "\##(Self.app)", "paths": ["/a/*", "//b"]}]}}"##)
        #expect(aasa.decide("https://e.com/a//x", for: Self.app) == .match)
        #expect(aasa.decide("https://e.com//a/x", for: Self.app) == .match)
        #expect(aasa.decide("https://e.com//b", for: Self.app) == .match)
        #expect(aasa.decide("https://e.com/b", for: Self.app) == .match)
        #expect(aasa.decide("https://e.com/c", for: Self.app) == .noMatch)
    }

    /// (d) `defaults` may carry a component's keys (`/`, `?`, `#`, `exclude`): a component that
    /// lacks one takes the detail's, then the domain's (Apple's `swcutil` decides these the same).
    @Test(arguments: [
        Case(name: "domain path default", components: ##"[{"#": "*"}]"##, url: "https://e.com/bar", decision: .noMatch,
             domainExtra: #""defaults": {"/": "/foo/*"}, "#, reason: "swcutil: the component has no /, so it takes /foo/*"),
        Case(name: "domain path default agreeing", components: ##"[{"#": "*"}]"##, url: "https://e.com/foo/1", decision: .match,
             domainExtra: #""defaults": {"/": "/foo/*"}, "#, reason: "swcutil"),
        Case(name: "detail path default", components: ##"[{"#": "*"}]"##, url: "https://e.com/bar", decision: .noMatch,
             detailExtra: #""defaults": {"/": "/foo/*"}, "#, reason: "swcutil: a detail's defaults too"),
        Case(name: "detail over domain", components: ##"[{"#": "*"}]"##, url: "https://e.com/b/1", decision: .match,
             detailExtra: #""defaults": {"/": "/b/*"}, "#, domainExtra: #""defaults": {"/": "/a/*"}, "#, reason: "the detail's default is nearer"),
        Case(name: "component over defaults", components: ##"[{"/": "/c"}]"##, url: "https://e.com/c", decision: .match,
             domainExtra: #""defaults": {"/": "/a/*"}, "#, reason: "a component's own key wins"),
        Case(name: "exclude default", components: ##"[{"#": "*"}]"##, url: "https://e.com/bar", decision: .exclude,
             domainExtra: #""defaults": {"exclude": true}, "#, reason: "swcutil: blocked match"),
        Case(name: "exclude false over the default", components: ##"[{"#": "*", "exclude": false}]"##, url: "https://e.com/bar", decision: .match,
             domainExtra: #""defaults": {"exclude": true}, "#, reason: "a component's own exclude wins"),
        Case(name: "query default", components: ##"[{"#": "*"}]"##, url: "https://e.com/bar?id=7", decision: .noMatch,
             domainExtra: #""defaults": {"?": {"id": "??"}}, "#, reason: "swcutil: ?? needs two characters"),
        Case(name: "query default met", components: ##"[{"#": "*"}]"##, url: "https://e.com/bar?id=77", decision: .match,
             domainExtra: #""defaults": {"?": {"id": "??"}}, "#, reason: "two characters"),
        Case(name: "fragment default", components: ##"[{"/": "/x"}]"##, url: "https://e.com/x#b", decision: .noMatch,
             detailExtra: ##""defaults": {"#": "a"}, "##, reason: "the component has no #, so it takes a"),
    ])
    func componentKeysInDefaults(_ c: Case) throws {
        #expect(try Self.aasa(c).decide(c.url, for: Self.app) == c.decision, "\(c.reason)")
    }

    /// (a) The iOS 9 form: `details` is a dictionary whose keys are app IDs.
    struct FileCase: Sendable, CustomStringConvertible {
        let name: String
        let json: String
        let url: String
        var appID: String = DecideTests.app
        let decision: AppSiteAssociation.Decision
        let reason: String
        var description: String { "\(name): \(url)" }
    }

    static let legacyFile = ##"""
        {"applinks": {"apps": [], "details": {
          "ABCDE12345.com.example.app": {"paths": ["NOT /help/secret", "/help/*", "/buy/*"]},
          "ZZZZZ99999.com.example.other": {"paths": ["*"]}
        }}}
        """##

    @Test(arguments: [
        FileCase(name: "key is the app ID", json: DecideTests.legacyFile, url: "https://e.com/buy/1", decision: .match, reason: "the key lists the app"),
        FileCase(name: "NOT first", json: DecideTests.legacyFile, url: "https://e.com/help/secret", decision: .exclude, reason: "legacy paths, first match decides"),
        FileCase(name: "prefix", json: DecideTests.legacyFile, url: "https://e.com/help/me", decision: .match, reason: "legacy prefix"),
        FileCase(name: "unlisted path", json: DecideTests.legacyFile, url: "https://e.com/sell/1", decision: .noMatch, reason: "no path matches"),
        FileCase(name: "legacy paths are case-sensitive", json: DecideTests.legacyFile, url: "https://e.com/BUY/1", decision: .noMatch, reason: "as in the array form"),
        FileCase(name: "second key", json: DecideTests.legacyFile, url: "https://e.com/anything", appID: "ZZZZZ99999.com.example.other", decision: .match,
                 reason: "each key is its own detail"),
        FileCase(name: "second key's paths are not the first's", json: DecideTests.legacyFile, url: "https://e.com/anything", decision: .noMatch,
                 reason: "the catch-all belongs to the other app"),
        FileCase(name: "app not a key", json: DecideTests.legacyFile, url: "https://e.com/buy/1", appID: "QQQQQ11111.com.example.none", decision: .noMatch,
                 reason: "no key names it"),
        FileCase(name: "components in a keyed value", json: ##"{"applinks": {"details": {"\##(DecideTests.app)": {"components": [{"/": "/c/*", "?": {"k": "?*"}}]}}}}"##,
                 url: "https://e.com/c/1?k=v", decision: .match, reason: "the value is read as any detail"),
        FileCase(name: "components win over paths in a keyed value", json: ##"{"applinks": {"details": {"\##(DecideTests.app)": {"paths": ["*"], "components": [{"/": "/c"}]}}}}"##,
                 url: "https://e.com/d", decision: .noMatch, reason: "as in the array form"),
        FileCase(name: "defaults in a keyed value", json: ##"{"applinks": {"details": {"\##(DecideTests.app)": {"defaults": {"caseSensitive": false}, "components": [{"/": "/C"}]}}}}"##,
                 url: "https://e.com/c", decision: .match, reason: "the detail's defaults apply"),
        FileCase(name: "repeated key: the last one counts", json: ##"{"applinks": {"details": {"\##(DecideTests.app)": {"paths": ["/old"]}, "\##(DecideTests.app)": {"paths": ["/new"]}}}}"##,
                 url: "https://e.com/new", decision: .match, reason: "a dictionary keeps the last value of a key"),
        FileCase(name: "repeated key: the first one is dropped", json: ##"{"applinks": {"details": {"\##(DecideTests.app)": {"paths": ["/old"]}, "\##(DecideTests.app)": {"paths": ["/new"]}}}}"##,
                 url: "https://e.com/old", decision: .noMatch, reason: "a dictionary keeps the last value of a key"),
        FileCase(name: "appIDs inside a keyed value are not read", json: ##"{"applinks": {"details": {"\##(DecideTests.app)": {"appIDs": ["ZZZZZ99999.x.y"], "paths": ["*"]}}}}"##,
                 url: "https://e.com/a", appID: "ZZZZZ99999.x.y", decision: .noMatch, reason: "the key is the app ID"),
        FileCase(name: "empty dictionary", json: ##"{"applinks": {"apps": [], "details": {}}}"##, url: "https://e.com/a", decision: .noMatch,
                 reason: "no app is associated"),
    ])
    func legacyDetailsDictionary(_ c: FileCase) throws {
        let aasa = try #require(AppSiteAssociation.read(bytes: Array(c.json.utf8)).0)
        #expect(aasa.decide(c.url, for: c.appID) == c.decision, "\(c.reason)")
    }

    @Test func legacyDetailsDictionaryKeepsFileOrderAndExplains() throws {
        let aasa = try AppSiteAssociation(json: Self.legacyFile)
        let links = try #require(aasa.applinks)
        #expect(links.detailsKeyedByAppID)
        #expect(links.details.map(\.appIDs) == [[Self.app], ["ZZZZZ99999.com.example.other"]])
        #expect(links.details.map(\.location) == [#"applinks.details["ABCDE12345.com.example.app"]"#, #"applinks.details["ZZZZZ99999.com.example.other"]"#])
        #expect(links.details.map(\.index) == [0, 1])
        let e = aasa.explain("https://e.com/help/me", for: Self.app)
        #expect(e.decision == .match)
        #expect(e.decidedBy?.detail == 0 && e.decidedBy?.entry == 1)
        #expect(e.steps.map(\.failed) == [.path, nil])
        #expect(e.steps.allSatisfy { $0.legacyPath })
        let other = aasa.explain("https://e.com/x", for: "ZZZZZ99999.com.example.other")
        #expect(other.decidedBy?.detail == 1 && other.decision == .match)
    }

    @Test func legacyDetailsDictionaryIsAWarningNotAnError() throws {
        let good = AppSiteAssociation.validate(bytes: Array(Self.legacyFile.utf8))
        #expect(good.map(\.code.name) == ["legacy-details-dictionary"])
        #expect(good.allSatisfy { $0.severity == .warning })
        #expect(good.first?.path == "applinks.details")

        let text = ##"""
            {"applinks": {"apps": [], "details": {
              "TEAMID.com.example.app": {"paths": ["*"]},
              "ABCDE12345.com.example.twice": {"paths": ["/a"]},
              "ABCDE12345.com.example.twice": {"paths": ["/b"], "appID": "ABCDE12345.x"},
              "ABCDE12345.com.example.list": ["*"],
              "ABCDE12345.com.example.none": {}
            }}}
            """##
        let findings = AppSiteAssociation.validate(bytes: Array(text.utf8)).map { "\($0.severity.rawValue) \($0.code) @ \($0.path)" }
        #expect(findings == [
            #"error wrong-type @ applinks.details["ABCDE12345.com.example.list"]"#,
            #"error placeholder-app-id @ applinks.details["TEAMID.com.example.app"]"#,
            #"error no-patterns @ applinks.details["ABCDE12345.com.example.none"]"#,
            "warning legacy-details-dictionary @ applinks.details",
            #"warning duplicate-app-id @ applinks.details["ABCDE12345.com.example.twice"]"#,
            #"warning ignored-key @ applinks.details["ABCDE12345.com.example.twice"].appID"#,
        ])
    }

    /// A file that associates nothing is valid but says so: empty details, empty components or paths.
    @Test func emptyDetailsComponentsOrPathsAreWarnedAbout() {
        func findings(_ text: String) -> [String] {
            AppSiteAssociation.validate(bytes: Array(text.utf8)).map { "\($0.severity.rawValue) \($0.code) @ \($0.path)" }
        }
        #expect(findings(#"{"applinks": {"details": []}}"#) == ["warning no-patterns @ applinks.details"])
        #expect(findings(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.x.y"], "components": []}]}}"#)
                == ["warning no-patterns @ applinks.details[0].components"])
        #expect(findings(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.x.y"], "paths": []}]}}"#)
                == ["warning no-patterns @ applinks.details[0].paths"])
        #expect(findings(#"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.x.y"], "components": [{"/": "/a"}]}]}}"#).isEmpty)
    }

    /// (d) The domain: nil means the URL's own host; an empty one names no host.
    struct DomainCase: Sendable, CustomStringConvertible {
        let name: String
        let url: String
        let domain: String?
        let decision: AppSiteAssociation.Decision
        var note: String?
        let reason: String
        var description: String { "\(name): \(url) on \(domain.map { "\"\($0)\"" } ?? "nil")" }
    }

    @Test(arguments: [
        DomainCase(name: "no domain: the URL's host", url: "https://e.com/buy/1", domain: nil, decision: .match, reason: "the URL's own host is the domain"),
        DomainCase(name: "no domain: any host", url: "https://shop.other.example/buy/1", domain: nil, decision: .match, reason: "only path, query and fragment decide"),
        DomainCase(name: "no domain: the path still decides", url: "https://e.com/sell/1", domain: nil, decision: .noMatch, reason: "no component matches"),
        DomainCase(name: "same domain", url: "https://e.com/buy/1", domain: "e.com", decision: .match, reason: "host is the domain"),
        DomainCase(name: "domain without case", url: "https://E.com/buy/1", domain: "E.COM", decision: .match, reason: "host names have no case"),
        DomainCase(name: "other host", url: "https://other.com/buy/1", domain: "e.com", decision: .noMatch, note: "the URL's host other.com is not e.com",
                   reason: "the file is for e.com"),
        DomainCase(name: "subdomain is another domain", url: "https://www.e.com/buy/1", domain: "e.com", decision: .noMatch,
                   note: "the URL's host www.e.com is not e.com", reason: "www.e.com needs its own file"),
        DomainCase(name: "empty domain", url: "https://e.com/buy/1", domain: "", decision: .noMatch,
                   note: "the domain is empty: it names no host, so no URL is on it", reason: "an empty domain must not match everything"),
        DomainCase(name: "empty domain, catch-all URL", url: "https://e.com/", domain: "", decision: .noMatch,
                   note: "the domain is empty: it names no host, so no URL is on it", reason: "not even the root"),
        DomainCase(name: "no host, no domain", url: "https:///buy/1", domain: nil, decision: .noMatch,
                   note: "the URL has no host, so it cannot be a universal link", reason: "a universal link has a host"),
        DomainCase(name: "no host, with a domain", url: "https:///buy/1", domain: "e.com", decision: .noMatch,
                   note: "the URL has no host, so it cannot be a universal link", reason: "the domain is not filled in for the URL"),
        DomainCase(name: "no host, empty domain", url: "https:///buy/1", domain: "", decision: .noMatch,
                   note: "the URL has no host, so it cannot be a universal link", reason: "nothing to compare, nothing matches"),
        DomainCase(name: "a bare path", url: "/buy/1", domain: "e.com", decision: .noMatch, note: "not an absolute URL", reason: "iOS only sees absolute URLs"),
        DomainCase(name: "empty URL", url: "", domain: nil, decision: .noMatch, note: "not an absolute URL", reason: "must not trap"),
        DomainCase(name: "http on the domain", url: "http://e.com/buy/1", domain: nil, decision: .noMatch, note: "only https URLs can be universal links",
                   reason: "only https"),
        DomainCase(name: "another scheme without slashes", url: "plur:/buy/1", domain: nil, decision: .noMatch, note: "only https URLs can be universal links",
                   reason: "an absolute URL, of another scheme"),
        DomainCase(name: "mailto", url: "mailto:a@e.com", domain: "e.com", decision: .noMatch, note: "only https URLs can be universal links",
                   reason: "an absolute URL with no authority"),
        DomainCase(name: "https without slashes", url: "https:buy/1", domain: nil, decision: .noMatch,
                   note: "the URL has no host, so it cannot be a universal link", reason: "https with no authority"),
        DomainCase(name: "a colon first", url: "::nope", domain: nil, decision: .noMatch, note: "not an absolute URL", reason: "no scheme before the colon"),
    ])
    func domains(_ c: DomainCase) throws {
        let aasa = try AppSiteAssociation(json: ##"{"applinks": {"details": [{"appIDs": ["\##(Self.app)"], "components": [{"/": "/buy/*"}, {"/": "/"}]}]}}"##)
        #expect(aasa.decide(c.url, for: Self.app, domain: c.domain) == c.decision, "\(c.reason)")
        let e = aasa.explain(c.url, for: Self.app, domain: c.domain)
        #expect(e.decision == c.decision)
        if let note = c.note { #expect(e.note == note) }
        #expect(e.isInvalidURL == (c.note == "not an absolute URL" || c.note == "the URL has no host, so it cannot be a universal link"))
    }
}
