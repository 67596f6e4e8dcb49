import Foundation
import LinkStorage

extension Visit.Campaign {
    /// The `utm_source`, `utm_medium`, `utm_campaign`, `utm_term` and `utm_content` of a URL's
    /// query (the text after `?`), each percent-decoded (`+` is a space) and cleaned (``VisitText``) and cut to ``maximumCharacters``; the first of a repeated name counts,
    /// and an empty or undecodable value is none.
    package init(query: Substring) {
        self.init()
        guard query.utf8.count >= 5, query.contains("utm_") else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard pair.hasPrefix("utm_"), let equals = pair.firstIndex(of: "=") else { continue }
            let name = pair[pair.index(pair.startIndex, offsetBy: 4)..<equals]
            let raw = pair[pair.index(after: equals)...]
            switch name {
            case "source" where source == nil: source = Self.value(raw)
            case "medium" where medium == nil: medium = Self.value(raw)
            case "campaign" where campaign == nil: campaign = Self.value(raw)
            case "term" where term == nil: term = Self.value(raw)
            case "content" where content == nil: content = Self.value(raw)
            default: continue
            }
        }
    }

    static func value(_ raw: Substring) -> String? {
        // Only what can be kept is decoded: a 100 KB value costs no more than its first part.
        let head = raw.utf8.count > maximumCharacters * 12 ? raw.prefix(maximumCharacters * 12) : raw
        guard let decoded = head.replacingOccurrences(of: "+", with: " ").removingPercentEncoding else { return nil }
        guard let cleaned = VisitText.cleaned(decoded) else { return nil }
        return cleaned.count > maximumCharacters ? String(cleaned.prefix(maximumCharacters)) : cleaned
    }
}
