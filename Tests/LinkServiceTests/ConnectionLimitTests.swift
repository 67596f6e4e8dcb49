import Foundation
import Hummingbird
import HummingbirdTesting
@testable import LinkService
import SwitchyardTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Connections beyond the limit are closed at once and the service answers the rest; a request
/// that does not arrive whole in time (a client sending a byte now and then) ends its connection.
@Suite struct ConnectionLimitTests {
    /// A plain TCP connection to 127.0.0.1:`port`.
    final class RawConnection: @unchecked Sendable {
        let fd: Int32

        init(port: Int) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard result == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
        }

        func send(_ text: String) { _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) } }

        /// What arrives within `seconds` (or until `until` has arrived), and whether the server
        /// closed the connection.
        func read(for seconds: Double, until: String? = nil) -> (text: String, closed: Bool) {
            var data: [UInt8] = []
            let end = Date().addingTimeInterval(seconds)
            while Date() < end {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, Int32(max(1, end.timeIntervalSinceNow * 1000))) > 0 else { continue }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { return (String(decoding: data, as: UTF8.self), true) }
                data += buffer[..<n]
                if let until, String(decoding: data, as: UTF8.self).contains(until) { break }
            }
            return (String(decoding: data, as: UTF8.self), false)
        }

        deinit { close(fd) }
    }

    @Test func connectionsBeyondTheLimitAreClosedAndTheRestAnswered() async throws {
        let h = try await Harness.make()
        let app = h.service.application(port: 0, connectionLimits: ConnectionLimits(maximumConnections: 4, requestTimeout: 30))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            // The test client may hold a connection of its own: of six more, at most four stay.
            #expect(try await client.call(.get, "/healthz").status == .ok)
            let outcome = try await blocking(limited: false) { () throws -> (closed: Int, answered: String) in
                let connections = try (0..<6).map { _ in try RawConnection(port: port) }
                // The service closes the extra ones at once; a loaded machine may take a moment.
                Thread.sleep(forTimeInterval: 1.5)
                let closed = connections.map { $0.read(for: 0.05).closed }
                // One that stayed open is answered.
                let open = try #require(connections.indices.first { !closed[$0] })
                connections[open].send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                return (closed.filter { $0 }.count, connections[open].read(for: 20, until: "\r\n\r\n").text)
            }
            #expect((2...3).contains(outcome.closed), "\(outcome.closed) of 6 closed at once")
            #expect(outcome.answered.hasPrefix("HTTP/1.1 200"), "\(outcome.answered)")
            let metrics = try await client.call(.get, "/metrics").text
            #expect(metrics.contains("switchyard_connections_refused_total \(outcome.closed)"), "\(metrics)")
        }
    }

    @Test func aRequestSentAByteAtATimeEndsAtTheRequestTimeout() async throws {
        let h = try await Harness.make()
        let app = h.service.application(port: 0, connectionLimits: ConnectionLimits(maximumConnections: 100, requestTimeout: 1))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let (closed, seconds, answered) = try await blocking(limited: false) { () throws -> (Bool, Double, String) in
                let slow = try RawConnection(port: port)
                let start = Date()
                var closed = false
                // A header line every 0.3 s never lets the connection go idle.
                for i in 0..<20 where !closed {
                    slow.send(i == 0 ? "GET /healthz HTTP/1.1\r\n" : "X-Slow-\(i): y\r\n")
                    closed = slow.read(for: 0.3).closed
                }
                let seconds = Date().timeIntervalSince(start)
                // A request sent at once on a new connection is answered.
                let quick = try RawConnection(port: port)
                quick.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                return (closed, seconds, quick.read(for: 20, until: "\r\n\r\n").text)
            }
            #expect(closed, "the trickling connection was closed")
            #expect(seconds < 5, "closed after \(seconds) s; the request timeout is 1 s")
            #expect(answered.hasPrefix("HTTP/1.1 200"), "\(answered)")
        }
    }
}
