@testable import LinkStorage
import SwitchyardCore
import Foundation
import SwitchyardTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `sslmode` and `sslrootcert` with libpq's meanings (issue 41): every value but `disable` was
/// read as `prefer`, so `verify-full` connected to a server without TLS. The test PostgreSQL
/// (`.ci/postgres.sh`) serves TLS with a certificate for `localhost` from an authority of its own
/// (`SWITCHYARD_TEST_POSTGRES_CA`).
@Suite struct PostgresTLSTests {
    /// The test server's URL with `host` and `query` in place of its own.
    static func url(host: String, _ query: String) throws -> String {
        let base = try #require(Backend.postgresURL)
        var c = try #require(URLComponents(string: base))
        c.host = host
        c.query = nil
        return (c.string ?? base) + "?" + query
    }

    static var authority: String? { ProcessInfo.processInfo.environment["SWITCHYARD_TEST_POSTGRES_CA"] }

    @Test func modesAreLibpqsAndAnythingElseIsRefusedNamingTheParameter() throws {
        let base = "postgres://u:pw@db.local/links"
        #expect(try DatabaseLocation(parsing: base) == .postgres(host: "db.local", port: 5432, user: "u", password: "pw", database: "links", tls: PostgresTLS(.prefer)))
        for mode in PostgresTLS.Mode.allCases {
            guard case .postgres(_, _, _, _, _, let tls) = try DatabaseLocation(parsing: base + "?sslmode=" + mode.rawValue) else { Issue.record("not postgres"); continue }
            #expect(tls == PostgresTLS(mode))
        }
        let full = try DatabaseLocation(parsing: base + "?sslmode=verify-full&sslrootcert=/etc/ca.pem")
        #expect(full == .postgres(host: "db.local", port: 5432, user: "u", password: "pw", database: "links", tls: PostgresTLS(.verifyFull, rootCertificate: "/etc/ca.pem")))
        #expect(PostgresTLS(.require, rootCertificate: "/ca.pem").verifiesAuthority && !PostgresTLS(.require).verifiesAuthority)
        for bad in ["Require", "requre", "bogus", "", "VERIFY-FULL"] {
            do { _ = try DatabaseLocation(parsing: base + "?sslmode=" + bad); Issue.record("sslmode=\(bad) was accepted") } catch {
                #expect(error.code == .badURL && error.message.contains("sslmode=") && error.message.contains("verify-full"), "\(error)")
                #expect(!error.message.contains("pw@"), "the password is never shown")
            }
        }
        for (query, says) in [("ssl_mode=verify-full", "the parameter ssl_mode is not supported; did you mean sslmode?"), ("foo=bar", "the parameter foo is not supported"),
                              ("sslmode=allow", "sslmode=allow is not supported"), ("sslmode=require&sslmode=disable", "sslmode is given 2 times"),
                              ("sslmode=prefer&sslrootcert=/ca.pem", "sslrootcert is only read with"), ("sslmode=verify-ca&sslrootcert=", "sslrootcert is empty")] {
            #expect(throws: StoreError.self) { try DatabaseLocation(parsing: base + "?" + query) }
            do { _ = try DatabaseLocation(parsing: base + "?" + query) } catch { #expect(error.message.contains(says), "\(error)") }
        }
    }

    /// Whether the store's own connection is encrypted, as the server sees it.
    static func encrypted(_ store: LinkStore) async throws -> Bool {
        try await store.db.read("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", []).first?.first?.int == 1
    }

    @Test(.enabled(if: Backend.available.contains(.postgres)))
    func verifyModesCheckTheAuthorityAndTheHostName() async throws {
        let ca = try #require(Self.authority, "SWITCHYARD_TEST_POSTGRES_CA is not set: .ci/postgres.sh serves TLS and sets it")
        // verify-full: the authority and the name both right.
        let good = try await LinkStore.open(try DatabaseLocation(parsing: try Self.url(host: "localhost", "sslmode=verify-full&sslrootcert=" + ca)))
        #expect(try await Self.encrypted(good))
        await good.close()
        // The certificate names localhost, not 127.0.0.1: verify-full refuses, verify-ca takes it.
        do {
            let wrongName = try await LinkStore.open(try DatabaseLocation(parsing: try Self.url(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=" + ca)))
            await wrongName.close()
            Issue.record("verify-full took a certificate for another host")
        } catch {
            #expect("\(error)".contains("TLS handshake failed"), "\(error)")
        }
        let byAuthority = try await LinkStore.open(try DatabaseLocation(parsing: try Self.url(host: "127.0.0.1", "sslmode=verify-ca&sslrootcert=" + ca)))
        #expect(try await Self.encrypted(byAuthority))
        await byAuthority.close()
        // An authority the system does not know is refused with verify-full and verify-ca.
        for mode in ["verify-full", "verify-ca"] {
            do {
                let unknown = try await LinkStore.open(try DatabaseLocation(parsing: try Self.url(host: "localhost", "sslmode=" + mode)))
                await unknown.close()
                Issue.record("\(mode) took a certificate of an unknown authority")
            } catch {
                #expect("\(error)".contains("TLS handshake failed"), "\(mode): \(error)")
            }
        }
        // require encrypts and checks nothing; prefer encrypts where the server offers it.
        for mode in ["require", "prefer"] {
            let store = try await LinkStore.open(try DatabaseLocation(parsing: try Self.url(host: "127.0.0.1", "sslmode=" + mode)))
            #expect(try await Self.encrypted(store), "\(mode)")
            await store.close()
        }
        let plain = try await LinkStore.open(try DatabaseLocation(parsing: try Self.url(host: "127.0.0.1", "sslmode=disable")))
        #expect(try await !Self.encrypted(plain))
        await plain.close()
        // A root certificate file that is not one is said when the store opens.
        let notPEM = Backend.temporaryPath("tls") + "/ca.pem"
        try "not a certificate".write(toFile: notPEM, atomically: true, encoding: .utf8)
        await #expect(throws: StoreError.self) { _ = try await LinkStore.open(try DatabaseLocation(parsing: try Self.url(host: "localhost", "sslmode=verify-full&sslrootcert=" + notPEM))) }
    }

    /// A server that answers PostgreSQL's TLS request with "N" (no TLS), as one with `ssl = off`
    /// does: `require` and the verify modes refuse it, saying so, before the first check's 15 s
    /// run out (that wait would end in its own "no connection within" error, never in this one;
    /// how long the refusal takes is no test's business on a loaded machine).
    @Test func requireRefusesAServerWithoutTLS() async throws {
        let server = try NoTLSServer()
        defer { server.stop() }
        for mode in ["require", "verify-ca", "verify-full"] {
            do {
                let store = try await LinkStore.open(try DatabaseLocation(parsing: "postgres://u:pw@127.0.0.1:\(server.port)/db?sslmode=\(mode)"))
                await store.close()
                Issue.record("sslmode=\(mode) connected to a server without TLS")
            } catch {
                #expect(error.code == .unavailable && error.message.contains("does not offer TLS") && !error.message.contains("no connection within"), "\(mode): \(error)")
            }
        }
    }
}

/// A loopback listener that answers every connection's first bytes (PostgreSQL's SSLRequest)
/// with "N", as a server with `ssl = off` does, and then closes its side.
final class NoTLSServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let thread: Thread

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 16) == 0 else { close(fd); throw CancellationError() }
        withUnsafeMutablePointer(to: &address) { _ = $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        thread = Thread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                // Each connection on its own thread, so one client that is slow to close never
                // holds up the next; the "N" is sent and the connection closed.
                Thread {
                    var buffer = [UInt8](repeating: 0, count: 64)
                    _ = read(client, &buffer, 64)
                    _ = send(client, "N", 1, Int32(MSG_NOSIGNAL))
                    shutdown(client, Int32(SHUT_WR))
                    _ = read(client, &buffer, 64)
                    close(client)
                }.start()
            }
        }
        thread.start()
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
