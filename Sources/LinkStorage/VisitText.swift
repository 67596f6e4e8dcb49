import SwitchyardCore

/// Text a visitor's request put in a record (a family parsed from the User-Agent, a campaign
/// value) as it is kept: without control characters (C0, C1), the marks and overrides that
/// reorder the text shown after them, invisible ones (zero-width spaces and joiners, the BOM),
/// and noncharacters; trimmed; nil when nothing is left. A link's own campaign values must
/// already read so (the API refuses others), so one campaign is one group however it arrives.
package enum VisitText {
    package static func cleaned(_ text: String) -> String? {
        let kept = text.unicodeScalars.filter { scalar in
            let v = scalar.value
            return !(v < 0x20 || (0x7F...0x9F).contains(v) || (0x200B...0x200F).contains(v) || (0x202A...0x202E).contains(v)
                     || (0x2060...0x2069).contains(v) || v == 0x061C || v == 0xFEFF || scalar.properties.isNoncharacterCodePoint)
        }
        let out = String(String.UnicodeScalarView(kept)).trimmingSpaces()
        return out.isEmpty ? nil : out
    }
}
