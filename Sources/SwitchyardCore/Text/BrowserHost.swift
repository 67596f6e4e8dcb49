import Foundation

/// The host of a special-scheme URL as a browser reads it (the URL Standard's host parser):
/// percent-decoded, mapped as IDNA maps it (full-width letters and dots, upper case and
/// characters that IDNA ignores, such as the soft hyphen), written in ASCII (`xn--` labels),
/// IPv4 addresses in any of their notations (`0x7f.1`, `2130706433`) written as dotted decimal.
///
/// The IDNA mapping is approximated by Unicode NFKC and lower-casing with IDNA's ignored
/// characters removed and its dots mapped; labels are not checked against IDNA's lists of
/// disallowed characters beyond controls, spaces, format characters, private use and
/// unassigned code points (which are refused). IPv6 addresses are written in their shortest form.
enum BrowserHost {
    /// The host a browser goes to for `host` (as written in a URL, between the user info and the
    /// port), or nil when a browser refuses it.
    static func parse(_ host: Substring) -> String? {
        guard !host.isEmpty else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), let pieces = ipv6(Array(host.dropFirst().dropLast().utf8)) else { return nil }
            return "[" + serialize(ipv6: pieces) + "]"
        }
        var text = String(host)
        if text.contains("%") {
            // Decoded as UTF-8. Where Foundation gives up (a stray `%`, bytes that are not UTF-8)
            // a browser fails too: `%` is a forbidden host code point, U+FFFD is no valid label.
            guard let decoded = text.removingPercentEncoding else { return nil }
            text = decoded
        }
        if text.unicodeScalars.contains(where: { !$0.isASCII }) {
            guard let ascii = toASCII(text) else { return nil }
            text = ascii
        } else {
            text = BrowserURL.lowercasedASCII(text[...])
        }
        // The forbidden domain code points: what no host may hold.
        guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || "#%/:<>?@[\\]^|".unicodeScalars.contains($0) })
        else { return nil }
        if endsInANumber(text) { return ipv4(text) }
        return text
    }

    private static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: return Int(b - 0x30)
        case 0x41...0x46: return Int(b - 0x41 + 10)
        case 0x61...0x66: return Int(b - 0x61 + 10)
        default: return nil
        }
    }

    /// Code points IDNA maps to nothing: the soft hyphen, the combining grapheme joiner, the
    /// Mongolian free variation selectors, the zero width space and joiners, the word joiner,
    /// the variation selectors and the byte order mark.
    static func isIgnored(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return v == 0xAD || v == 0x34F || (0x180B...0x180F).contains(v) || v == 0x200B || v == 0x2060 || v == 0x2064
            || (0xFE00...0xFE0F).contains(v) || v == 0xFEFF || (0x1BCA0...0x1BCA3).contains(v) || (0xE0100...0xE01EF).contains(v)
    }

    /// A non-ASCII domain as a browser writes it: mapped, then each non-ASCII label as `xn--`.
    static func toASCII(_ domain: String) -> String? {
        var mapped = String.UnicodeScalarView()
        for scalar in domain.unicodeScalars where !isIgnored(scalar) {
            // The ideographic full stops are label separators too.
            mapped.append(scalar == "\u{3002}" || scalar == "\u{FF0E}" || scalar == "\u{FF61}" ? "." : scalar)
        }
        let folded = String(mapped).precomposedStringWithCompatibilityMapping.lowercased().precomposedStringWithCanonicalMapping
        var labels: [String] = []
        for label in folded.split(separator: ".", omittingEmptySubsequences: false) {
            for scalar in label.unicodeScalars where !scalar.isASCII {
                switch scalar.properties.generalCategory {
                case .control, .format, .privateUse, .unassigned, .surrogate, .spaceSeparator, .lineSeparator, .paragraphSeparator:
                    // U+200C/U+200D are format characters that IDNA allows in context; a host
                    // with them is refused here (rare, and invisible in any case).
                    return nil
                default:
                    if scalar.isDeceptiveFormat || scalar == "\u{FFFD}" { return nil }
                }
            }
            if label.unicodeScalars.allSatisfy(\.isASCII) {
                labels.append(String(label))
            } else {
                guard let encoded = punycode(Array(label.unicodeScalars)) else { return nil }
                labels.append("xn--" + encoded)
            }
        }
        return labels.joined(separator: ".")
    }

    /// RFC 3492's Punycode encoding of `input` (without the `xn--` prefix); nil on overflow.
    static func punycode(_ input: [Unicode.Scalar]) -> String? {
        let base = 36, tMin = 1, tMax = 26, skew = 38, damp = 700
        func digit(_ d: Int) -> Character { Character(Unicode.Scalar(UInt8(d < 26 ? 0x61 + d : 0x30 + d - 26))) }
        func adapt(_ delta: Int, _ count: Int, _ first: Bool) -> Int {
            var delta = first ? delta / damp : delta / 2
            delta += delta / count
            var k = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                k += base
            }
            return k + (base - tMin + 1) * delta / (delta + skew)
        }
        let codes = input.map { Int($0.value) }
        var output = String(String.UnicodeScalarView(input.filter(\.isASCII)))
        let basicCount = output.count
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = 128, delta = 0, bias = 72
        while handled < codes.count {
            guard let m = codes.filter({ $0 >= n }).min() else { return nil }
            let (product, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow, delta <= Int(Int32.max) - product else { return nil }
            delta += product
            n = m
            for c in codes {
                if c < n { delta += 1 }
                if c == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, handled + 1, handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return output
    }

    /// The URL Standard's "ends in a number": the last label (a trailing dot aside) is digits, or
    /// `0x` and hex digits. Such a host is an IPv4 address or no host at all.
    static func endsInANumber(_ host: String) -> Bool {
        var labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if labels.last == "" {
            guard labels.count > 1 else { return false }
            labels.removeLast()
        }
        let last = labels.last!
        if !last.isEmpty && last.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) { return true }
        return last.lowercased().hasPrefix("0x") && last.dropFirst(2).allSatisfy(\.isHexDigit)
    }

    /// The URL Standard's IPv4 parser: up to four parts, each decimal, octal (a leading 0) or hex
    /// (`0x`), the last filling the bytes that remain; dotted decimal, or nil when it fails.
    static func ipv4(_ host: String) -> String? {
        var parts = host.split(separator: ".", omittingEmptySubsequences: false)
        if parts.last == "" && parts.count > 1 { parts.removeLast() }
        guard parts.count <= 4 else { return nil }
        var numbers: [UInt64] = []
        for part in parts {
            guard !part.isEmpty else { return nil }
            var digits = part[...]
            var radix: UInt64 = 10
            if part.count >= 2, part.lowercased().hasPrefix("0x") {
                digits = part.dropFirst(2)
                radix = 16
            } else if part.count >= 2, part.hasPrefix("0") {
                digits = part.dropFirst()
                radix = 8
            }
            var value: UInt64 = 0
            for c in digits {
                guard let d = c.hexDigitValue, UInt64(d) < radix else { return nil }
                value = value * radix + UInt64(d)
                if value > 0xFFFF_FFFF { value = 0x1_0000_0000 }  // too big either way; keep it from overflowing
            }
            numbers.append(value)
        }
        guard numbers.dropLast().allSatisfy({ $0 <= 255 }) else { return nil }
        let lastLimit = UInt64(1) << (8 * UInt64(5 - numbers.count))
        guard numbers.last! < lastLimit else { return nil }
        var address = numbers.last!
        for (i, n) in numbers.dropLast().enumerated() { address += n << (8 * UInt64(3 - i)) }
        return [24, 16, 8, 0].map { String((address >> UInt64($0)) & 0xFF) }.joined(separator: ".")
    }

    /// The URL Standard's IPv6 parser (the text between the brackets): eight pieces, or nil.
    static func ipv6(_ input: [UInt8]) -> [UInt16]? {
        var address = [UInt16](repeating: 0, count: 8)
        var pieceIndex = 0
        var compress: Int?
        var p = 0
        func c(_ i: Int) -> UInt8? { i < input.count ? input[i] : nil }
        func hex(_ b: UInt8?) -> UInt16? { b.flatMap { hexValue($0) }.map(UInt16.init) }
        func digit(_ b: UInt8?) -> UInt16? { b.flatMap { $0 >= 0x30 && $0 <= 0x39 ? UInt16($0 - 0x30) : nil } }
        let colon = UInt8(ascii: ":"), dot = UInt8(ascii: ".")
        if c(p) == colon {
            guard c(p + 1) == colon else { return nil }
            p += 2
            pieceIndex += 1
            compress = pieceIndex
        }
        while p < input.count {
            guard pieceIndex < 8 else { return nil }
            if c(p) == colon {
                guard compress == nil else { return nil }
                p += 1
                pieceIndex += 1
                compress = pieceIndex
                continue
            }
            var value: UInt16 = 0
            var length = 0
            while length < 4, let h = hex(c(p)) {
                value = value * 16 + h
                p += 1
                length += 1
            }
            if c(p) == dot {
                guard length > 0, pieceIndex <= 6 else { return nil }
                p -= length
                var numbersSeen = 0
                while p < input.count {
                    var piece: UInt16?
                    if numbersSeen > 0 {
                        guard c(p) == dot, numbersSeen < 4 else { return nil }
                        p += 1
                    }
                    guard digit(c(p)) != nil else { return nil }
                    while let d = digit(c(p)) {
                        if let current = piece {
                            guard current != 0 else { return nil }
                            piece = current * 10 + d
                        } else {
                            piece = d
                        }
                        guard piece! <= 255 else { return nil }
                        p += 1
                    }
                    address[pieceIndex] = address[pieceIndex] &* 0x100 &+ piece!
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                guard numbersSeen == 4 else { return nil }
                break
            } else if c(p) == colon {
                p += 1
                guard p < input.count else { return nil }
            } else if p < input.count {
                return nil
            }
            address[pieceIndex] = value
            pieceIndex += 1
        }
        if let compress {
            var swaps = pieceIndex - compress
            pieceIndex = 7
            while pieceIndex != 0 && swaps > 0 {
                address.swapAt(pieceIndex, compress + swaps - 1)
                pieceIndex -= 1
                swaps -= 1
            }
        } else if pieceIndex != 8 {
            return nil
        }
        return address
    }

    /// The URL Standard's IPv6 serializer: lower-case hex, the first longest run of two or more
    /// zero pieces written `::`.
    static func serialize(ipv6 pieces: [UInt16]) -> String {
        var compress: Int?
        var longest = 1
        var i = 0
        while i < 8 {
            var j = i
            while j < 8 && pieces[j] == 0 { j += 1 }
            if j - i > longest {
                longest = j - i
                compress = i
            }
            i = max(j, i + 1)
        }
        var out = ""
        var ignoreZero = false
        for (index, piece) in pieces.enumerated() {
            if ignoreZero && piece == 0 { continue }
            ignoreZero = false
            if compress == index {
                out += index == 0 ? "::" : ":"
                ignoreZero = true
                continue
            }
            out += String(piece, radix: 16)
            if index != 7 { out += ":" }
        }
        return out
    }
}
