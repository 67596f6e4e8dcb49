import SwitchyardCore
import AsyncHTTPClient
import AssociatedDomains
import Foundation
import LinkRules
import NIOCore
import NIOHTTP1
import NIOSSL

/// Fetches a domain's association file the way Apple's CDN does and reports what a person must
/// fix: status, content type, redirects (not allowed), size.
public struct HostingCheck: Sendable {
    /// What one fetch found.
    public struct Report: Sendable {
        /// The URL fetched.
        public var url: String
        /// The HTTP status; nil when no response arrived.
        public var status: Int?
        /// The `Content-Type` header, if the server sent one.
        public var contentType: String?
        /// Every response header, in order (names as the server wrote them).
        public var headers: [(name: String, value: String)] = []
        /// The Location of a redirect, if the server answered with one.
        public var redirect: String?
        /// The body read, up to twice the size limit; empty when none was read.
        public var body: [UInt8]
        /// The body was longer than twice the limit; reading stopped and `body` is not the file.
        public var truncated = false
        /// What a person must fix, errors and warnings in the order found; empty when the hosting is right.
        public var findings: [Finding]
    }

    /// Extra certificate authority to trust (PEM file), e.g. a test CA.
    public var trustedCAFile: String?
    /// Seconds the whole fetch may take — connection, response and body (default 10).
    public var timeout: Double
    /// Whether loopback, private and link-local addresses may be fetched (default false: the
    /// address guard the rule engine's fetcher uses refuses them, and the connection goes to
    /// the address that was checked).
    public var allowPrivateAddresses: Bool

    /// A check trusting the system's authorities, plus the one in `trustedCAFile` if given.
    public init(trustedCAFile: String? = nil, timeout: Double = 10, allowPrivateAddresses: Bool = false) {
        self.trustedCAFile = trustedCAFile
        self.timeout = timeout
        self.allowPrivateAddresses = allowPrivateAddresses
    }

    /// The URL to fetch for `argument`: a bare origin (`https://example.com` or with "/") gets
    /// the well-known path of `file`; scheme, host and port are kept exactly as given.
    public static func location(of argument: String, file: String) -> String {
        guard let parts = URLParts(argument), parts.path == "/", parts.query == nil, parts.fragment == nil,
              let separator = argument.range(of: "://")
        else { return argument }
        let afterScheme = argument[separator.upperBound...]
        let authority = afterScheme.prefix { $0 != "/" }
        return argument[..<separator.upperBound] + authority + "/.well-known/\(file)"
    }

    /// Why a URL with credentials (`shown` without them) is not fetched.
    static func credentialsProblem(_ shown: String) -> String {
        "\(shown) holds a user name or password: association files are fetched without any (as Apple's and Google's fetchers do); give the URL without it"
    }

    /// `url` with any user name and password in its authority replaced by `…`.
    public static func withoutCredentials(_ url: String) -> String {
        guard let separator = url.range(of: "://") else { return url }
        let authority = url[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return url }
        return url[..<separator.upperBound] + "…" + url[at...]
    }

