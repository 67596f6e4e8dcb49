import Testing
import SwitchyardCore

@Suite struct NamedArgumentTests {
    @Test func theValueIsEverythingAfterTheFirstSeparatorAsWritten() {
        let pairs: KeyValuePairs<String, (name: String, value: String)> = [
            "a=b": ("a", "b"), "a=b=c": ("a", "b=c"), "empty=": ("empty", ""),
            "k= spaced value ": ("k", " spaced value "), "emoji=🙂": ("emoji", "🙂"),
        ]
        for (text, expected) in pairs {
            let pair = try? NamedArgument.split(text, at: "=").get()
            #expect(pair?.name == expected.name && pair?.value == expected.value, "\(text)")
        }
    }

    @Test(arguments: [
        ("novalue", NamedArgument.Problem.noSeparator),
        ("=v", .noName),
        (" x-sy-id=1", .spaceAroundName),
        ("x-sy-id =1", .spaceAroundName),
        ("\u{2003}k=1", .spaceAroundName),
    ])
    func aTextThatIsNotAPairSaysWhy(text: String, problem: NamedArgument.Problem) {
        #expect(NamedArgument.split(text, at: "=") == .failure(problem))
    }

    /// Header fields (`Name: value`) drop spaces and tabs on both sides, and nothing else.
    @Test func trimmingDropsSpacesAndTabsAroundBothSides() {
        let header = try? NamedArgument.split(" Accept-Language :\t da, en \t", at: ":", trimming: true).get()
        #expect(header?.name == "Accept-Language")
        #expect(header?.value == "da, en")
        #expect((try? NamedArgument.split("X:   ", at: ":", trimming: true).get())?.value == "")
        #expect(NamedArgument.split("  : v", at: ":", trimming: true) == .failure(.noName))
        #expect(NamedArgument.split("\u{2003}X: v", at: ":", trimming: true) == .failure(.spaceAroundName))
    }
}
