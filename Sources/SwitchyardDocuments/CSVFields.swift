import Foundation

/// Writing comma-separated values as RFC 4180 does, with free text made safe for spreadsheets.
public enum CSVFields {
    /// One record: fields quoted when they hold a comma, quote, line break, or leading/trailing space.
    /// Judged scalar by scalar: `"\r\n"` is one `Character`, equal to neither `"\r"` nor `"\n"`.
    public static func record(_ fields: [String]) -> String {
        fields.map { f in
            guard f.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) || f.first == " " || f.last == " " else { return f }
            return "\"" + f.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\r\n"
    }

    /// Characters that make a spreadsheet read a cell as a formula when they come first.
    public static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r", "\n"]

    /// Free text as an export writes it: one more `'` in front of a value that, after any `'` it
    /// starts with, begins with a character a spreadsheet would run as a formula (`=HYPERLINK(…)`,
    /// `'=x`, `''-x`), so that ``spreadsheetText(_:)`` gives back exactly the original. Judged by
    /// scalars (a leading `"\r\n"` is one `Character`).
    public static func spreadsheetSafe(_ text: String) -> String {
        startsFormula(text) ? "'" + text : text
    }

    /// The inverse of ``spreadsheetSafe(_:)``: one `'` fewer in front of such a value.
    public static func spreadsheetText(_ text: String) -> String {
        guard text.unicodeScalars.first == "'", startsFormula(text) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.dropFirst()))
    }

    /// Whether the first scalar after the leading `'`s (none or more) starts a formula.
    private static func startsFormula(_ text: String) -> Bool {
        text.unicodeScalars.first(where: { $0 != "'" }).map { formulaStarts.contains($0) } ?? false
    }
}
