import ArgumentParser
import AssociatedDomains
import Foundation
import SwitchyardNetwork
import SwitchyardCore

extension Finding {
    var json: JSONValue {
        .object([
            ("severity", .string(severity.rawValue)), ("code", .string(code.name)), ("path", .string(path)),
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
            // Findings quote what a server sent (headers, a redirect, file content): escaped.
            for f in findings { Output.line(Output.escaped(f.description)) }
            Output.line(Output.escaped("\(subject): \(errors == 0 ? "valid" : "invalid"), \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"))
        }
        return errors > 0
    }
}

extension FindingOutput {
    /// Reads the association file at `path` with `read`, or exits with status 2 printing its
    /// findings, each after the file it is about (line and column where the JSON broke).
    static func load<Document>(_ path: String, _ read: ([UInt8]) -> (Document?, [Finding])) throws -> Document {
        let (document, findings) = read(try Output.readFile(path))
        guard let document else {
            for f in findings {
                let place = f.line.map { "line \($0), column \(f.column ?? 0)" } ?? f.path
                Output.error(Output.escaped("\(f.severity.rawValue): \(path): \(place): \(f.message) [\(f.code)]"))
            }
            throw ExitCode(2)
        }
        return document
    }
}

/// `aasa validate` and `assetlinks validate`: a local file, or an https URL (a bare origin means
/// its /.well-known/`file`) fetched with the hosting check first; exit status 1 on errors.
enum SourceValidation {
    static func run(
        _ source: String, wellKnownFile file: String, maximumBytes: Int, caFile: String?, allowPrivateAddresses: Bool = false, json: Bool,
        validate: ([UInt8]) -> [Finding]
    ) async throws {
        var findings: [Finding]
        var subject = source
        if let scheme = SourceValidation.urlScheme(source) {
            // A URL with a space or a control character is not fetched (and not echoed raw).
            if let problem = URLInput.problem(source) {
                Output.error("error: \(Output.escaped(source)): \(problem)")
                throw ExitCode(1)
            }
            // No host (https:///x): nothing to fetch, said as an invalid input.
            guard let host = URLComponents(string: source)?.host, !host.isEmpty else {
                Output.error("error: \(Output.escaped(source)): the URL has no host")
                throw ExitCode(1)
            }
            let url = HostingCheck.location(of: source, file: file)
            subject = url
            if scheme != "https" {
                // Nothing is fetched: association files count only when served over https.
                findings = [Finding(.error, .notHttps, at: "$", "only https URLs are fetched (association files must be served over https); \(url) uses the \(scheme): scheme, nothing was fetched")]
            } else {
                if let caFile {
                    // A CA file that cannot be read is unreadable input (status 2), said at once.
                    _ = try Output.readFile(caFile, upTo: 16 << 20)
                    if case .failure(let problem) = HostingCheck.loadCertificates(caFile) {
                        Output.error("error: cannot use '\(caFile)' as a certificate authority: \(problem.message)")
                        throw ExitCode(2)
                    }
                }
                let report = await HostingCheck(trustedCAFile: caFile, allowPrivateAddresses: allowPrivateAddresses).fetch(url, maximumBytes: maximumBytes)
                // With no answer at all, the finding below says why; there is nothing to describe.
                if !json, report.status != nil {
                    // The content type and the redirect are the server's: escaped.
                    Output.line(Output.escaped("fetched \(url): status \(report.status.map(String.init) ?? "none"), content type \(report.contentType ?? "none"), "
                        + "redirect \(report.redirect ?? "none"), \(report.body.count) bytes"))
                }
                findings = report.findings
                if report.status == 200 && !report.truncated { findings += validate(report.body) }
            }
        } else {
            // Read up to twice the limit, so that an oversized file is reported with its size
            // and a huge one (or /dev/zero) is not loaded at all.
            let (bytes, complete) = try Output.readFile(source, upTo: maximumBytes * 2)
            if complete {
                findings = validate(bytes)
            } else {
                findings = [Finding(.error, .fileTooLarge, at: "$", "the file is over \(maximumBytes * 2) bytes (reading stopped there); the limit is \(maximumBytes)")]
            }
        }
        if FindingOutput.print(findings, json: json, subject: subject) { throw ExitCode(1) }
    }

    /// The lower-cased scheme when `source` is a URL (`scheme://…`), nil when it is a file path.
    static func urlScheme(_ source: String) -> String? {
        guard let separator = source.range(of: "://") else { return nil }
        let scheme = source[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        return scheme.lowercased()
    }
}
