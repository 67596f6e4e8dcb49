import SwitchyardCore
import Foundation
import Testing
@testable import LinkRules

/// The messages between the engine and a script worker: what goes in comes out, in pieces or
/// whole, and a frame that lies about its size is refused instead of trusted.
@Suite struct WorkerFrameTests {
    @Test func framesSurviveTheWireWhateverTheChunking() throws {
        let frames = [WorkerFrame("R", ["7", "function process(u, d) { d(u) }", "https://e.example/ü\u{0}"]), WorkerFrame("N"),
                      WorkerFrame("V", [String(repeating: "x", count: 100_000)]), WorkerFrame("e", ["network-refused", ""])]
        let wire = frames.flatMap(\.encoded)
        for chunk in [1, 3, 4096, wire.count] {
            var buffer: [UInt8] = []
            var start = 0
            var decoded: [WorkerFrame] = []
            for offset in stride(from: 0, to: wire.count, by: chunk) {
                buffer += wire[offset..<min(wire.count, offset + chunk)]
                while let frame = try WorkerFrame.take(from: buffer, start: &start, maximum: 1 << 20) { decoded.append(frame) }
            }
            #expect(decoded == frames, "chunk \(chunk)")
            #expect(start == wire.count)
        }
    }

    @Test func aFrameLargerThanAllowedOrInconsistentIsRefused() {
        var start = 0
        let big = WorkerFrame("V", [String(repeating: "y", count: 2000)]).encoded
        #expect(throws: WorkerFrame.DecodeError.tooLarge(big.count - 4)) { try WorkerFrame.take(from: big, start: &start, maximum: 1000) }
        // A field that claims more bytes than its frame holds.
        let lying: [UInt8] = [0, 0, 0, 6, UInt8(ascii: "V"), 0, 0, 0, 9, 65]
        #expect(throws: WorkerFrame.DecodeError.malformed) { try WorkerFrame.take(from: lying, start: &start, maximum: 1000) }
        let empty: [UInt8] = [0, 0, 0, 0]
        #expect(throws: WorkerFrame.DecodeError.malformed) { try WorkerFrame.take(from: empty, start: &start, maximum: 1000) }
        #expect(start == 0)
    }
}
