import CFuzzerDriver
import Foundation
import LinkRules

/// Input: manifest bytes. Loading must never trap, whatever the shape; a document that parses
/// as a JSON object must load leniently, with one located diagnostic (a JSON path) per skipped
/// entry; strict loading must refuse exactly the manifests that skipped something; and the
/// loaded rules must be usable (matching and unwrapping a link).
func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let manifest = try? Manifest(data: bytes) else { return 0 }
    for d in manifest.skipped + manifest.warnings where d.location.path?.isEmpty ?? true {
        fatalError("a diagnostic without a location: \(d)")
    }
    let strict = (try? Manifest(data: bytes, strict: true)) != nil
    if strict != manifest.skipped.isEmpty {
        fatalError("strict loading disagrees with the skipped entries: \(manifest.skipped)")
    }
    let engine = LinkEngine(manifest: manifest, options: .init(offline: true, executor: executor))
    for url in ["https://twitter.com/jack/status/20", "https://x.example/a?url=https%3A%2F%2Fy.example%2F"] {
        let indexed = engine.matchingActions(url)
        _ = engine.unwrap(url)
        if indexed.contains(where: { $0 < 0 || $0 >= manifest.actions.count }) { fatalError("a match outside the actions: \(indexed)") }
    }
    return 0
}

/// One pool of script threads for every input (engines would otherwise start their own).
let executor = ScriptExecutor(threads: 1)

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzManifest(data, size) })
