import Foundation
import Hummingbird
import HummingbirdTesting
@testable import LinkStorage
@testable import LinkService
import SwitchyardTestSupport
@testable import ServiceTransport
import Testing

/// Connections beyond the limit are closed at once and the service answers the rest; a request
/// that does not arrive whole in time (a client sending a byte now and then) ends its connection.
@Suite struct ConnectionLimitTests {
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

    /// One client address holds at most its share of the connections: more from it are closed at
    /// once, another address is still answered, and a closed connection frees its place.
    @Test func oneAddressHoldsNoMoreThanItsShare() async throws {
        let h = try await Harness.make()
        let app = h.service.application(port: 0, connectionLimits: ConnectionLimits(maximumConnections: 100, requestTimeout: 30, maximumPerAddress: 3))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let outcome = try await blocking(limited: false) { () throws -> (closed: Int, other: String, again: String) in
                var greedy = try (0..<5).map { _ in try RawConnection(port: port, from: "127.0.0.2") }
                Thread.sleep(forTimeInterval: 1.5)
                let closed = greedy.map { $0.read(for: 0.05).closed }.filter { $0 }.count
                let other = try RawConnection(port: port, from: "127.0.0.3")
                other.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                let answered = other.read(for: 20, until: "\r\n\r\n").text
                greedy.removeAll()  // closed: their places are free again once the service sees it
                var again = ""
                let deadline = Date().addingTimeInterval(20)
                while !again.hasPrefix("HTTP/1.1 200") && Date() < deadline {
                    let connection = try RawConnection(port: port, from: "127.0.0.2")
                    connection.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    again = connection.read(for: 2, until: "\r\n\r\n").text
                }
                return (closed, answered, again)
            }
            #expect(outcome.closed == 2, "\(outcome.closed) of 5 from one address closed at once; its share is 3")
            #expect(outcome.other.hasPrefix("HTTP/1.1 200"), "\(outcome.other)")
            #expect(outcome.again.hasPrefix("HTTP/1.1 200"), "the address has its share again once its connections are closed: \(outcome.again)")
            let metrics = try await client.call(.get, "/metrics").text
            // 2, and one more for each try made before the service saw the closes.
            let refused = metrics.split(separator: "\n").first { $0.hasPrefix("switchyard_connections_refused_per_address_total ") }
            #expect(refused.flatMap { Int($0.split(separator: " ").last ?? "") }.map { $0 >= 2 } == true, "\(metrics)")
            #expect(metrics.contains("switchyard_connections_refused_total 0"), "\(metrics)")
        }
    }

    /// The addresses of one network (an IPv4 /24, an IPv6 /48) hold at most a quarter of the
    /// connections together, however many addresses share them: one more from any of them is
    /// closed at once, while an address of another network is answered.
    @Test func oneNetworkHoldsNoMoreThanAQuarter() async throws {
        let h = try await Harness.make()
        let limits = ConnectionLimits(maximumConnections: 20, requestTimeout: 30, maximumPerAddress: 2)
        #expect(limits.maximumPerNetwork == 5)
        let app = h.service.application(port: 0, connectionLimits: limits)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let outcome = try await blocking(limited: false) { () throws -> (closed: Int, newcomer: Bool, other: String) in
                // 127.0.1.0/24, away from the test client's 127.0.0.1: two each from four addresses.
                let spread = try (1...4).flatMap { host in try (0..<2).map { _ in try RawConnection(port: port, from: "127.0.1.\(host)") } }
                Thread.sleep(forTimeInterval: 1.5)
                let closed = spread.map { $0.read(for: 0.05).closed }.filter { $0 }.count
                // An address of the network that holds nothing yet is refused too.
                let newcomer = try RawConnection(port: port, from: "127.0.1.9")
                Thread.sleep(forTimeInterval: 1)
                let other = try RawConnection(port: port, from: "127.0.2.1")
                other.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                let answered = other.read(for: 20, until: "\r\n\r\n").text
                withExtendedLifetime(spread) {}
                return (closed, newcomer.read(for: 0.05).closed, answered)
            }
            #expect(outcome.closed == 3, "\(outcome.closed) of 8 from one network closed at once; its share is 5")
            #expect(outcome.newcomer, "a ninth connection from the full network is closed")
            #expect(outcome.other.hasPrefix("HTTP/1.1 200"), "\(outcome.other)")
            let metrics = try await client.call(.get, "/metrics").text
            #expect(metrics.contains("switchyard_connections_refused_per_address_total 4"), "\(metrics)")
        }
    }

    /// An HTTP/1.0 request without keep-alive has its connection closed once answered, on the
    /// lane's path and the router's; with keep-alive, or as HTTP/1.1, the connection stays open.
    @Test func anHTTP10ConnectionEndsAfterItsAnswer() async throws {
        let h = try await Harness.make()
        let app = h.service.application(port: 0, connectionLimits: ConnectionLimits(maximumConnections: 100, requestTimeout: 30))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let results = try await blocking(limited: false) { () throws -> [(text: String, closed: Bool)] in
                try ["GET /healthz HTTP/1.0\r\n\r\n", "GET /.well-known/apple-app-site-association HTTP/1.0\r\n\r\n",
                     "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                     "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n",
                     "GET /healthz HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n", "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\nConnection: close\r\n\r\n",
                     "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection:\tclose\t\r\n\r\n"].map { raw in
                    let connection = try RawConnection(port: port)
                    connection.send(raw)
                    // The answer's head (a loaded machine may take a while), then the rest until
                    // the server closes, or 3 s pass with the connection open.
                    let head = connection.read(for: 20, until: "\r\n\r\n")
                    if head.closed { return head }
                    let rest = connection.read(for: 3, until: "\u{0}")
                    return (head.text + rest.text, rest.closed)
                }
            }
            for (i, r) in results.enumerated() {
                #expect(r.text.hasPrefix("HTTP/1.1 200"), "\(i): \(r.text)")
                #expect(r.closed == [true, true, false, false, true, true, true, true][i], "request \(i): closed \(r.closed)")
                // The answer says what happens to the connection (an HTTP/1.0 keep-alive too).
                let said = ["close", "close", "keep-alive", nil, "close", "close", "close", "close"][i]
                #expect(r.text.lowercased().contains("\r\nconnection: ") == (said != nil) && (said.map { r.text.lowercased().contains("\r\nconnection: \($0)\r\n") } ?? true), "\(i): \(r.text)")
            }
            // Bytes that are no request get a 400 that says the connection ends, and it does.
            let refused = try await blocking(limited: false) { () throws -> (text: String, closed: Bool) in
                let connection = try RawConnection(port: port)
                connection.send("GET /healthz HTTP/9.9\r\n\r\n")
                return connection.read(for: 3, until: "\u{0}")
            }
            #expect(refused.text.hasPrefix("HTTP/1.1 400") && refused.closed, "\(refused)")
            #expect(!refused.text.lowercased().contains("connection: keep-alive"), "\(refused.text)")
        }
    }

    /// A connection the service ends after its answer is closed whole a moment later even when
    /// the client never closes its side: its place in the address's share is free again long
    /// before the request timeout.
    @Test func aConnectionTheServiceEndsFreesItsPlaceSoon() async throws {
        let h = try await Harness.make()
        let app = h.service.application(port: 0, connectionLimits: ConnectionLimits(maximumConnections: 100, requestTimeout: 60, maximumPerAddress: 1))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let (first, seconds, second) = try await blocking(limited: false) { () throws -> (String, Double, String) in
                let sloppy = try RawConnection(port: port, from: "127.0.0.4")
                sloppy.send("GET /healthz HTTP/1.0\r\n\r\n")
                let first = sloppy.read(for: 10, until: "\r\n\r\n").text
                let start = Date()
                var second = ""
                // `sloppy` stays open on this side. The address's one place is free again once
                // the service has closed the connection whole.
                while !second.hasPrefix("HTTP/1.1 200") && Date().timeIntervalSince(start) < 20 {
                    let next = try RawConnection(port: port, from: "127.0.0.4")
                    next.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    second = next.read(for: 1, until: "\r\n\r\n").text
                }
                withExtendedLifetime(sloppy) {}
                return (first, Date().timeIntervalSince(start), second)
            }
            #expect(first.hasPrefix("HTTP/1.1 200"), "\(first)")
            #expect(second.hasPrefix("HTTP/1.1 200"), "\(second)")
            #expect(seconds < 10, "the place was free after \(seconds) s; the service closes 2 s after it stops writing")
        }
    }

    /// A body declared larger than the limit is refused at its headers, not when (or if) its
    /// bytes arrive; so is a form to the dashboard.
    @Test func aBodyDeclaredTooLargeIsRefusedAtOnce() async throws {
        let h = try await Harness.make()
        let app = h.service.application(port: 0, connectionLimits: ConnectionLimits(maximumConnections: 100, requestTimeout: 60))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let writer = h.writer
            let answers = try await blocking(limited: false) { () throws -> [String] in
                try ["POST /api/links HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(writer)\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n{",
                 "POST /api/links HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(writer)\r\nContent-Type: application/json\r\nContent-Length: 999999999999999999999999\r\n\r\n{"].map { raw throws -> String in
                    let connection = try RawConnection(port: port)
                    connection.send(raw)
                    return connection.read(for: 10, until: "\r\n\r\n").text + connection.read(for: 0.5, until: "}}").text
                }
            }
            #expect(answers[0].hasPrefix("HTTP/1.1 413") && answers[0].contains(#""code":"body-too-large""#), "\(answers[0])")
            #expect(answers[1].hasPrefix("HTTP/1.1 400"), "a length past any integer: NIO's parser refuses it: \(answers[1])")
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
