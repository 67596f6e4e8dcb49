import SwitchyardCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One message between the engine and a script worker process, over a Unix socket.
///
/// On the wire: a 4-byte big-endian length, then the body: one kind byte and its fields, each a
/// 4-byte big-endian length and that many bytes (UTF-8 text).
///
/// | kind | direction | fields |
/// |---|---|---|
/// | `R` run | engine → worker | script id, source (empty once the worker has it), input |
/// | `F` fetch | worker → engine | URL a script's `httpRequest`/`jsonRequest` asks for, seconds left before its wall-clock limit (empty: none) |
/// | `f` fetched | engine → worker | response body |
/// | `e` fetch failed | engine → worker | code, message |
/// | `V` value / `N` null | worker → engine | the completion's argument / none |
/// | `X` failed | worker → engine | code, message (a `ScriptError`) |
struct WorkerFrame: Equatable {
    var kind: UInt8
    var fields: [[UInt8]]

    init(_ kind: Character, _ fields: [String] = []) {
        self.kind = kind.asciiValue!
        self.fields = fields.map { Array($0.utf8) }
    }

    init(kind: UInt8, fields: [[UInt8]]) {
        self.kind = kind
        self.fields = fields
    }

    func text(_ i: Int) -> String { i < fields.count ? String(decoding: fields[i], as: UTF8.self) : "" }

    /// The frame with its length prefix.
    var encoded: [UInt8] {
        var body: [UInt8] = [kind]
        for field in fields {
            WorkerFrame.appendLength(field.count, to: &body)
            body += field
        }
        var out: [UInt8] = []
        out.reserveCapacity(body.count + 4)
        WorkerFrame.appendLength(body.count, to: &out)
        out += body
        return out
    }

    private static func appendLength(_ n: Int, to bytes: inout [UInt8]) {
        bytes += [UInt8(truncatingIfNeeded: n >> 24), UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
    }

    private static func length(_ bytes: ArraySlice<UInt8>) -> Int {
        let b = Array(bytes.prefix(4))
        return Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
    }

    enum DecodeError: Error, Equatable {
        /// The frame announces more than the reader accepts.
        case tooLarge(Int)
        /// The body's fields do not add up to its length.
        case malformed
    }

    /// Takes one whole frame off the front of `buffer` (from `start`), or nil when more bytes are needed.
    static func take(from buffer: [UInt8], start: inout Int, maximum: Int) throws(DecodeError) -> WorkerFrame? {
        guard buffer.count - start >= 4 else { return nil }
        let n = length(buffer[start...])
        guard n <= maximum else { throw .tooLarge(n) }
        guard n >= 1 else { throw .malformed }
        guard buffer.count - start - 4 >= n else { return nil }
        let body = buffer[(start + 4)..<(start + 4 + n)]
        var i = body.startIndex + 1
        var fields: [[UInt8]] = []
        while i < body.endIndex {
            guard body.endIndex - i >= 4 else { throw .malformed }
            let m = length(body[i...])
            i += 4
            guard body.endIndex - i >= m else { throw .malformed }
            fields.append(Array(body[i..<(i + m)]))
            i += m
        }
        start += 4 + n
        return WorkerFrame(kind: body[body.startIndex], fields: fields)
    }
}

/// Blocking frame I/O on a socket; used by the worker, and by the engine for writes.
struct FrameSocket {
    let fd: Int32
    /// Bytes read but not yet taken as frames.
    var buffer: [UInt8] = []
    var start = 0
    /// Where `read` puts its bytes (allocated once per socket, not per read).
    private var chunk = [UInt8](repeating: 0, count: 65_536)

    init(fd: Int32) { self.fd = fd }

    /// Writes the whole frame; false when the other side is gone. Never raises SIGPIPE.
    func write(_ frame: WorkerFrame) -> Bool { write(bytes: frame.encoded) }

    /// Writes encoded frames (one system call for several when they fit the socket's buffer).
    func write(bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(WorkerPlatform.noSignalFlag))
            }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            sent += n
        }
        return true
    }

    /// Appends what one `read` returns; false at end of input or on an error.
    mutating func fill() -> Bool {
        if start > 65_536 && start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            buffer += chunk[0..<n]
            return true
        }
    }

    /// True when a whole frame is already read (taking it will not block).
    var hasWholeFrame: Bool {
        guard buffer.count - start >= 4 else { return false }
        let b = buffer[start..<(start + 4)].map(Int.init)
        return buffer.count - start - 4 >= (b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3])
    }

    /// The next frame, reading as needed (blocking); nil at end of input.
    mutating func next(maximum: Int) throws(WorkerFrame.DecodeError) -> WorkerFrame? {
        while true {
            if let frame = try WorkerFrame.take(from: buffer, start: &start, maximum: maximum) { return frame }
            if !fill() { return nil }
        }
    }
}