    /// Fetches `url` without following redirects. Never throws: failures are findings.
    public func fetch(_ url: String, maximumBytes: Int = AppSiteAssociation.maximumBytes) async -> Report {
        var report = Report(url: Self.withoutCredentials(url), body: [], findings: [])
        // Devices fetch association files with no credentials; a password given here is never
        // fetched with, nor repeated in a finding.
        guard report.url == url else {
            report.findings.append(Finding(.error, .fetchFailed, at: "$", Self.credentialsProblem(report.url)))
            return report
        }
        // The scheme in any case (HTTPS://host is https).
        guard url.prefix(8).lowercased() == "https://" else {
            report.findings.append(Finding(.error, .notHttps, at: "$", "association files must be served over https; \(url) is not"))
            return report
        }
        // No host (https:///x): nothing to fetch.
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else {
            report.findings.append(Finding(.error, .fetchFailed, at: "$", "could not fetch \(url): the URL has no host"))
            return report
        }
        // NIO traps on a port that does not fit 16 bits: refused here, before any connection.
        let port = components.port ?? 443
        if !(1...65535).contains(port) {
            report.findings.append(Finding(.error, .fetchFailed, at: "$", "could not fetch \(url): the port \(port) is not from 1 to 65535"))
            return report
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        // A connection ended by the deadline is closed without waiting 5 s (NIOSSL's default)
        // for the server's close_notify: a server trickling its answer never sends one.
        tls.shutdownTimeout = .milliseconds(250)
        if let trustedCAFile {
            // Loaded here, once: a file that cannot be read or holds no certificate is said at
            // once, instead of every connection attempt failing until the timeout.
            switch Self.loadCertificates(trustedCAFile) {
            case .success(let certificates): tls.additionalTrustRoots = [.certificates(certificates)]
            case .failure(let problem):
                report.findings.append(Finding(.error, .tlsFailed, at: "$", "cannot use the CA file '\(trustedCAFile)': \(problem.message); nothing was fetched"))
                return report
            }
        }
        // The address guard, as for every other fetch: checked, then pinned for the connection.
        let address: String
        do { address = try await HTTPFetcher.resolve(host: host, port: port, with: AddressGuard(allowPrivate: allowPrivateAddresses), seconds: self.timeout) } catch {
            let hint = error.code == .networkRefused ? " (--allow-private-addresses fetches it anyway, for a test server)" : ""
            report.findings.append(Finding(.error, .fetchFailed, at: "$", "could not fetch \(url): \(error.message)\(hint); nothing was fetched"))
            return report
        }
        let timeout = RequestDeadline.amount(self.timeout)
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout))
        // One request: a refused connection or a failed handshake is the answer, said at once
        // (the default retries until the timeout).
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.dnsOverride = [host: address]
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "User-Agent", value: "Switchyard hosting check")
            let deadline = NIODeadline.now() + timeout
            let sent = request
            // One time limit for the whole fetch, body included (a server trickling the body
            // cannot stretch it; see `RequestDeadline`).
            let (status, headers, body) = try await RequestDeadline.run(seconds: self.timeout) {
                let response = try await client.execute(sent, deadline: deadline)
                // Read up to twice the limit so that an oversized file is reported with its size.
                var buffer = try await response.body.collect(upTo: maximumBytes * 2)
                try Task.checkCancellation()  // a body cut short by the deadline is not the file
                return (Int(response.status.code), response.headers, buffer.readBytes(length: buffer.readableBytes) ?? [])
            }
            report.status = status
            report.contentType = headers.first(name: "content-type")
            report.headers = headers.map { (name: $0.name, value: $0.value) }
            report.body = body
            if (300..<400).contains(report.status ?? 0) {
                report.redirect = headers.first(name: "location")
                report.findings.append(Finding(.error, .redirect, at: "$", "the server answered \(report.status!) redirecting to \(report.redirect ?? "?"); Apple does not follow redirects for association files — serve the file directly at \(url)"))
            } else if report.status != 200 {
                report.findings.append(Finding(.error, .httpStatus, at: "$", "the server answered \(report.status!) instead of 200"))
            }
            if report.status == 200 {
                let type = (report.contentType ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
                if type != "application/json" {
                    report.findings.append(Finding(.warning, .contentType, at: "$", "served as \(report.contentType.map { "\"\($0)\"" } ?? "no content type"); serve it as application/json"))
                }
                if report.body.count > maximumBytes {
                    report.findings.append(Finding(.error, .fileTooLarge, at: "$", "the file is \(report.body.count) bytes; the limit is \(maximumBytes)"))
                }
            }
        } catch is NIOTooManyBytesError {
            report.truncated = true
            report.findings.append(Finding(.error, .fileTooLarge, at: "$", "the file is over \(maximumBytes * 2) bytes; the limit is \(maximumBytes)"))
        } catch let error where error is RequestDeadline.Exceeded || Self.isTimeout(error) {
            // The whole-request timer, or the client's own (no byte for `timeout`): one message.
            report.findings.append(Finding(.error, .fetchFailed, at: "$", "could not fetch \(url): no complete response within \(self.timeout) s"))
        } catch {
            let text = NetworkFailure.describe(error)
            if NetworkFailure.isTLSFailure(error) {
                report.findings.append(Finding(.error, .tlsFailed, at: "$", "could not fetch \(url): \(text)" + (NetworkFailure.isCertificateFailure(error) ? "; the certificate must be valid for this host and signed by a trusted authority (--ca-file adds one)" : "")))
            } else {
                report.findings.append(Finding(.error, .fetchFailed, at: "$", "could not fetch \(url): \(text)"))
            }
        }
        if report.findings.contains(where: { $0.code == .fetchFailed }) {
            // A request cut off by the deadline may still be closing its connection: shut the
            // client down behind the answer rather than making the caller wait for the peer.
            Task { try? await client.shutdown() }
        } else {
            try? await client.shutdown()
        }
        return report
    }

    /// Whether AsyncHTTPClient gave up waiting (its read timeout or its deadline).
    static func isTimeout(_ error: any Error) -> Bool {
        guard let error = error as? HTTPClientError else { return false }
        return error == .readTimeout || error == .deadlineExceeded || error == .connectTimeout
    }

    /// Why a CA file cannot be used: it cannot be read (`io`), or it holds no PEM certificate
    /// (`invalid-value`).
    public struct CAFileProblem: SwitchyardError {
        /// `io` when the file cannot be read, `invalid-value` when it holds no certificate.
        public var code: ErrorCode
        /// The reason, e.g. "no such file" or "it holds no PEM certificate".
        public var message: String
        /// The file.
        public var path: String
        /// The error underneath (the file system's, the PEM reader's), when there was one.
        public var cause: (any Error)?
        /// The file, as a location.
        public var location: SourceLocation? { SourceLocation(file: path) }

        init(_ code: ErrorCode, _ message: String, path: String, cause: (any Error)? = nil) {
            (self.code, self.message, self.path, self.cause) = (code, message, path, cause)
        }
    }

    /// The certificates of the PEM file at `path`, or why there are none.
    public static func loadCertificates(_ path: String) -> Result<[NIOSSLCertificate], CAFileProblem> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .failure(CAFileProblem(.io, "no such file", path: path)) }
        if isDirectory.boolValue { return .failure(CAFileProblem(.io, "it is a directory", path: path)) }
        // Read through a handle: a device or a pipe (/dev/null, <(…)) has no size to read by.
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: 16 << 20) ?? Data()
        } catch {
            return .failure(CAFileProblem(.io, FileManager.default.isReadableFile(atPath: path) ? "it cannot be read" : "permission denied", path: path, cause: error))
        }
        let certificates: [NIOSSLCertificate]
        do { certificates = try NIOSSLCertificate.fromPEMBytes(Array(data)) } catch {
            return .failure(CAFileProblem(.invalidValue, "it holds no PEM certificate", path: path, cause: error))
        }
        guard !certificates.isEmpty else { return .failure(CAFileProblem(.invalidValue, "it holds no PEM certificate", path: path)) }
        return .success(certificates)
    }
}
