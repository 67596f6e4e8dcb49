import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to 127.0.0.1:`port`, for tests that send raw HTTP (pipelined
/// requests, a request a byte at a time) and read what comes back.
public final class RawConnection: @unchecked Sendable {
    /// The socket's descriptor.
    public let fd: Int32

    /// Connects to 127.0.0.1:`port` from `source` (another loopback address, 127.0.0.2, to stand
    /// for another client); throws when nothing listens there.
    public init(port: Int, from source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { close(fd); throw POSIXError(.EADDRNOTAVAIL) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { close(fd); throw POSIXError(.ECONNREFUSED) }
    }

    /// Sends `text` as it is (UTF-8).
    public func send(_ text: String) {
        #if canImport(Glibc)
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        #else
        _ = text.withCString { Darwin.send(fd, $0, strlen($0), 0) }
        #endif
    }

    /// What arrives within `seconds` (or until `until` has arrived), and whether the server
    /// closed the connection.
    public func read(for seconds: Double, until: String? = nil) -> (text: String, closed: Bool) {
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

    /// Sends `raw` (pipelined requests, say) on a new connection to `port` and reads until
    /// `count` responses have arrived, the server closes, or 20 s pass; the responses read.
    public static func exchange(port: Int, _ raw: String, expecting count: Int) throws -> [(status: Int, body: String)] {
        let connection = try RawConnection(port: port)
        connection.send(raw)
        var text = ""
        for _ in 0..<40 where responses(text).count < count {
            let (more, closed) = connection.read(for: 0.5)
            text += more
            if closed { break }
        }
        return responses(text)
    }

    /// The responses in `text`, one after another (Content-Length or chunked bodies).
    public static func responses(_ text: String) -> [(status: Int, body: String)] {
        var rest = Substring(text)
        var out: [(status: Int, body: String)] = []
        while let end = rest.range(of: "\r\n\r\n") {
            let head = rest[..<end.lowerBound]
            let lines = head.split(separator: "\r\n")
            guard let first = lines.first, first.hasPrefix("HTTP/1.1 "), let status = Int(first.dropFirst(9).prefix(3)) else { break }
            var after = rest[end.upperBound...]
            let fields = lines.dropFirst().map { $0.lowercased() }
            if let length = fields.first(where: { $0.hasPrefix("content-length:") }).flatMap({ Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) }) {
                guard after.utf8.count >= length else { break }
                let bodyEnd = after.utf8.index(after.startIndex, offsetBy: length)
                out.append((status, String(after[..<bodyEnd])))
                rest = after[bodyEnd...]
            } else if fields.contains("transfer-encoding: chunked") {
                var body = ""
                var complete = false
                while let lineEnd = after.range(of: "\r\n"), let size = Int(after[..<lineEnd.lowerBound], radix: 16) {
                    let data = after[lineEnd.upperBound...]
                    guard data.utf8.count >= size + 2 else { break }
                    let dataEnd = data.utf8.index(data.startIndex, offsetBy: size)
                    body += data[..<dataEnd]
                    after = data[data.utf8.index(dataEnd, offsetBy: 2)...]
                    if size == 0 { complete = true; break }
                }
                guard complete else { break }
                out.append((status, body))
                rest = after
            } else {
                out.append((status, ""))
                rest = after
            }
        }
        return out
    }
}
