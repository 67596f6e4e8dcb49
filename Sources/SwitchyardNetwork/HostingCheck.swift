import SwitchyardCore
import AsyncHTTPClient
import AssociatedDomains
import Foundation
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
    /// Seconds allowed to connect and for the response to arrive (default 10).
    public var timeout: Double

    /// A check trusting the system's authorities, plus the one in `trustedCAFile` if given.
    public init(trustedCAFile: String? = nil, timeout: Double = 10) {
        self.trustedCAFile = trustedCAFile
        self.timeout = timeout
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

    /// Fetches `url` without following redirects. Never throws: failures are findings.
    public func fetch(_ url: String, maximumBytes: Int = AppSiteAssociation.maximumBytes) async -> Report {
        var report = Report(url: url, body: [], findings: [])
        guard url.hasPrefix("https://") else {
            report.findings.append(Finding(.error, .notHttps, at: "$", "association files must be served over https; \(url) is not"))
            return report
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustedCAFile { tls.additionalTrustRoots = [.file(trustedCAFile)] }
        let configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: .milliseconds(Int64(timeout * 1000)), read: .milliseconds(Int64(timeout * 1000))))
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            var request = HTTPClientRequest(url: url)
            request.headers.add(name: "User-Agent", value: "Switchyard hosting check")
            let response = try await client.execute(request, deadline: .now() + .milliseconds(Int64(timeout * 1000)))
            report.status = Int(response.status.code)
            report.contentType = response.headers.first(name: "content-type")
            // Read up to twice the limit so that an oversized file is reported with its size.
            var buffer = try await response.body.collect(upTo: maximumBytes * 2)
            report.body = buffer.readBytes(length: buffer.readableBytes) ?? []
            if (300..<400).contains(report.status ?? 0) {
                report.redirect = response.headers.first(name: "location")
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
        } catch {
            let text = String(describing: error)
            if error is NIOSSLError || text.contains("handshakeFailed") || text.contains("CERTIFICATE_VERIFY_FAILED") {
                report.findings.append(Finding(.error, .tlsFailed, at: "$", "could not fetch \(url): the TLS handshake failed (\(text)); the certificate must be valid for this host and signed by a trusted authority (--ca-file adds one)"))
            } else {
                report.findings.append(Finding(.error, .fetchFailed, at: "$", "could not fetch \(url): \(text)"))
            }
        }
        try? await client.shutdown()
        return report
    }
}
