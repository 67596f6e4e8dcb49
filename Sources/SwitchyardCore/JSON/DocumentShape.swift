/// The expected shape of a configuration document (JSON, or YAML read into `JSONValue`):
/// which keys an object may have and what type each value is. Checking a document against its
/// shape finds every unknown key (with a suggestion) and every wrong type, each with its path,
/// before any of it is used.
///
/// ```swift
/// let shape = DocumentShape.object(["publicURL": .string, "port": .int])
/// shape.problems(in: document, at: "service")
/// // ["service.publicUrl: unknown key — did you mean publicURL?", "service.port: expected an integer, got \"80\""]
/// ```
public indirect enum DocumentShape: Sendable {
    case string
    case bool
    case int
    case number
    /// Any value (checked elsewhere).
    case any
    case array(DocumentShape)
    /// An object with exactly these optional keys; any other key is refused.
    case object([String: DocumentShape])
    /// An object whose keys are free (names chosen by the user) and whose values have one shape.
    case map(DocumentShape)
    /// The first of these shapes that fits.
    case oneOf([DocumentShape])

    /// Every problem of `value` at `path` ("" for the document itself), in document order.
    public func problems(in value: JSONValue, at path: String = "") -> [String] {
        var out: [String] = []
        check(value, path, &out)
        return out
    }

    private func check(_ value: JSONValue, _ path: String, _ out: inout [String]) {
        let here = path.isEmpty ? "the document" : path
        switch self {
        case .any: return
        case .string: if case .string = value { return }
        case .bool: if case .bool = value { return }
        case .int: if case .number(let n, _) = value, n.rounded() == n { return }
        case .number: if case .number = value { return }
        case .array(let element):
            if case .array(let items) = value {
                for (i, item) in items.enumerated() { element.check(item, "\(path)[\(i)]", &out) }
                return
            }
        case .object(let keys):
            if case .object(let members) = value {
                for (key, member) in members {
                    let child = path.isEmpty ? key : "\(path).\(key)"
                    guard let shape = keys[key] else {
                        let known = keys.keys.sorted().joined(separator: ", ")
                        let hint = Self.suggestion(for: key, among: Array(keys.keys)).map { " — did you mean \($0)?" } ?? " (known: \(known))"
                        out.append("\(child): unknown key" + hint)
                        continue
                    }
                    shape.check(member, child, &out)
                }
                return
            }
        case .map(let element):
            if case .object(let members) = value {
                for (key, member) in members { element.check(member, path.isEmpty ? key : "\(path).\(key)", &out) }
                return
            }
        case .oneOf(let shapes):
            var first: [String]?
            for shape in shapes {
                var attempt: [String] = []
                shape.check(value, path, &attempt)
                if attempt.isEmpty { return }
                if first == nil && shape.accepts(kindOf: value) { first = attempt }
            }
            if let first {
                out += first
                return
            }
            out.append("\(here): expected \(shapes.map(\.name).joined(separator: " or ")), got \(Self.show(value, at: path))")
            return
        }
        // Text where a mapping or a list belongs is not echoed: it is often a value written one
        // level too high (a webhook's secret as its endpoint), and may be a secret.
        let container: Bool
        switch self {
        case .object, .map, .array: container = true
        default: container = false
        }
        if container, case .string = value {
            out.append("\(here): expected \(name), got a string")
        } else {
            out.append("\(here): expected \(name), got \(Self.show(value, at: path))")
        }
    }

    /// True when `value` is of this shape's kind (an object for an object shape, …), so that a
    /// mismatch deeper inside is the problem to report.
    private func accepts(kindOf value: JSONValue) -> Bool {
        switch (self, value) {
        case (.object, .object), (.map, .object), (.array, .array): return true
        default: return false
        }
    }

    var name: String {
        switch self {
        case .string: return "a string"
        case .bool: return "true or false"
        case .int: return "an integer"
        case .number: return "a number"
        case .any: return "a value"
        case .array(let e): return "a list of \(e.plural)"
        case .object, .map: return "a mapping"
        case .oneOf(let shapes): return shapes.map(\.name).joined(separator: " or ")
        }
    }

    private var plural: String {
        switch self {
        case .string: return "strings"
        case .int: return "integers"
        default: return "values"
        }
    }

    /// A value as the message shows it: scalars as written, containers by kind.
    static func show(_ value: JSONValue, at path: String) -> String {
        // A secret of the wrong type (a number where a string belongs) is still a secret: its
        // kind is said, never its value.
        let key = (path.split(separator: ".").last.map { $0.split(separator: "[").first.map(String.init) ?? "" } ?? "").lowercased()
        // `webcredentials` (the AASA's password-autofill switch) names credentials, holds none.
        if key != "webcredentials", ["secret", "password", "passwd", "token", "apikey", "credential", "privatekey"].contains(where: key.contains) {
            switch value {
            case .null: return "null"
            case .bool: return "true or false"
            case .number: return "a number (not shown: it is a secret)"
            case .string: return "a string (not shown: it is a secret)"
            case .array: return "a list"
            case .object: return "a mapping"
            }
        }
        return show(value)
    }

    static func show(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .number(_, let text): return text
        case .string(let s): return JSONWriter.quote(s.count > 40 ? String(s.prefix(40)) + "…" : s)
        case .array: return "a list"
        case .object: return "a mapping"
        }
    }

    /// The known key closest to `key`: the same letters in another case, or at most two edits
    /// away (one for short keys).
    public static func suggestion(for key: String, among known: [String]) -> String? {
        if let same = known.first(where: { $0.lowercased() == key.lowercased() }) { return same }
        let limit = key.count <= 4 ? 1 : 2
        let scored = known.map { ($0, distance(Array(key.lowercased()), Array($0.lowercased()))) }.filter { $0.1 <= limit }
        return scored.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }?.0
    }

    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
