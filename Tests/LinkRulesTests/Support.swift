import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Paths of the shared fixtures beside the repository (`../shared/fixtures`). Tests that need one
/// fail loudly when it is missing, never skip.
enum Fixtures {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let directory = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
    static var openerSample: String { directory.appendingPathComponent("opener/openerManifest-v4-sample.json").path }
    static var defaultRules: String { repositoryRoot.appendingPathComponent("Sources/LinkRules/Resources/default-rules.json").path }

    static func require(_ path: String) throws -> String {
        try #require(FileManager.default.fileExists(atPath: path), "fixture missing: \(path) — the shared fixtures must sit beside the repository")
        return path
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
