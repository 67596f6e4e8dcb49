import Foundation
import NIOSSL

/// A network failure in a user's words: "connection refused", "the TLS handshake failed: …",
/// instead of the driver's types and the source paths BoringSSL's errors carry.
enum NetworkFailure {
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "the TLS handshake failed: the certificate is not trusted or not valid for this host"
        }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("PACKET_LENGTH_TOO_LONG") || text.contains("HTTP_REQUEST") {
            return "the TLS handshake failed: the server did not answer in TLS (a plain-HTTP port?)"
        }
        if error is NIOSSLError || text.contains("handshakeFailed") || text.contains("BoringSSL") {
            let reason = text.range(of: #"[A-Z][A-Z0-9_]{5,}"#, options: .regularExpression).map { " (\(text[$0].lowercased().replacingOccurrences(of: "_", with: " ")))" }
            return "the TLS handshake failed" + (reason ?? "")
        }
        if text.contains("Connection refused") || text.contains("connection refused") || text.contains("ECONNREFUSED") || text.contains("errno: 111") {
            return "connection refused"
        }
        if text.contains("Connection reset") || text.contains("errno: 104") { return "the connection was reset" }
        if text.contains("remoteConnectionClosed") || text.contains("ioOnClosedChannel") { return "the server closed the connection" }
        // Nothing else may carry a build path either.
        return text.replacingOccurrences(of: #" at /\S+"#, with: "", options: .regularExpression)
    }

    static var isTLSFailure: (any Error) -> Bool {
        { error in describe(error).hasPrefix("the TLS handshake failed") }
    }
}
