import AssociatedDomains
import SwitchyardCore
import Testing

/// The keys of a decision case: a misspelling of a key the case lacks fails the case, naming the
/// key meant; other keys are the caller's and do not change the answer.
@Suite struct DecisionCasesTests {
    static let aasa = #"{"applinks": {"details": [{"appIDs": ["ABCDE12345.com.example.shop"], "components": [{"/": "/g/*"}]}]}}"#

    @Test func aMisspeltKeyFailsTheCaseAndOtherKeysAreNotRead() {
        var cases = DecisionCases()
        func answer(_ extra: String) -> String {
            JSONWriter.compact(cases.answer(#"{"id": 2, "aasa": \#(Self.aasa), \#(extra) "appId": "ABCDE12345.com.example.shop", "url": "https://shop.example/g/1"}"#))
        }
        #expect(answer(#""domain": "other.example","#) == #"{"id":2,"decision":"no_match"}"#)
        #expect(answer("") == #"{"id":2,"decision":"match"}"#)
        #expect(answer(#""expected": "match", "note": "from swcutil","#) == #"{"id":2,"decision":"match"}"#)
        #expect(answer(#""domian": "other.example","#) == #"{"id":2,"error":{"code":"unknown-key","message":"the case has the key \"domian\", which is not read; did you mean \"domain\"?"}}"#)
        // With the key meant given too, the near miss is the caller's own.
        #expect(answer(#""domain": "shop.example", "domian": "x","#) == #"{"id":2,"decision":"match"}"#)
    }

    @Test func androidCasesAreReadTheSameWay() {
        var cases = AndroidDecisionCases()
        let statements = #"[{"relation": ["delegate_permission/common.handle_all_urls"], "target": {"namespace": "android_app", "package_name": "com.example.shop", "sha256_cert_fingerprints": ["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"]}}]"#
        let misspelt = cases.answer(#"{"id": 1, "assetlink": \#(statements), "package": "com.example.shop", "url": "https://shop.example/g/1"}"#)
        #expect(misspelt["error"]?["code"]?.stringValue == "unknown-key")
        #expect(misspelt["error"]?["message"]?.stringValue?.hasSuffix(#"did you mean "assetlinks"?"#) == true)
        let fine = cases.answer(#"{"id": 1, "assetlinks": \#(statements), "package": "com.example.shop", "url": "https://shop.example/g/1", "expected": "manifest"}"#)
        #expect(fine["decision"]?.stringValue == "manifest")
    }

    /// A URL to a Unicode host is on the domain written as its punycode, and the other way round,
    /// as browsers send the host.
    @Test func aUnicodeHostIsOnItsPunycodeDomain() throws {
        let aasa = try AppSiteAssociation(json: Self.aasa)
        #expect(aasa.decide("https://bücher.example/g/1", for: "ABCDE12345.com.example.shop", domain: "xn--bcher-kva.example") == .match)
        #expect(aasa.decide("https://xn--bcher-kva.example/g/1", for: "ABCDE12345.com.example.shop", domain: "bücher.example") == .match)
        #expect(aasa.decide("https://buecher.example/g/1", for: "ABCDE12345.com.example.shop", domain: "bücher.example") == .noMatch)
    }
}
