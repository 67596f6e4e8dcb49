import Foundation
import SwitchyardTestSupport
import Testing
@testable import SwitchyardCore

@Suite struct LineReaderTests {
    /// Reads `bytes` through a pipe (so reads come in pieces, as from stdin).
    static func lines(_ bytes: [UInt8], maximumLineBytes: Int, bufferBytes: Int = 7) -> [LineReader.Line] {
        let pipe = Pipe()
        let writer = Thread {
            pipe.fileHandleForWriting.write(Data(bytes))
            try? pipe.fileHandleForWriting.close()
        }
        writer.start()
        var reader = LineReader(fileDescriptor: pipe.fileHandleForReading.fileDescriptor, maximumLineBytes: maximumLineBytes, bufferBytes: bufferBytes)
        var out: [LineReader.Line] = []
        while let line = reader.next() { out.append(line) }
        return out
    }

    @Test func splitsLinesAcrossBufferBoundariesAndKeepsTheLastUnterminatedOne() {
        let got = Self.lines(Array("first\r\nsecond line here\n\nlast".utf8), maximumLineBytes: 100)
        #expect(got == [.line("first", number: 1), .line("second line here", number: 2), .line("", number: 3), .line("last", number: 4)])
    }

    @Test func reportsAndSkipsLinesOverTheCapWithoutKeepingThem() {
        let long = String(repeating: "x", count: 50)
        let got = Self.lines(Array("ok\n\(long)\nafter\n\(long)".utf8), maximumLineBytes: 10)
        #expect(got == [.line("ok", number: 1), .tooLong(number: 2, length: 50), .line("after", number: 3), .tooLong(number: 4, length: 50)])
    }

    @Test func endsOnEmptyInput() {
        #expect(Self.lines([], maximumLineBytes: 10).isEmpty)
    }

    @Test func agreesWithASimpleSplitOnRandomInput() {
        var rng = SeededGenerator(seed: 42)
        for _ in 0..<50 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0..<400, using: &rng) {
                bytes.append([0x61, 0x62, 0x0A, 0x0D, 0x20].randomElement(using: &rng)!)
            }
            let cap = 12
            var expected: [LineReader.Line] = []
            var pieces = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
            if bytes.last == 0x0A || bytes.isEmpty { pieces.removeLast() }
            for (i, var piece) in pieces.enumerated() {
                if piece.count > cap {
                    expected.append(.tooLong(number: i + 1, length: piece.count))
                } else {
                    if piece.last == 0x0D { piece.removeLast() }
                    expected.append(.line(String(decoding: piece, as: UTF8.self), number: i + 1))
                }
            }
            #expect(Self.lines(bytes, maximumLineBytes: cap, bufferBytes: Int.random(in: 1...16, using: &rng)) == expected)
        }
    }
}
