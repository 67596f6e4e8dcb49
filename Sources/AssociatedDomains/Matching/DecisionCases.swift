import SwitchyardCore

/// Answers decision cases given as JSON, one at a time: what `switchyard aasa decide --jsonl`
/// reads, for a CI job or a test harness that asks many questions of a few files.
///
/// A case is an object `{"id": …, "url": "https://…", "appId": "TEAMID.bundle", "aasa": {…}}`
/// (`aasa` may also be the file's text, `domain` may name the host the file is served for). The
/// answer is `{"id": …, "decision": "match" | "exclude" | "no_match"}`, with
/// `"patternTooLarge": ["details[0].components[1]", …]` when the decision passed over entries too
/// large to check; or `{"id": …, "error": {"code", "message"}}` for a case that cannot be
/// answered. Files read are kept (at most 257 at once), so many cases about one file read it once.
///
/// ```swift
/// var cases = DecisionCases()
/// let answer = cases.answer(#"{"id": 1, "url": "https://e.com/buy/1", "appId": "ABCDE12345.com.e", "aasa": {…}}"#)
/// ```
public struct DecisionCases: Sendable {
    private var files: [String: AppSiteAssociation] = [:]

    /// Cases with no file read yet.
    public init() {}

    /// The answer to the case in `line` (JSON text).
    public mutating func answer(_ line: String) -> JSONValue {
        let value: JSONValue
        do { value = try JSONParser.parse(line) } catch {
            return Self.failure(.null, .jsonSyntax, "the line is not JSON: \(error)")
        }
        return answer(value)
    }

    /// The answer to the case `value`.
    public mutating func answer(_ value: JSONValue) -> JSONValue {
        let (id, broken) = Self.check(value, strings: ["url", "appId"], others: ["id", "aasa", "domain"])
        if let broken { return broken }
        let url = value["url"]?.stringValue ?? "", appID = value["appId"]?.stringValue ?? ""
        guard value["aasa"] != nil else { return Self.failure(id, .missingKey, "\"aasa\" is missing: the file, as an object or as its text") }
        if let problem = URLInput.problem(url) { return Self.failure(id, .invalidURL, "\"url\": \(problem)") }
        // Without "domain" (or with null) the URL's own host is the domain.
        let domain: String?
        switch value["domain"] {
        case nil, .null?: domain = nil
        case .string(let d)?: domain = d
        case let other?: return Self.failure(id, .wrongType, "\"domain\" must be a string when given, found \(other.typeName)")
        }
        var document = value["aasa"] ?? .null
        if case .string(let text) = document {
            do { document = try JSONParser.parse(text) } catch { return Self.failure(id, .aasaJSONSyntax, "\"aasa\" text is not JSON: \(error)") }
        }
        let key = JSONWriter.compact(document)
        let aasa: AppSiteAssociation
        if let known = files[key] { aasa = known } else {
            let (parsed, findings) = AppSiteAssociation.read(document)
            guard let read = parsed else { return Self.failure(id, .invalidAASA, findings.first?.message ?? "unreadable") }
            if files.count > 256 { files.removeAll() }
            files[key] = read
            aasa = read
        }
        if let problem = aasa.workProblem(url) { return Self.failure(id, .tooMuchWork, problem) }
        guard aasa.hasPatternTooLarge else {
            return .object([("id", id), ("decision", .string(aasa.decide(url, for: appID, domain: domain).rawValue))])
        }
        // Not silent: the entries passed over only because their pattern was too large to check.
        let e = aasa.explain(url, for: appID, domain: domain)
        let unchecked = e.steps.filter(\.patternTooLarge).map { s in
            JSONValue.string("\(aasa.detailName(s.detail)).\(s.legacyPath ? "paths" : "components")[\(s.entry)]")
        }
        return .object([("id", id), ("decision", .string(e.decision.rawValue))]
            + (unchecked.isEmpty ? [] : [("patternTooLarge", .array(unchecked))]))
    }

    /// The id of case `value` and, when it cannot be answered, the failure: not an object, a key
    /// given twice (a case is not guessed at; the file inside may repeat keys, as devices read
    /// such files too), a key that reads as a misspelling of a key of `strings` or `others` the
    /// case does not give (a "domian" would silently decide for the URL's own host), or a key of
    /// `strings` missing or not a string (told apart). Other keys (an expected answer, a note)
    /// are the caller's own and are not read.
    static func check(_ value: JSONValue, strings: [String], others: [String]) -> (id: JSONValue, failure: JSONValue?) {
        let id = value["id"] ?? .null
        guard case .object(let members) = value else { return (id, failure(id, .wrongType, "each case must be a JSON object")) }
        var keys: Set<String> = []
        if let repeated = members.first(where: { !keys.insert($0.key).inserted }) {
            return (id, failure(repeated.key == "id" ? .null : id, .duplicateKey, "the case gives \"\(repeated.key)\" more than once"))
        }
        let known = strings + others
        for member in members where !known.contains(member.key) {
            guard let meant = DocumentShape.suggestion(for: member.key, among: known), value[meant] == nil else { continue }
            return (id, failure(id, .unknownKey, "the case has the key \(JSONWriter.quote(member.key)), which is not read; did you mean \"\(meant)\"?"))
        }
        for key in strings {
            switch value[key] {
            case .string?: continue
            case nil: return (id, failure(id, .missingKey, "\"\(key)\" is missing: it must be a string"))
            case let other?: return (id, failure(id, .wrongType, "\"\(key)\" must be a string, found \(other.typeName)"))
            }
        }
        return (id, nil)
    }

    /// The answer for a case that cannot be answered: `{"id": …, "error": {"code", "message"}}`.
    public static func failure(_ id: JSONValue, _ code: ErrorCode, _ message: String) -> JSONValue {
        .object([("id", id), ("error", .object([("code", .string(code.name)), ("message", .string(message))]))])
    }
}

extension DecisionCases {
    /// Answers decision cases given as JSON Lines, one answer line per case to `write`, as
    /// `aasa decide --jsonl` and `assetlinks decide --jsonl` do: a line over the length limit
    /// gets a `line-too-long` error, and an answer to a case without an id (a line that is not
    /// JSON, not an object, or has no "id") carries `"line": N`. Returns how many cases could not
    /// be answered.
    package static func answer(_ lines: InputLines, write: (String) -> Void, _ answer: (String) -> JSONValue) -> Int {
        var failed = 0
        for line in lines {
            var result: JSONValue
            if let problem = lines.problem(line), problem.code == .lineTooLong {
                result = failure(.null, problem.code, problem.message)
            } else {
                result = answer(line)
            }
            if case .null? = result["id"], let number = lines.lineNumber, case .object(var members) = result {
                members.insert(("line", .int(number)), at: 1)
                result = .object(members)
            }
            if result["error"] != nil { failed += 1 }
            write(JSONWriter.compact(result))
        }
        return failed
    }
}
