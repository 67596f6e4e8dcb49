import LinkConfiguration
import Testing

/// What `switchyard init` asks for on a terminal, driven here by scripted answers: each answer
/// checked as it is given, asked again with the reason when it cannot be used, and the questions
/// after the end of input not asked.
@Suite struct InitValuesTests {
    /// Answers in order; nil is the end of input. Records every question and every refusal.
    final class Script {
        var answers: [String?]
        var asked: [String] = []
        var refused: [String] = []
        init(_ answers: [String?]) { self.answers = answers }

        func question(_ text: String, _ check: (String) -> String?) -> InitValues.Reply {
            asked.append(text)
            while !answers.isEmpty {
                guard let answer = answers.removeFirst() else { return .end }
                if answer.isEmpty { return .skip }
                guard let problem = check(answer) else { return .answer(answer) }
                refused.append(problem)
            }
            return .end
        }
    }

    static func empty() -> InitValues {
        InitValues(domain: nil, teamID: nil, bundleID: nil, appStoreID: nil, package: nil, fingerprints: [], scheme: nil, name: nil)
    }

    @Test func aBadAnswerIsAskedAgainWithTheReasonAndTheTemplateIsMade() throws {
        let script = Script(["https://links.example.com/x", "links.example.com", "ABC", "ABCDE12345", "com.example.plur", "", "", "plur"])
        var values = Self.empty()
        values.askForMissing(script.question)
        #expect(script.refused.count == 2, "\(script.refused)")
        #expect(script.refused.first?.isEmpty == false)
        #expect(values.domain == "links.example.com" && values.teamID == "ABCDE12345" && values.bundleID == "com.example.plur")
        #expect(values.appStoreID == nil && values.package == nil && values.scheme == "plur")
        let template = try values.template().get()
        let files = try template.files()
        #expect(files.configuration.contains("ABCDE12345") && files.configuration.contains("links.example.com"), "\(files.configuration)")
        #expect(script.asked.count == 6, "\(script.asked)")
    }

    @Test func theEndOfInputStopsTheQuestions() {
        let script = Script(["links.example.com", nil])
        var values = Self.empty()
        values.askForMissing(script.question)
        #expect(script.asked.count == 2, "\(script.asked)")
        #expect(values.domain == "links.example.com" && values.teamID == nil)
        guard case .failure(let missing) = values.template() else { Issue.record("no app, yet a template"); return }
        #expect(missing.message.hasPrefix("no app:"), "\(missing.message)")
    }

    /// Without a domain nothing can be written: when its question is skipped, no other is asked.
    @Test func aSkippedDomainAsksNothingMore() {
        let script = Script(["", "ABCDE12345", "com.example.plur"])
        var values = Self.empty()
        values.askForMissing(script.question)
        #expect(script.asked.count == 1 && values.domain == nil && values.teamID == nil, "\(script.asked)")
    }

    @Test func whatIsMissingNamesTheOption() {
        var values = Self.empty()
        values.domain = "links.example.com"
        values.teamID = "ABCDE12345"
        guard case .failure(let missing) = values.template() else { Issue.record("a template without a bundle ID"); return }
        #expect(missing.message.hasPrefix("--bundle-id is missing"), "\(missing.message)")
        #expect(InitValues.flagged("apple[0].scheme: http is a web scheme") == "--scheme: http is a web scheme")
        #expect(InitValues.flagged("something else").hasPrefix("cannot write a configuration for these values: "))
    }
}
