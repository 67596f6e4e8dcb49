import LinkRequests
import SwitchyardCore
import Foundation

/// An `application/x-www-form-urlencoded` body or query, as browsers send forms.
struct AdminForm: Sendable {
    var fields: [(name: String, value: String)]

    init(fields: [(name: String, value: String)]) { self.fields = fields }

    /// Nil when the text is not valid form encoding (a bad percent escape or invalid UTF-8).
    init?(_ text: String) {
        fields = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else { return nil }
            fields.append((name, value))
        }
    }

    subscript(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// The first name given more than once: the dashboard's forms give each field once, and a
    /// second value would otherwise be dropped without a word.
    var repeatedName: String? {
        var seen = Set<String>()
        return fields.first(where: { !seen.insert($0.name).inserted })?.name
    }

    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let b = utf8.popFirst() {
            switch b {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard utf8.count >= 2, let h = hex(utf8.removeFirst()), let l = hex(utf8.removeFirst()) else { return nil }
                bytes.append(h << 4 | l)
            default: bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
