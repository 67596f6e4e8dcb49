import SwitchyardCore
/// Aho–Corasick automaton over ASCII-lowercased bytes: one pass over the input reports which of
/// many literals occur in it.
struct LiteralScanner: Sendable {
    /// Byte → input class; upper-case ASCII maps to the class of its lower-case letter; bytes
    /// that occur in no literal share class 0.
    private let classOf: [UInt8]
    private let classCount: Int
    /// Dense transition table: state * classCount + class → next state.
    private let next: [Int32]
    /// The literal ids each state completes (own and via suffix links): state s's are
    /// `outputIDs[outputStart[s]..<outputStart[s + 1]]`, one flat array rather than an array per
    /// state, which the scan would retain and release at every byte.
    private let outputStart: [Int32]
    private let outputIDs: [Int32]

    init(literals: [String]) {
        var classOf = [UInt8](repeating: 0, count: 256)
        var count = 1
        for literal in literals {
            for b in literal.utf8 where classOf[Int(b)] == 0 {
                classOf[Int(b)] = UInt8(count)
                count += 1
            }
        }
        for upper in UInt8(ascii: "A")...UInt8(ascii: "Z") { classOf[Int(upper)] = classOf[Int(upper | 0x20)] }
        // Build the trie.
        var goto: [[Int32]] = [[Int32](repeating: -1, count: count)]
        var out: [[Int32]] = [[]]
        for (id, literal) in literals.enumerated() {
            var state = 0
            for b in literal.utf8 {
                let c = Int(classOf[Int(b)])
                if goto[state][c] < 0 {
                    goto[state][c] = Int32(goto.count)
                    goto.append([Int32](repeating: -1, count: count))
                    out.append([])
                }
                state = Int(goto[state][c])
            }
            out[state].append(Int32(id))
        }
        // Breadth-first: failure links folded into a complete transition table.
        var fail = [Int](repeating: 0, count: goto.count)
        var queue: [Int] = []
        for c in 0..<count {
            if goto[0][c] < 0 { goto[0][c] = 0 } else {
                fail[Int(goto[0][c])] = 0
                queue.append(Int(goto[0][c]))
            }
        }
        var head = 0
        while head < queue.count {
            let s = queue[head]
            head += 1
            out[s].append(contentsOf: out[fail[s]])
            for c in 0..<count {
                let t = Int(goto[s][c])
                if t < 0 {
                    goto[s][c] = goto[fail[s]][c]
                } else {
                    fail[t] = Int(goto[fail[s]][c])
                    queue.append(t)
                }
            }
        }
        self.classOf = classOf
        self.classCount = count
        self.next = goto.flatMap { $0 }
        var start: [Int32] = [0]
        for ids in out { start.append(start[start.count - 1] + Int32(ids.count)) }
        self.outputStart = start
        self.outputIDs = out.flatMap { $0 }
    }

    /// Calls `found` with the id of every literal occurring in `input` (possibly repeatedly).
    /// Returns false if the input contains non-ASCII bytes.
    func scan(_ input: String, _ found: (Int32) -> Void) -> Bool {
        var ascii = true
        var input = input
        let classCount = classCount
        input.withUTF8 { buffer in
            next.withUnsafeBufferPointer { next in
                classOf.withUnsafeBufferPointer { classOf in
                    outputStart.withUnsafeBufferPointer { outputStart in
                        outputIDs.withUnsafeBufferPointer { outputIDs in
                            var state = 0
                            for b in buffer {
                                if b >= 0x80 { ascii = false }
                                state = Int(next[state &* classCount &+ Int(classOf[Int(b)])])
                                var k = Int(outputStart[state])
                                let end = Int(outputStart[state &+ 1])
                                while k < end {
                                    found(outputIDs[k])
                                    k &+= 1
                                }
                            }
                        }
                    }
                }
            }
        }
        return ascii
    }
}
