import Foundation
import SwitchyardCore
import SwitchyardDocuments

/// The `appleCDN` section: whether `serve` compares, now and then, the AASA Apple's CDN holds for
/// each of its hosts with the one it serves itself, as `aasa compare` does by hand. Devices read
/// the CDN's copy, which can lag a change for days; off by default (it makes a request to Apple).
///
/// ```yaml
/// appleCDN:
///   check: true
///   interval: 21600            # seconds between comparisons (300–604800; default 6 h)
/// ```
package struct AppleCDNSettings: Sendable {
    /// Whether to compare at all (`check`; default false).
    package var check = false
    /// Seconds between comparisons (`interval`, 300–604800; default 21600).
    package var interval: Double = 21_600
    /// Where the CDN's copies are, the host appended (`base`; Apple's CDN by default; a test's stand-in otherwise).
    package var base = "https://app-site-association.cdn-apple.com/a/v1/"
    /// A PEM certificate authority to trust for `base` (`caFile`; a test's stand-in CDN).
    package var caFile: String?
    /// Whether `base` may be a loopback or private address (`allowPrivateAddresses`; a test's stand-in).
    package var allowPrivateAddresses = false

    /// The defaults: no comparison.
    package init() {}

    static let shape = DocumentShape.object([
        "check": .bool, "interval": .number, "base": .string, "caFile": .string, "allowPrivateAddresses": .bool,
    ])

    /// Reads the section (its shape was checked already); errors name the key.
    init(_ section: JSONValue) throws(ConfigurationError) {
        check = section["check"] == .bool(true)
        allowPrivateAddresses = section["allowPrivateAddresses"] == .bool(true)
        if case .number(let seconds, _)? = section["interval"] {
            guard (300...604_800).contains(seconds) else { throw ConfigurationError("appleCDN.interval: seconds from 300 to 604800") }
            interval = seconds
        }
        if let text = section["base"]?.stringValue {
            guard text.lowercased().hasPrefix("https://"), URLInput.problem(text) == nil else {
                throw ConfigurationError("appleCDN.base: \(JSONWriter.quote(text)) is not an https URL")
            }
            base = text.hasSuffix("/") ? text : text + "/"
        }
        caFile = section["caFile"]?.stringValue
    }
}
