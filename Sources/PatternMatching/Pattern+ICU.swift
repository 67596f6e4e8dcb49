import Foundation
import SwitchyardCore
#if canImport(_FoundationICU)
import _FoundationICU
#endif

/// One input prepared for many regexes: its text as UTF-16 code units, made once. A User-Agent
/// is tried against dozens of regexes, and NSRegularExpression copies a Swift string to UTF-16
/// for every evaluation.
public struct PatternInput: Sendable {
    /// The input as given.
    public let text: String
    let units: [UInt16]
    /// The UTF-8 bytes when the text is ASCII (offsets in `units` are then offsets here too, and
    /// a group's text is made from them without transcoding); empty otherwise.
    let ascii: [UInt8]

    /// Prepares `text`.
    public init(_ text: String) {
        self.text = text
        self.units = Array(text.utf16)
        let bytes = Array(text.utf8)
        self.ascii = bytes.count == units.count ? bytes : []
    }

    /// The text of code units `start..<end`.
    func slice(_ start: Int, _ end: Int) -> String {
        if !ascii.isEmpty { return ascii.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self) } }
        return units.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF16.self) }
    }
}

extension Pattern {
    /// The groups of the first match in `input`, as `captures(in:budget:)` on a string gives
    /// them for `input.text`. An unwatched regex runs on the prepared code units through ICU's C
    /// API where Foundation's ICU can be linked (Linux): the same engine NSRegularExpression
    /// runs there, with the same options (none), without its copies and result objects.
    public func captures(in input: PatternInput, budget: Double = Pattern.defaultTimeLimit) -> Result<[String?]?, RegexTimeout> {
        #if canImport(_FoundationICU)
        if !watched, let groups = icuCaptures(input) { return .success(groups) }
        #endif
        return captures(in: input.text, budget: budget)
    }
}

#if canImport(_FoundationICU)
/// Compiled ICU regexes of one pattern, each usable by one thread at a time: a matcher holds the
/// text it searches. Opened on first use and kept (up to a few, one per thread at once).
final class ICUMatchers: @unchecked Sendable {
    private let source: [UInt16]
    private let spare = Locked<[OpaquePointer]>([])
    /// Set when the pattern does not open through the C API (it always should, as it compiled
    /// for NSRegularExpression): callers then use NSRegularExpression.
    private let unusable = Locked(false)

    init(_ source: String) { self.source = Array(source.utf16) }

    deinit {
        for matcher in spare.withLock({ $0 }) { swift_uregex_close(matcher) }
    }

    /// Runs `body` with a matcher of its own; nil when none can be opened.
    func with<R>(_ body: (OpaquePointer) -> R) -> R? {
        var matcher = spare.withLock { $0.popLast() }
        if matcher == nil {
            guard !unusable.withLock({ $0 }) else { return nil }
            var status = U_ZERO_ERROR
            matcher = source.withUnsafeBufferPointer { swift_uregex_open($0.baseAddress, Int32($0.count), 0, nil, &status) }
            if matcher == nil || status.rawValue > U_ZERO_ERROR.rawValue {
                if let matcher { swift_uregex_close(matcher) }
                unusable.withLock { $0 = true }
                return nil
            }
        }
        guard let matcher else { return nil }
        let result = body(matcher)
        let kept = spare.withLock { list -> Bool in
            guard list.count < 8 else { return false }
            list.append(matcher)
            return true
        }
        if !kept { swift_uregex_close(matcher) }
        return result
    }
}

extension Pattern {
    /// The first match's groups in `units` through the C API: nil for "use NSRegularExpression"
    /// (no matcher, an ICU error, or empty text), `.some(nil)` for no match.
    func icuCaptures(_ input: PatternInput) -> [String?]?? {
        guard !input.units.isEmpty, input.units.count < Int(Int32.max), let matchers else { return nil }
        return input.units.withUnsafeBufferPointer { text -> [String?]?? in
            matchers.with { matcher -> [String?]?? in
                var status = U_ZERO_ERROR
                swift_uregex_setText(matcher, text.baseAddress, Int32(text.count), &status)
                // The matcher must not keep a pointer to text that is about to go away.
                defer {
                    var reset = U_ZERO_ERROR
                    swift_uregex_setText(matcher, text.baseAddress, 0, &reset)
                }
                let found = swift_uregex_find(matcher, 0, &status)
                guard status.rawValue <= U_ZERO_ERROR.rawValue else { return nil }
                guard found != 0 else { return .some(nil) }
                let count = Int(swift_uregex_groupCount(matcher, &status))
                var groups: [String?] = []
                groups.reserveCapacity(count + 1)
                for group in 0...count {
                    let start = Int(swift_uregex_start(matcher, Int32(group), &status))
                    let end = Int(swift_uregex_end(matcher, Int32(group), &status))
                    guard status.rawValue <= U_ZERO_ERROR.rawValue else { return nil }
                    if start < 0 || end < start || end > text.count {
                        groups.append(nil)
                    } else {
                        groups.append(input.slice(start, end))
                    }
                }
                return .some(groups)
            } ?? nil
        }
    }
}
#endif
