import AssociatedDomains
import SwitchyardCore
import Testing

/// Keys iOS does not read are reported where they stand, with the key meant: a misspelt
/// `exclude` makes the component open what it matches, and a section nested in the wrong place
/// is not read at all.
@Suite struct UnknownKeysTests {
    static let file = """
        {"applinks": {
           "details": [{"appIDs": ["ABCDE12345.com.example.app"],
                        "components": [{"/": "/account/*", "exlude": true, "comment": "keep sign-in on the web"},
                                       {"/": "/*", "caseSensitve": false}],
                        "defualts": {"caseSensitive": false}}],
           "webcredentials": {"apps": ["ABCDE12345.com.example.app"]},
           "default": {"percentEncoded": false, "caseSensitiv": true}},
         "applink": {}}
        """

    @Test func everyUnknownKeyIsReportedWithTheKeyMeant() throws {
        let findings = AppSiteAssociation.validate(bytes: Array(Self.file.utf8))
        let unknown = findings.filter { $0.code == .unknownKey }
        func message(_ path: String) -> String? { unknown.first { $0.path == path }?.message }
        #expect(message("applinks.details[0].components[0].exlude")?.contains(#"did you mean "exclude"? As written the component opens what it matches."#) == true, "\(unknown)")
        #expect(message("applinks.details[0].components[1].caseSensitve")?.contains(#"did you mean "caseSensitive"?"#) == true)
        #expect(message("applinks.details[0].defualts")?.contains(#"did you mean "defaults"?"#) == true)
        #expect(message("applinks.webcredentials")?.contains("only at the top level") == true)
        #expect(message("applinks.default")?.contains(#"did you mean "defaults"?"#) == true)
        #expect(message("applink")?.contains(#"did you mean "applinks"?"#) == true)
        #expect(unknown.allSatisfy { $0.severity == .warning })
        // As iOS reads it: the misspelt exclusion opens the account pages in the app.
        let aasa = try #require(AppSiteAssociation.read(bytes: Array(Self.file.utf8)).0)
        #expect(aasa.decide("https://e.com/account/login", for: "ABCDE12345.com.example.app") == .match)
    }
}
