import AssociatedDomains
import SwitchyardJSON

extension Finding {
    var json: JSONValue {
        .object([
            ("severity", .string(severity.rawValue)), ("code", .string(code)), ("path", .string(path)),
            ("line", line.map(JSONValue.int) ?? .null), ("column", column.map(JSONValue.int) ?? .null), ("message", .string(message)),
        ])
    }
}

enum FindingOutput {
    /// Prints findings (human or one JSON object per line) and a summary; true when there are errors.
    static func print(_ findings: [Finding], json: Bool, subject: String) -> Bool {
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        if json {
            Output.line(JSONWriter.compact(.object([
                ("file", .string(subject)), ("valid", .bool(errors == 0)), ("errors", .int(errors)), ("warnings", .int(warnings)),
                ("findings", .array(findings.map(\.json))),
            ])))
        } else {
            for f in findings { Output.line(f.description) }
            Output.line("\(subject): \(errors == 0 ? "valid" : "invalid"), \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        }
        return errors > 0
    }
}
