import Foundation
import SwitchyardCore
import Testing

/// RFC 3339 date-times, strictly: the instant they name (checked against Foundation's parser on
/// the forms both accept), and a refusal for what does not exist.
@Suite struct TimestampTests {
    @Test(arguments: ["2026-12-31T23:59:00Z", "2027-02-28T00:00:00+01:00", "2028-02-29T12:30:15-05:30", "1970-01-01T00:00:00Z",
                      "2000-02-29T23:59:59+23:59", "2099-12-31T00:00:00-23:59", "2026-06-01t08:00:00z"])
    func agreesWithFoundationWhereBothAccept(_ text: String) throws {
        let mine = try Timestamp.parse(text).get()
        let foundation = try #require(ISO8601DateFormatter().date(from: text.uppercased()))
        #expect(mine == foundation)
    }

    @Test func fractionsAreKept() throws {
        let date = try Timestamp.parse("2026-12-31T23:59:00.250Z").get()
        #expect(date.timeIntervalSince1970 == 1_798_761_540.25)
    }

    @Test(arguments: [
        ("2027-02-30T00:00:00Z", "no such date-time: day 30 of month 2 in 2027"),
        ("2100-02-29T00:00:00Z", "no such date-time: day 29 of month 2 in 2100"),
        ("2026-04-31T00:00:00Z", "no such date-time: day 31 of month 4 in 2026"),
        ("2026-13-01T00:00:00Z", "no such date-time: month 13"),
        ("2026-12-01T24:00:00Z", "no such date-time: hour 24"),
        ("2026-12-01T23:60:00Z", "no such date-time: minute 60"),
        ("2026-12-01T23:59:60Z", "no such date-time: second 60"),
        ("2026-12-01T00:00:00+99:00", "no such date-time: offset +99:00"),
        ("2026-12-01T00:00:00", "not an RFC 3339 date-time such as 2026-12-31T23:59:00Z"),
        ("2026-12-01 00:00:00Z", "not an RFC 3339 date-time such as 2026-12-31T23:59:00Z"),
        ("2026-12-01T00:00:00.Z", "not an RFC 3339 date-time such as 2026-12-31T23:59:00Z"),
        ("2026-12-01T00:00:00Z ", "not an RFC 3339 date-time such as 2026-12-31T23:59:00Z"),
        ("+2026-12-01T00:00:00Z", "not an RFC 3339 date-time such as 2026-12-31T23:59:00Z"),
        ("２026-12-01T00:00:00Z", "not an RFC 3339 date-time such as 2026-12-31T23:59:00Z"),
    ])
    func refusesWhatDoesNotExist(_ text: String, _ reason: String) {
        switch Timestamp.parse(text) {
        case .success(let date): Issue.record("\(text) accepted as \(date)")
        case .failure(let problem): #expect(problem.description == reason)
        }
    }
}

/// `Timestamp.format` writes what Foundation's ISO8601DateFormatter writes.
@Suite struct TimestampFormatTests {
    @Test func formatsAsFoundationsFormatterDoes() {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let whole = ISO8601DateFormatter()
        whole.formatOptions = [.withInternetDateTime]
        var generator = SystemRandomNumberGenerator()
        // From 1583 (Foundation's calendar is Julian before) to 9999.
        var instants: [Double] = [0, -1, -0.001, -0.0004, 0.0005, 0.9996, 59.9999, 951_782_400, 4_102_444_799.999, 1_764_276_804.880,
                                  -12_219_292_800, 253_402_300_799]
        for _ in 0..<20_000 { instants.append(Double.random(in: -12_000_000_000...253_402_300_000, using: &generator)) }
        for _ in 0..<20_000 { instants.append(Double.random(in: -2_000_000_000...5_000_000_000, using: &generator)) }
        // Whole milliseconds, as the store keeps them.
        for _ in 0..<20_000 { instants.append(Double(Int64.random(in: 0...4_102_444_800_000, using: &generator)) / 1000) }
        var mismatches: [String] = []
        for t in instants {
            let date = Date(timeIntervalSince1970: t)
            if Timestamp.format(date) != fractional.string(from: date) { mismatches.append("\(t): \(Timestamp.format(date)) vs \(fractional.string(from: date))") }
            if Timestamp.format(date, fractionalSeconds: false) != whole.string(from: date) { mismatches.append("\(t) whole: \(Timestamp.format(date, fractionalSeconds: false)) vs \(whole.string(from: date))") }
        }
        let first = Array(mismatches.prefix(5))
        #expect(mismatches.count == 0, "\(mismatches.count) of \(instants.count * 2): \(first)")
    }

    /// Day numbers as the dashboard and the stats API name them, checked against Foundation's
    /// formatter from 1970 to 9999.
    @Test func daysAreNamedAsFoundationNamesThem() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        var mismatches: [String] = []
        for day in stride(from: Int64(0), through: 2_932_896, by: 997) + [19_723, 2_932_896] {
            let expected = formatter.string(from: Date(timeIntervalSince1970: Double(day) * 86_400))
            if Timestamp.formatDay(day) != expected { mismatches.append("\(day): \(Timestamp.formatDay(day)) vs \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(Timestamp.formatDay(20_423) == "2025-12-01")
    }
}
