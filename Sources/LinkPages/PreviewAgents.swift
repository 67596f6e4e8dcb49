import Foundation
import SwitchyardCore

/// Link-preview fetchers, crawlers and browser prefetches, from `Resources/preview-agents.json`.
/// Their visits to a landing page get the page with its preview tags, and never count as a click,
/// never use up a use-limited link and never claim anything; they are counted apart as bot visits.
package struct PreviewAgents: Sendable {
    /// A link-preview fetcher or crawler, recognised by a substring of its User-Agent.
    package struct Agent: Sendable, Equatable {
        /// Who it is, for people (`iMessage`, `Slack`, …).
        package var name: String
        /// Found anywhere in the User-Agent, ASCII case ignored.
        package var match: String
        /// A User-Agent this entry classifies (the tests check each one).
        package var example: String
    }

    /// A request header by which a browser marks a prefetch or preview (`Sec-Purpose: prefetch`).
    package struct PrefetchHeader: Sendable, Equatable {
        /// The header's name (`Sec-Purpose`, `Purpose`, …).
        package var header: String
        /// The header's value starts with this (ASCII case ignored): `prefetch`, `prefetch;prerender`.
        package var startsWith: String
    }

    /// The known preview fetchers and crawlers, in file order.
    package let agents: [Agent]
    /// The headers that mark a prefetch or preview request.
    package let prefetchHeaders: [PrefetchHeader]
    /// Each entry's match as lowercased ASCII bytes (this runs on every landing-page request).
    private let patterns: [[UInt8]]
    /// For each byte, the entries whose match starts with it: one pass over a User-Agent
    /// instead of one per entry (this runs on every landing-page request).
    private let byFirstByte: [[Int]]

    /// Answers given lately (see `agent(userAgent:)`).
    private let recent = RecentAgents()

    /// A classifier made of these entries; ``standard`` is the list the service ships.
    package init(agents: [Agent], prefetchHeaders: [PrefetchHeader]) {
        self.agents = agents
        self.prefetchHeaders = prefetchHeaders
        patterns = agents.map { $0.match.utf8.map(Self.lower) }
        var table = [[Int]](repeating: [], count: 256)
        for (index, pattern) in patterns.enumerated() { if let first = pattern.first { table[Int(first)].append(index) } }
        byFirstByte = table
    }

    private static func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }

    /// The list shipped with the service.
    package static let standard: PreviewAgents = {
        guard let path = PageResources.path("preview-agents.json"),
              let text = try? String(contentsOfFile: path, encoding: .utf8), let list = try? PreviewAgents(json: text) else {
            fatalError("Resources/preview-agents.json is missing or malformed: the package is broken")
        }
        return list
    }()

    /// Reads the data file's shape; a malformed entry is an error naming it.
    package init(json text: String) throws {
        let document = try JSONParser.parse(text)
        var agents: [Agent] = []
        for (index, entry) in (document["agents"]?.arrayValue ?? []).enumerated() {
            guard let name = entry["name"]?.stringValue, let match = entry["match"]?.stringValue, !match.isEmpty,
                  let example = entry["example"]?.stringValue else {
                throw PreviewAgentsError(description: "agents[\(index)]: needs name, a non-empty match and an example")
            }
            agents.append(Agent(name: name, match: match, example: example))
        }
        var headers: [PrefetchHeader] = []
        for (index, entry) in (document["prefetchHeaders"]?.arrayValue ?? []).enumerated() {
            guard let header = entry["header"]?.stringValue, let start = entry["startsWith"]?.stringValue else {
                throw PreviewAgentsError(description: "prefetchHeaders[\(index)]: needs header and startsWith")
            }
            headers.append(PrefetchHeader(header: header, startsWith: start.lowercased()))
        }
        self.init(agents: agents, prefetchHeaders: headers)
    }

    struct PreviewAgentsError: SwitchyardError {
        var message: String
        var code: ErrorCode { .invalidValue }
        init(description: String) { message = description }
        var description: String { message }
    }

    /// The entry that names this User-Agent, ``selfDeclared`` for one that says it is a robot
    /// without being listed, ``noUserAgent`` when there is none (or only spaces), or nil for a
    /// person's browser.
    package func agent(userAgent: String?) -> Agent? {
        // Every browser sends a User-Agent: a request without one is a script or a checker, and
        // must not use up a one-time link.
        guard let userAgent, userAgent.utf8.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else { return Self.noUserAgent }
        // A few hundred browsers and fetchers send most requests: their answers are remembered.
        let remembered = userAgent.utf8.count <= RecentAgents.longest
        let answer: Int
        if remembered, let known = recent.answer(userAgent) { answer = known } else {
            answer = classify(userAgent)
            if remembered { recent.remember(userAgent, answer) }
        }
        switch answer {
        case RecentAgents.person: return nil
        case RecentAgents.robot: return Self.selfDeclared
        case RecentAgents.program: return Self.notABrowser
        default: return agents[answer]
        }
    }

    /// The classification itself (see `agent(userAgent:)`): the index of the entry, or one of
    /// `RecentAgents`' codes.
    private func classify(_ userAgent: String) -> Int {
        let text = userAgent.utf8.map(Self.lower)
        // The first entry in file order that occurs anywhere, as a scan entry by entry finds it.
        var best = Int.max
        for i in text.indices {
            for index in byFirstByte[Int(text[i])] where index < best {
                let pattern = patterns[index]
                if i + pattern.count <= text.count, text[i..<(i + pattern.count)].elementsEqual(pattern) { best = index }
            }
            if best == 0 { break }
        }
        if best != Int.max { return best }
        if Self.declaresItself(Array(userAgent.utf8), lowered: text) { return RecentAgents.robot }
        // Every browser a person uses, in-app ones too, starts its User-Agent with `Mozilla/`
        // (Opera's old `Opera/` aside): anything else is a program (Dart, Postman, urllib3, …).
        return userAgent.hasPrefix("Mozilla/") || userAgent.hasPrefix("Opera/") ? RecentAgents.person : RecentAgents.program
    }

    /// A User-Agent that is no browser's: it does not start with `Mozilla/` (or `Opera/`).
    package static let notABrowser = Agent(name: "Not a browser", match: "(no Mozilla/ prefix)", example: "Dart/3.2 (dart:io)")

    /// A request without a User-Agent (or an empty one).
    package static let noUserAgent = Agent(name: "No User-Agent", match: "", example: "")

    /// Any robot the list does not name but whose User-Agent says what it is.
    package static let selfDeclared = Agent(name: "Self-declared robot", match: "+http, crawler, spider, slurp, …bot",
                                           example: "Mozilla/5.0 (compatible; GPTBot/1.0; +https://openai.com/gptbot)")

    private static let robotWords: [[UInt8]] = ["+http", "crawler", "spider", "slurp"].map { Array($0.utf8) }

    /// Whether a User-Agent declares a robot: a contact URL (`+https://…`, the crawlers' custom),
    /// the words crawler, spider or slurp, or a word that ends in `bot` or `Bot` before a `/`,
    /// `;`, `)`, space, `-`, `_` or the end (GPTBot/1.0, AhrefsBot/7.0, bingbot). A word written
    /// in capitals (`CUBOT`, a phone) or `Cubot` is not one.
    static func declaresItself(_ original: [UInt8], lowered: [UInt8]) -> Bool {
        if robotWords.contains(where: { contains(lowered, $0) }) { return true }
        func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }
        var i = 1
        while i + 3 <= original.count {
            defer { i += 1 }
            guard original[i + 1] == UInt8(ascii: "o"), original[i + 2] == UInt8(ascii: "t"),
                  original[i] == UInt8(ascii: "b") || original[i] == UInt8(ascii: "B"), isLetter(original[i - 1]) else { continue }
            if i + 3 < original.count && !"/;) -_".utf8.contains(original[i + 3]) { continue }
            var start = i - 1
            while start > 0 && isLetter(original[start - 1]) { start -= 1 }
            if lowered[start..<(i + 3)].elementsEqual("cubot".utf8) { continue }
            return true
        }
        return false
    }

    private static func contains(_ text: [UInt8], _ pattern: [UInt8]) -> Bool {
        guard let first = pattern.first, pattern.count <= text.count else { return false }
        var i = 0
        let last = text.count - pattern.count
        while i <= last {
            if text[i] == first {
                var j = 1
                while j < pattern.count && text[i + j] == pattern[j] { j += 1 }
                if j == pattern.count { return true }
            }
            i += 1
        }
        return false
    }

    /// Whether a request is a preview, a crawler or a prefetch rather than a person opening the
    /// link: a known User-Agent, or a prefetch header (`Sec-Purpose: prefetch`, `Purpose: prefetch`, …).
    /// `header` gives a request header's value by name.
    package func isPreview(userAgent: String?, header: (String) -> String?) -> Bool {
        if agent(userAgent: userAgent) != nil { return true }
        return prefetchHeaders.contains { h in header(h.header)?.lowercased().hasPrefix(h.startsWith) == true }
    }
}

/// The classifications of recent User-Agents (at most `capacity`, all forgotten when full, so a
/// flood of made-up ones costs a bounded table): the index of the entry, `person` or `robot`.
final class RecentAgents: Sendable {
    static let capacity = 4096
    /// Longer User-Agents are classified every time (the table stays under about 2 MB).
    static let longest = 512
    static let person = -1
    static let robot = -2
    static let program = -3
    private let table = Locked<[String: Int]>([:])

    func answer(_ userAgent: String) -> Int? { table.withLock { $0[userAgent] } }

    func remember(_ userAgent: String, _ answer: Int) {
        table.withLock { t in
            if t.count >= Self.capacity { t.removeAll(keepingCapacity: true) }
            t[userAgent] = answer
        }
    }
}
