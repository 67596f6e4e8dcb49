extension Pattern {
    /// A best-effort explanation of why ICU rejected `source`, with a character offset, since
    /// Foundation reports only "the value is invalid".
    static func diagnose(_ source: String) -> String {
        let chars = Array(source)
        var groups: [Int] = []
        var i = 0
        var canRepeat = false
        while i < chars.count {
            let c = chars[i]
            switch c {
            case "\\":
                if i + 1 >= chars.count { return "a trailing backslash escapes nothing (offset \(i))" }
                if chars[i + 1] == "Q" {
                    while i + 1 < chars.count && !(chars[i] == "\\" && chars[i + 1] == "E") { i += 1 }
                }
                i += 2
                canRepeat = true
                continue
            case "[":
                let start = i
                var depth = 0
                repeat {
                    if chars[i] == "\\" { i += 1 } else if chars[i] == "[" { depth += 1 } else if chars[i] == "]" { depth -= 1 }
                    i += 1
                } while i < chars.count && depth > 0
                if depth > 0 { return "the character class opened at offset \(start) is never closed" }
                canRepeat = true
                continue
            case "(":
                groups.append(i)
                canRepeat = false
            case ")":
                if groups.popLast() == nil { return "')' at offset \(i) closes no group" }
                canRepeat = true
            case "*", "+", "?":
                let afterQuantifier = i > 0 && "*+?}".contains(chars[i - 1])
                if !canRepeat && !(afterQuantifier && c != "*") && !(i > 0 && chars[i - 1] == "(" && c == "?") {
                    return "'\(c)' at offset \(i) has nothing to repeat"
                }
            case "{":
                if let close = chars[i...].firstIndex(of: "}") {
                    let bounds = String(chars[(i + 1)..<close]).split(separator: ",", omittingEmptySubsequences: false).map { Int($0) }
                    if bounds.count == 2, let lo = bounds[0], let hi = bounds[1], lo > hi {
                        return "the repetition {\(lo),\(hi)} at offset \(i) has its minimum above its maximum"
                    }
                }
            case "|":
                canRepeat = false
            default:
                canRepeat = true
            }
            i += 1
        }
        if let open = groups.last { return "the group opened at offset \(open) is never closed" }
        return "ICU rejects the pattern"
    }
}
