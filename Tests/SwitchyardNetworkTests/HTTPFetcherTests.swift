import SwitchyardCore
import Foundation
import LinkRules
import SwitchyardNetwork
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP fetcher that scripts and redirect following use: loopback and private addresses are
/// refused unless allowed, before any connection is made.
@Suite struct HTTPFetcherTests {
    @Test func loopbackIsRefusedByDefaultAndTheServerSeesNothing() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/secret"
        let script = "function process(url, completionHandler) { completionHandler(httpRequest(url)); }"

        // Time limits far above what these calls take: the point is the refusal, and a loaded machine
        // must not turn it into a script-timeout.
        let guarded = ScriptRuntime(fetcher: HTTPFetcher(), timeLimit: 60)
        let refused = await guarded.run(script, input: url)
        #expect(refused.failureValue?.code == .networkRefused)
        let byName = await guarded.run(script, input: "http://localhost:\(server.port)/secret")
        #expect(byName.failureValue?.code == .networkRefused)
        try await Task.sleep(for: .milliseconds(100))
        #expect(server.connections == 0)

        // Explicitly allowed: the same request reaches the server.
        let allowed = ScriptRuntime(fetcher: HTTPFetcher(options: .init(allowPrivateAddresses: true)), timeLimit: 60)
        #expect(await allowed.run(script, input: url) == .success("hello from loopback"))
        #expect(server.connections == 1)
    }

    @Test func anOnlineEngineWithoutAFetcherSaysHowToGiveItOne() async throws {
        let script = "function process(url, completionHandler) { completionHandler(httpRequest(url)); }"
        let runtime = ScriptRuntime(fetcher: UnconfiguredFetcher(), timeLimit: 5)
        let result = await runtime.run(script, input: "https://example.com/")
        guard case .failure(let error) = result else { Issue.record("\(result)"); return }
        #expect(error.code == .networkUnavailable)
        #expect(error.message.contains("HTTPFetcher"))
        // withHTTPFetcher() gives an online engine the guarded HTTP fetcher, and leaves an offline one alone.
        #expect(LinkEngine.Options(offline: false).withHTTPFetcher().fetcher is HTTPFetcher)
        #expect(LinkEngine.Options(offline: true).withHTTPFetcher().fetcher == nil)
    }
}

/// A tiny HTTP server on 127.0.0.1 that counts the connections it accepts.
final class LoopbackServer: @unchecked Sendable {
    let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var _connections = 0
    private var thread: Thread?
    let body: String

    var connections: Int { lock.withLock { _connections } }

    init(body: String = "hello from loopback") throws {
        self.body = body
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = UInt16(bigEndian: addr.sin_port)
        thread = nil
        let t = Thread { [self] in self.serve() }
        thread = t
        t.start()
    }

    private func serve() {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 { return }
            lock.withLock { _connections += 1 }
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = read(client, &buffer, buffer.count)
            let response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            _ = response.withCString { write(client, $0, strlen($0)) }
            close(client)
        }
    }

    func stop() {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

extension Result {
    fileprivate var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
