import ArgumentParser
import AssociatedDomains
import SwitchyardCore
import SwitchyardNetwork

enum FindingOutput {
    /// Prints findings (one JSON object, or a line each and a summary); true when there are errors.
    static func print(_ findings: [Finding], json: Bool, subject: String) -> Bool {
        Output.report(json: json, Finding.report(findings, subject: subject), lines: Finding.reportLines(findings, subject: subject))
        return findings.contains { $0.severity == .error }
    }

    /// Reads the association file at `path` with `read`, or exits with status 2 printing its
    /// findings, each after the file it is about (line and column where the JSON broke).
    static func load<Document>(_ path: String, maximumBytes: Int, _ read: ([UInt8]) -> (Document?, [Finding])) throws -> Document {
        let (document, findings) = read(try Output.readFile(path, maximumBytes: maximumBytes))
        guard let document else {
            for f in findings { Output.error(f.described(in: path)) }
            throw ExitCode(2)
        }
        return document
    }
}

/// `aasa validate` and `assetlinks validate`: the findings of `AssociationSource.check`, or its
/// refusal with status 2 (unreadable); exit status 1 on errors.
enum SourceValidation {
    static func run(
        _ source: String, wellKnownFile file: String, maximumBytes: Int, caFile: String?, allowPrivateAddresses: Bool = false, json: Bool,
        validate: ([UInt8]) -> [Finding]
    ) async throws {
        switch await AssociationSource.check(source, wellKnownFile: file, maximumBytes: maximumBytes, caFile: caFile,
                                             allowPrivateAddresses: allowPrivateAddresses, validate: validate) {
        case .refused(let message, let status):
            Output.error("error: \(message)")
            throw ExitCode(status)
        case .checked(let subject, let fetched, let findings):
            // The content type and the redirect are the server's: escaped.
            if !json, let fetched { Output.line(fetched.terminalEscaped) }
            if FindingOutput.print(findings, json: json, subject: subject) { throw ExitCode(1) }
        }
    }
}
