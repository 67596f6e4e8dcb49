import AssociatedDomains
import Foundation
import SwitchyardCore

/// An association file to validate, given as a local path or an https URL (a bare origin means
/// its `/.well-known/` file): what `aasa validate` and `assetlinks validate` check. A URL is
/// fetched with the hosting check first (status, content type, redirects), and only an https
/// URL is fetched at all; a file is read up to twice the size limit, so an oversized one is
/// reported with its size and a huge one is never loaded.
public enum AssociationSource {
    /// What checking a source gave.
    public enum Outcome: Sendable {
        /// The source was checked: `subject` is what the findings are about (the file, or the
        /// URL fetched); `fetched` describes the answer when one came.
        case checked(subject: String, fetched: String?, findings: [Finding])
        /// The source could not be checked: a file or a certificate authority that cannot be
        /// read (status 2).
        case refused(String, status: Int32)
    }

    /// Checks `source` with `validate`, fetching `wellKnownFile` for an origin.
    public static func check(
        _ source: String, wellKnownFile file: String, maximumBytes: Int, caFile: String?, allowPrivateAddresses: Bool,
        validate: ([UInt8]) -> [Finding]
    ) async -> Outcome {
        guard let scheme = urlScheme(source) else {
            let read: (bytes: [UInt8], complete: Bool)
            do { read = try DurableFile.read(source, upTo: maximumBytes * 2) } catch { return .refused(error.message, status: 2) }
            guard read.complete else {
                return .checked(subject: source, fetched: nil, findings: [Finding(.error, .fileTooLarge, at: "$", "the file is over \(maximumBytes * 2) bytes (reading stopped there); the limit is \(maximumBytes)")])
            }
            return .checked(subject: source, fetched: nil, findings: validate(read.bytes))
        }
        // Devices fetch with no credentials: a URL holding a password is not fetched, and the
        // password is said nowhere (the subject is the URL without it).
        let shown = HostingCheck.withoutCredentials(source)
        guard shown == source else {
            let url = HostingCheck.location(of: shown, file: file)
            return .checked(subject: url, fetched: nil, findings: [Finding(.error, .fetchFailed, at: "$", HostingCheck.credentialsProblem(url))])
        }
        // A URL with a space or a control character, or no host, is not fetched: a finding about
        // the source, so --json still gives its one object.
        if let problem = URLInput.problem(source) ?? (URLComponents(string: source)?.host?.isEmpty == false ? nil : "the URL has no host") {
            return .checked(subject: source, fetched: nil, findings: [Finding(.error, .invalidURL, at: "$", "\(problem); nothing was fetched")])
        }
        let url = HostingCheck.location(of: source, file: file)
        guard scheme == "https" else {
            // Association files count only when served over https: nothing is fetched.
            return .checked(subject: url, fetched: nil, findings: [Finding(.error, .notHttps, at: "$", "only https URLs are fetched (association files must be served over https); \(url) uses the \(scheme): scheme, nothing was fetched")])
        }
        if let caFile {
            do { _ = try DurableFile.read(caFile, upTo: 16 << 20) } catch { return .refused(error.message, status: 2) }
            if case .failure(let problem) = HostingCheck.loadCertificates(caFile) {
                return .refused("cannot use '\(caFile)' as a certificate authority: \(problem.message)", status: 2)
            }
        }
        let report = await HostingCheck(trustedCAFile: caFile, allowPrivateAddresses: allowPrivateAddresses).fetch(url, maximumBytes: maximumBytes)
        var findings = report.findings
        if report.status == 200 && !report.truncated { findings += validate(report.body) }
        // With no answer at all, the findings say why; there is no answer to describe.
        let fetched = report.status.map {
            "fetched \(url): status \($0), content type \(report.contentType ?? "none"), redirect \(report.redirect ?? "none"), \(report.body.count) bytes"
        }
        return .checked(subject: url, fetched: fetched, findings: findings)
    }

    /// The lower-cased scheme when `source` is a URL (`scheme://…`), nil when it is a file path.
    public static func urlScheme(_ source: String) -> String? {
        guard let separator = source.range(of: "://") else { return nil }
        let scheme = source[..<separator.lowerBound]
        return URLInput.isSchemeName(scheme) ? scheme.lowercased() : nil
    }
}
