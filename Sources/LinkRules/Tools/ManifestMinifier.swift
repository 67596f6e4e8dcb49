import SwitchyardCore
/// Drops what a client does not need to resolve links — tests, docs, notes, legacy scripts that
/// `script2` replaces — and writes compact JSON. Key order (and so redirect order) is kept.
public enum ManifestMinifier {
    static let droppedKeys: Set<String> = [
        "testInputs", "testResults", "tests", "test", "docs", "note", "notes", "useful", "testsThatCantBeRunCuzHeaders",
    ]

    /// `document` as compact JSON without what clients do not need (tests, docs, notes, `script` where
    /// `script2` exists); redirect rules' regex keys are kept.
    public static func minify(_ document: JSONValue) -> String {
        JSONWriter.compact(strip(document, inRedirects: false))
    }

    static func strip(_ value: JSONValue, inRedirects: Bool) -> JSONValue {
        switch value {
        case .array(let items): return .array(items.map { strip($0, inRedirects: false) })
        case .object(let members):
            let hasScript2 = members.contains { $0.key == "script2" }
            var kept: [(key: String, value: JSONValue)] = []
            for m in members {
                // Inside `redirects` the keys are regexes, never metadata.
                if inRedirects {
                    kept.append((m.key, strip(m.value, inRedirects: false)))
                    continue
                }
                if droppedKeys.contains(m.key) { continue }
                if m.key == "script" && hasScript2 { continue }
                kept.append((m.key, strip(m.value, inRedirects: m.key == "redirects" || m.key == "redirectRules")))
            }
            return .object(kept)
        default: return value
        }
    }
}
