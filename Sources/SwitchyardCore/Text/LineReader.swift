#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads text lines from a file descriptor with bounded memory: a fixed read buffer and a cap on
/// the length of one line. `read(2)` interrupted by a signal is retried, and end of input is
/// reported once, so a batch always ends (unlike `readLine`, which a signal can cut short).
///
/// ```swift
/// var reader = LineReader(fileDescriptor: 0)
/// while let line = reader.next() {
///     switch line {
///     case .line(let text, _): print(text)
///     case .tooLong(let number, let length): print("line \(number): \(length) bytes, skipped")
///     }
/// }
/// ```
public struct LineReader {
    /// One line of input, or the report of a line that was over the cap (its bytes are dropped).
    public enum Line: Equatable, Sendable {
        /// The text without its line terminator (`\n` or `\r\n`), and its 1-based line number.
        case line(String, number: Int)
        /// A line longer than `maximumLineBytes`: its number and its length in bytes.
        case tooLong(number: Int, length: Int)
    }

    /// Longest line kept, in bytes (64 KiB by default).
    public let maximumLineBytes: Int
    private let fd: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var current: [UInt8] = []
    private var overflow = 0
    private var number = 0
    private var atEnd = false
    /// The `errno` of a read that failed (`EISDIR` when the input is a directory, `EBADF` when
    /// there is no such descriptor), or nil: input that ended this way is not an empty input.
    public private(set) var readError: Int32?

    /// A reader of `fileDescriptor` (not closed by the reader).
    public init(fileDescriptor: Int32, maximumLineBytes: Int = 64 << 10, bufferBytes: Int = 64 << 10) {
        self.fd = fileDescriptor
        self.maximumLineBytes = max(1, maximumLineBytes)
        self.buffer = [UInt8](repeating: 0, count: max(1, bufferBytes))
    }

    /// True when a complete line can be returned without reading (and so without waiting).
    public var hasBufferedLine: Bool {
        start < end && buffer[start..<end].contains(0x0A)
    }

    /// The next line, or nil at the end of input (or on a read error, which ends input too and
    /// is kept in `readError`).
    public mutating func next() -> Line? {
        while true {
            if start == end {
                if atEnd { return finishLast() }
                fill()
                continue
            }
            let newline = buffer[start..<end].firstIndex(of: 0x0A)
            let stop = newline ?? end
            let count = stop - start
            if overflow == 0 && current.count + count <= maximumLineBytes {
                current.append(contentsOf: buffer[start..<stop])
            } else {
                if overflow == 0 { overflow = current.count }
                overflow += count
                current.removeAll(keepingCapacity: true)
            }
            if let newline {
                start = newline + 1
                return take()
            }
            start = end
        }
    }

    private mutating func fill() {
        start = 0
        end = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                end = n
                return
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                // A non-blocking descriptor (inherited so): wait until it has something.
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, -1)
                continue
            }
            if n < 0 { readError = errno }
            atEnd = true
            return
        }
    }

    private mutating func finishLast() -> Line? {
        if current.isEmpty && overflow == 0 { return nil }
        return take()
    }

    private mutating func take() -> Line {
        number += 1
        defer {
            current.removeAll(keepingCapacity: current.capacity <= 1 << 16)
            overflow = 0
        }
        if overflow > 0 { return .tooLong(number: number, length: overflow) }
        if current.last == 0x0D { current.removeLast() }
        return .line(String(decoding: current, as: UTF8.self), number: number)
    }
}
