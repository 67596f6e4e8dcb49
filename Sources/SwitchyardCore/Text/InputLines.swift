#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Command inputs: the arguments, or stdin's lines (trimmed; blank and whitespace-only lines are
/// skipped and give no output line, as each command's help says) read with
/// bounded memory. A line over the cap is never kept in memory; `skipped` counts them so the
/// command can exit with 1. With `placeholders` (the batch commands, whose output lines match
/// their input lines) such a line is an input of its own that `problem(_:)` answers with
/// `line-too-long`, so the command still writes its line; otherwise it is reported on stderr
/// with its number and skipped.
package final class InputLines: Sequence, IteratorProtocol {
    private var arguments: IndexingIterator<[String]>?
    private var reader: LineReader?
    package private(set) var skipped = 0
    /// The stdin line number of the input `next()` returned last (nil for arguments).
    package private(set) var lineNumber: Int?
    private let tooLong: ((Int, Int) -> String)?
    private let report: (String) -> Void
    private let placeholders: Bool
    /// The placeholder inputs handed out for over-long lines and not yet asked about.
    private var overlong: [String: (line: Int, message: String)] = [:]

    /// Reads `arguments`, or stdin when there are none; `report` is told what is said of a line
    /// skipped for its length.
    package init(_ arguments: [String], maximumLineBytes: Int = 64 << 10, placeholders: Bool = false, tooLong: ((Int, Int) -> String)? = nil,
                 report: @escaping (String) -> Void) {
        self.tooLong = tooLong
        self.report = report
        self.placeholders = placeholders
        if arguments.isEmpty {
            reader = LineReader(fileDescriptor: 0, maximumLineBytes: maximumLineBytes)
        } else {
            self.arguments = arguments.makeIterator()
        }
    }

    /// True when the inputs come from stdin.
    package var fromStdin: Bool { reader != nil }

    /// Why stdin could not be read (closed when the process started, a directory, a descriptor
    /// that fails), or nil: input that ended this way is not an empty input. Ask after the last input.
    package func readProblem(stdinWasClosed: Bool) -> String? {
        guard let reader else { return nil }
        if stdinWasClosed { return "it is closed" }
        guard let error = reader.readError else { return nil }
        return error == EISDIR ? "it is a directory" : String(cString: strerror(error))
    }

    /// False when the next input may have to wait for stdin (nothing complete is buffered).
    package var hasBufferedLine: Bool { reader?.hasBufferedLine ?? true }

    package func next() -> String? {
        if arguments != nil { return arguments!.next() }
        while let line = reader!.next() {
            switch line {
            case .line(let text, let number):
                let trimmed = text.trimmingSpaces(newlines: true)
                if !trimmed.isEmpty {
                    lineNumber = number
                    return trimmed
                }
            case .tooLong(let number, let length):
                skipped += 1
                if placeholders {
                    // NUL first: no line a command accepts starts with it.
                    let placeholder = "\u{0}stdin line \(number)"
                    overlong[placeholder] = (number, "\(length) bytes, over the \(reader!.maximumLineBytes)-byte limit; not read")
                    lineNumber = number
                    return placeholder
                }
                report(tooLong?(number, length)
                    ?? "warning: stdin line \(number): \(length) bytes, over the \(reader!.maximumLineBytes)-byte limit; skipped")
            }
        }
        return nil
    }

    /// Why `input` cannot be used: `line-too-long` for the placeholder of an over-long line
    /// (asked once per placeholder), `invalid-url` for text that is not an absolute URL
    /// (`URLInput.problem`), or nil.
    /// The `line-too-long` problem of a placeholder input (an over-long line), or nil: for
    /// commands whose inputs are not URLs.
    package func tooLong(_ input: String) -> (code: ErrorCode, message: String)? {
        overlong.removeValue(forKey: input).map { (.lineTooLong, $0.message) }
    }

    package func problem(_ input: String) -> (code: ErrorCode, message: String)? {
        if let entry = overlong.removeValue(forKey: input) { return (.lineTooLong, entry.message) }
        return URLInput.problem(input).map { (.invalidURL, $0) }
    }

    /// The JSON members that name `input` in an answer: `"input": TEXT`, or for an over-long
    /// line (whose text was never kept) `"input": null, "line": N`.
    package static func inputMembers(_ input: String, key: String = "input") -> [(String, JSONValue)] {
        if input.hasPrefix("\u{0}stdin line "), let n = Int(input.dropFirst(12)) { return [(key, .null), ("line", .int(n))] }
        return [(key, .string(input))]
    }

    /// The answer to an input that could not be used: its ``inputMembers(_:key:)``, then
    /// `members`, then `"error": {"code", "message"}`.
    package static func refusal(_ input: String, _ problem: (code: ErrorCode, message: String), key: String = "input",
                                members: [(String, JSONValue)] = []) -> JSONValue {
        .object(inputMembers(input, key: key) + members + [("error", .object([("code", .string(problem.code.name)), ("message", .string(problem.message))]))])
    }

    /// `input` as a person reads it: the text escaped, or `stdin line N` for an over-long line.
    package static func shown(_ input: String) -> String {
        if input.hasPrefix("\u{0}stdin line "), Int(input.dropFirst(12)) != nil { return String(input.dropFirst()) }
        return input.terminalEscaped
    }

    /// Up to `count` inputs: at least one (none only at the end), and no more than can be had
    /// without waiting for more input, so that a slow producer (`tail -f … |`) sees each result
    /// as soon as its line arrives.
    package func next(_ count: Int) -> [String] {
        var out: [String] = []
        while out.count < count {
            if !out.isEmpty, let reader, !reader.hasBufferedLine { break }
            guard let input = next() else { break }
            out.append(input)
        }
        return out
    }

    /// Answers every input in order, writing each answer's lines as it comes: an input
    /// ``problem(_:)`` refuses gets `refused`'s lines, the others `answer`'s. Returns how many
    /// inputs were refused or failed (`answer`'s `failed`), for the exit status.
    package func answerEach(refused: (String, (code: ErrorCode, message: String)) -> [String],
                            answer: (String) -> (lines: [String], failed: Bool), write: ([String]) -> Void) -> Int {
        var failures = 0
        for input in self {
            if let problem = problem(input) {
                failures += 1
                write(refused(input, problem))
                continue
            }
            let (lines, failed) = answer(input)
            if failed { failures += 1 }
            write(lines)
        }
        return failures
    }
}
