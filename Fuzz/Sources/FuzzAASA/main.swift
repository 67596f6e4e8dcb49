import Foundation
import CFuzzerDriver
import AssociatedDomains
import SwitchyardCore

/// Input: an AASA file, then a 0 byte, then a URL. Parses, validates, decides and explains.
func fuzzAASA(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let file = Array(bytes[..<split])
    let url = split < bytes.count ? String(decoding: bytes[(split + 1)...], as: UTF8.self) : "https://example.com/a/b?c=d#e"
    _ = AppSiteAssociation.validate(bytes: file)
    _ = AssetLinks.validate(bytes: file)
    if let aasa = AppSiteAssociation.read(bytes: file).0 {
        for appID in (aasa.applinks?.details ?? []).flatMap(\.appIDs).prefix(4) + ["ABCDE12345.com.example.app"] {
            _ = aasa.decide(url, for: appID)
            _ = aasa.explain(url, for: appID, domain: "example.com")
        }
    }
    return 0
}

// Top-level code: hand the process to libFuzzer with our callback.
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzAASA(data, size) })
