import Foundation

/// RFC 3339 date-times as APIs exchange them (`2026-12-31T23:59:00Z`,
/// `2026-12-31T23:59:00.250+02:00`), read strictly: every field in range, the day within its
/// month, the offset at most ±23:59. Foundation's ISO 8601 parser accepts `2027-02-30` (as 2 March)
/// and `+99:00`; this does not, so a stored expiry is always the instant the client wrote.
public enum Timestamp {
    /// The instant `text` names, or why it names none.
    public static func parse(_ text: String) -> Result<Date, Problem> {
        let b = Array(text.utf8)
        var i = 0
        func digits(_ n: Int) -> Int? {
            guard i + n <= b.count else { return nil }
            var v = 0
            for k in i..<(i + n) {
                guard (48...57).contains(b[k]) else { return nil }
                v = v * 10 + Int(b[k] - 48)
            }
            i += n
            return v
        }
        func expect(_ c: Character...) -> Bool {
            guard i < b.count, c.contains(Character(UnicodeScalar(b[i]))) else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2), expect("T", "t"),
              let hour = digits(2), expect(":"), let minute = digits(2), expect(":"), let second = digits(2)
        else { return .failure(.shape) }
        var fraction = 0.0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            var scale = 0.1, any = false
            while i < b.count, (48...57).contains(b[i]) {
                fraction += Double(b[i] - 48) * scale
                scale /= 10
                i += 1
                any = true
            }
            guard any else { return .failure(.shape) }
        }
        var offset = 0
        if expect("Z", "z") {
        } else if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
            let sign = b[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let oh = digits(2), expect(":"), let om = digits(2) else { return .failure(.shape) }
            guard oh <= 23, om <= 59 else { return .failure(.outOfRange("offset \(text.suffix(6))")) }
            offset = sign * (oh * 3600 + om * 60)
        } else {
            return .failure(.shape)
        }
        guard i == b.count else { return .failure(.shape) }
        guard (1...12).contains(month) else { return .failure(.outOfRange("month \(month)")) }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...lengths[month - 1]).contains(day) else { return .failure(.outOfRange("day \(day) of month \(month) in \(year)")) }
        guard hour <= 23 else { return .failure(.outOfRange("hour \(hour)")) }
        guard minute <= 59 else { return .failure(.outOfRange("minute \(minute)")) }
        guard second <= 59 else { return .failure(.outOfRange("second \(second)")) }
        // Days since 1970-01-01 in the proleptic Gregorian calendar.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction
        return .success(Date(timeIntervalSince1970: seconds))
    }

    /// The day `day` days after 1970-01-01 (UTC), as `yyyy-MM-dd`: how the service names the days it counts visits on.
    public static func formatDay(_ day: Int64) -> String {
        String(format(Date(timeIntervalSince1970: Double(day) * 86_400), fractionalSeconds: false).prefix(10))
    }

    /// `date` in UTC as RFC 3339 (`2026-11-27T20:53:24.880Z`, or without the milliseconds), the
    /// text ISO8601DateFormatter gives with `.withInternetDateTime` (and `.withFractionalSeconds`),
    /// at a fraction of its cost: the API writes one or three per link it answers. Instants from
    /// 1583 on (Foundation's calendar is Julian before the Gregorian reform).
    public static func format(_ date: Date, fractionalSeconds: Bool = true) -> String {
        // The nearest millisecond, halves up, as Foundation (which drops it when it writes no fraction).
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000 + 0.5).rounded(.down))
        let millis = Int(((totalMillis % 1000) + 1000) % 1000)
        let seconds = (totalMillis - Int64(millis)) / 1000
        let secondOfDay = Int(((seconds % 86_400) + 86_400) % 86_400)
        let days = Int((seconds - Int64(secondOfDay)) / 86_400)
        // The civil date of a day count since 1970-01-01 (proleptic Gregorian).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
        var out = [UInt8]()
        out.reserveCapacity(24)
        func put(_ value: Int, _ width: Int) {
            var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
            var v = value
            for k in stride(from: width - 1, through: 0, by: -1) {
                digits[k] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
            out += digits
        }
        put(year, 4); out.append(UInt8(ascii: "-")); put(month, 2); out.append(UInt8(ascii: "-")); put(day, 2)
        out.append(UInt8(ascii: "T"))
        put(secondOfDay / 3600, 2); out.append(UInt8(ascii: ":")); put(secondOfDay / 60 % 60, 2); out.append(UInt8(ascii: ":")); put(secondOfDay % 60, 2)
        if fractionalSeconds { out.append(UInt8(ascii: ".")); put(millis, 3) }
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Why a text is not a date-time: `invalid-timestamp` (not of the RFC 3339 form) or
    /// `no-such-time` (a field out of range: 30 February, a 99-hour offset).
    public struct Problem: SwitchyardError, Equatable {
        /// `invalid-timestamp` (not of the RFC 3339 form) or `no-such-time` (a field out of range).
        public var code: ErrorCode
        /// What is wrong with the text, for people.
        public var message: String

        /// Not of the form `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)`.
        public static let shape = Problem(code: .invalidTimestamp, message: "not an RFC 3339 date-time such as 2026-12-31T23:59:00Z")
        /// A field outside its range (what, in words).
        public static func outOfRange(_ what: String) -> Problem { Problem(code: .noSuchTime, message: "no such date-time: \(what)") }

        /// The message alone.
        public var description: String { message }
    }
}
