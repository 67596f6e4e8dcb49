import CFuzzerDriver
import CallbackURL
import Foundation
import URLRelay

/// Input: bytes. The first byte picks the target:
/// - even: an inbox record — decoding must never trap, and a decoded record must re-encode to
///   a record that decodes to the same request;
/// - odd: an x-callback-url — parsing must never trap, and a parsed URL must rebuild to text
///   that parses back to the same value (nested URLs included), and verification must refuse it
///   unless it is properly signed.
let verifier = CallbackVerifier(keys: ["k1": Array("0123456789abcdef0123456789abcdef".utf8)])

func fuzzRelay(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] % 2 == 0 {
        if let request = try? RelayRequest(record: bytes) {
            guard let again = try? RelayRequest(record: Array(request.record.utf8)), again.id == request.id, again.url == request.url,
                  again.source == request.source, again.metadata == request.metadata else {
                fatalError("record does not round-trip: \(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
    } else {
        let text = String(decoding: bytes, as: UTF8.self)
        if let parsed = try? XCallbackURL(parsing: text) {
            guard let again = try? XCallbackURL(parsing: parsed.url), again == parsed else {
                fatalError("x-callback-url does not round-trip: \(text.debugDescription) → \(parsed.url.debugDescription)")
            }
            _ = try? verifier.verify(parsed)
        }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzRelay(data, size) })
