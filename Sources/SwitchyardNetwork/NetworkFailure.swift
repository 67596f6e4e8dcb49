import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A network failure in a user's words — "connection refused", "the TLS handshake failed: …" —
/// instead of the driver's types and the source paths BoringSSL's errors carry. Errors are told
/// apart by their type (and an errno where there is one); only BoringSSL's reason, which its
/// error carries as text, is read from a description.
package enum NetworkFailure {
    /// The failure in a user's words.
    package static func describe(_ error: any Error) -> String {
        if let reason = tlsFailure(error) { return "the TLS handshake failed" + reason }
        switch errnoCode(error) {
        case ECONNREFUSED: return "connection refused"
        case ECONNRESET: return "the connection was reset"
        case EHOSTUNREACH, ENETUNREACH: return "the host cannot be reached"
        default: break
        }
        if let connection = error as? NIOConnectionError, connection.connectionErrors.isEmpty, connection.dnsAError != nil || connection.dnsAAAAError != nil {
            return "the host name \(connection.host) cannot be resolved"
        }
        if case SocketAddressError.unknown(let host, _)? = error as? SocketAddressError { return "the host name \(host) cannot be resolved" }
        if let client = error as? HTTPClientError, client == .remoteConnectionClosed { return "the server closed the connection" }
        if let channel = error as? ChannelError, channel == .ioOnClosedChannel || channel == .eof { return "the server closed the connection" }
        // Nothing else may carry a build path either.
        return String(describing: error).replacingOccurrences(of: #" at /\S+"#, with: "", options: .regularExpression)
    }

    static var isTLSFailure: (any Error) -> Bool {
        { error in tlsFailure(error) != nil }
    }

    /// True for a TLS failure over the server's certificate (not trusted, or not for this host).
    static func isCertificateFailure(_ error: any Error) -> Bool {
        if let extra = error as? NIOSSLExtraError { return extra == .failedToValidateHostname }
        return tlsReasons(error).contains("CERTIFICATE_VERIFY_FAILED")
    }

    /// BoringSSL's reason names for a TLS error (`CERTIFICATE_VERIFY_FAILED`), in stack order.
    static func tlsReasons(_ error: any Error) -> [String] {
        let stack: [BoringSSLInternalError]
        switch error {
        case let ssl as NIOSSLError:
            guard case .handshakeFailed(let boring) = ssl else { return [] }
            stack = boring.stack
        case let boring as BoringSSLError:
            stack = boring.stack
        default:
            return []
        }
        // BoringSSL's reason name is the last field of its error text
        // (`error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at /…`): the
        // one place its entries are read as text, as BoringSSL gives no other form of them.
        return stack.compactMap { entry -> String? in
            var text = String(describing: entry)
            if let at = text.range(of: " at /") { text = String(text[..<at.lowerBound]) }
            guard let last = text.split(separator: ":").last, last.range(of: #"^[A-Z][A-Z0-9_]+$"#, options: .regularExpression) != nil else { return nil }
            return String(last)
        }
    }

    /// The errno of a failed system call, or of the first failed attempt of a connection.
    static func errnoCode(_ error: any Error) -> Int32? {
        if let io = error as? IOError { return io.errnoCode }
        if let connection = error as? NIOConnectionError {
            return connection.connectionErrors.lazy.compactMap { errnoCode($0.error) }.first
        }
        return nil
    }

    /// For a TLS failure, what follows "the TLS handshake failed" (a colon and the reason in
    /// words, or a reason code in parentheses, or nothing); nil for any other error.
    static func tlsFailure(_ error: any Error) -> String? {
        switch error {
        case let ssl as NIOSSLError:
            guard case .handshakeFailed = ssl else { return "" }
        case is BoringSSLError:
            break
        case let extra as NIOSSLExtraError:
            if extra == .failedToValidateHostname { return ": the certificate is not valid for this host" }
            return ": " + String(describing: error).replacingOccurrences(of: #" at /\S+"#, with: "", options: .regularExpression)
        default:
            return nil
        }
        let reasons = tlsReasons(error)
        if reasons.contains("CERTIFICATE_VERIFY_FAILED") { return ": the certificate is not trusted or not valid for this host" }
        if reasons.contains(where: { ["WRONG_VERSION_NUMBER", "PACKET_LENGTH_TOO_LONG", "HTTP_REQUEST"].contains($0) }) {
            return ": the server did not answer in TLS (a plain-HTTP port?)"
        }
        return reasons.first.map { " (\($0.lowercased().replacingOccurrences(of: "_", with: " ")))" } ?? ""
    }
}

extension BoringSSLError {
    /// BoringSSL's error stack, when the error has one.
    fileprivate var stack: [BoringSSLInternalError] {
        switch self {
        case .sslError(let stack), .unknownError(let stack): return stack
        default: return []
        }
    }
}

/// Why a server could not listen on an address, told by the error's type and errno; nil for
/// any other failure.
package enum ListenFailure: Equatable, Sendable {
    /// Another process listens on the port.
    case addressInUse
    /// The port needs privileges this process lacks.
    case permissionDenied
    /// No network interface of this machine has the address.
    case addressNotAvailable
    /// The host is neither an address nor a name this machine resolves.
    case unknownHost

    package init?(_ error: any Error) {
        if error is SocketAddressError || error is SocketAddressError.UnknownHost {
            self = .unknownHost
            return
        }
        switch NetworkFailure.errnoCode(error) {
        case EADDRINUSE: self = .addressInUse
        case EACCES: self = .permissionDenied
        case EADDRNOTAVAIL: self = .addressNotAvailable
        default: return nil
        }
    }

    /// "cannot listen on ADDRESS: the reason", with `hint` (what to do) when the port is taken.
    package func message(address: String, hint: String) -> String {
        "cannot listen on \(address): \(reason)" + (self == .addressInUse ? "; " + hint : "")
    }

    /// The reason in words, with what to do where that is always the same.
    package var reason: String {
        switch self {
        case .addressInUse: return "the port is already in use"
        case .permissionDenied: return "permission denied (ports below 1024 need privileges; choose a higher port)"
        case .addressNotAvailable: return "no network interface of this machine has that address"
        case .unknownHost: return "the host is not an address or a name this machine resolves (try 127.0.0.1 or 0.0.0.0)"
        }
    }
}
