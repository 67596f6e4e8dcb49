import ArgumentParser
import Foundation
import LinkRules
import SwitchyardNetwork
import SwitchyardCore
import URLRelay

/// Writing to stdout/stderr with explicit flushing, so that batch output streams line by line.
enum Output {
    static func line(_ text: String) {
        standardOutput(Data((text + "\n").utf8))
    }

    /// Writes to stdout. When the reader has gone (`… | head`) it stops quietly with status 141
    /// (128 + SIGPIPE, as a shell reports it); any other failure (a full disk, an I/O error) is
    /// said on stderr and ends the command with status 2, so no output is lost silently.
    static func standardOutput(_ data: Data) {
        guard let code = data.withUnsafeBytes({ DurableFile.writeAll(descriptor: 1, $0) }) else { return }
        if code == DurableFile.brokenPipe { exit(141) }
        error("error: cannot write to standard output: \(DurableFile.reason(code))")
        exit(2)
    }

    /// Writes to stderr; a closed stderr is ignored (there is nowhere left to say anything).
    static func standardError(_ data: Data) {
        try? FileHandle.standardError.write(contentsOf: data)
    }

    /// `text` for one line of human-readable output: each control character (C0, DEL, C1) and
    /// each bidirectional or line-separator format character is written as `\u{1B}`, so nothing
    /// read from a manifest, a script or a URL can move the cursor, retitle the terminal, forge
    /// another line or make a link read differently.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: \.isUnsafeToDisplay) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.isUnsafeToDisplay { out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// When `error` says why the server could not listen, says it with the address (and `hint`
    /// when the port is taken) and exits with 2: an address it cannot use is bad input.
    static func failIfCannotListen(_ error: any Error, address: String, hint: String) {
        guard let failure = ListenFailure(error) else { return }
        Output.error("error: cannot listen on \(address): \(failure.reason)\(failure == .addressInUse ? "; " + hint : "")")
        Switchyard.exit(withError: ExitCode(2))
    }

    /// Several lines in one write.
    static func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        standardOutput(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// A message on stderr. Whatever it quotes (a file's text, a parser's context), no control
    /// or deceptive format character reaches the terminal raw; its own line breaks stay.
    static func error(_ text: String) {
        let safe = text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }.joined(separator: "\n")
        standardError(Data((safe + "\n").utf8))
    }

    /// The user's state directory: $XDG_STATE_HOME, or $HOME/.local/state.
    static var stateDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        // The XDG base directory rules: a relative XDG_STATE_HOME is invalid and ignored (it
        // would put the nonces and the inbox wherever the command happens to run).
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state }
        // A relative HOME would make the nonce file and the inbox depend on the working
        // directory (a replay accepted again in another one): the account's own home instead.
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? FileManager.default.homeDirectory(forUser: NSUserName())?.path.nilIfRelative
            ?? "/"
        return (home == "/" ? "" : home) + "/.local/state"
    }

    /// Writes `bytes` to the file an `-o` option names (`-` is stdout; see
    /// `DurableFile.writeOutput`), or exits with status 2 and the reason.
    static func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        if path == "-" { return standardOutput(Data(bytes)) }
        do { try DurableFile.writeOutput(path, bytes) } catch {
            Output.error("error: \(error.message)")
            throw ExitCode(2)
        }
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// True when stdin was closed when the process started (see `occupyClosedStandardDescriptors`).
    nonisolated(unsafe) private(set) static var stdinWasClosed = false

    /// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed, before anything else
    /// opens a file; notes whether stdin was one of them.
    static func occupyClosedStandardDescriptors() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            if fd == 0 { stdinWasClosed = true }
            // open gives the lowest free number: this one, unless a lower one was closed too
            // (then it is moved into place).
            if opened >= 0 && opened != fd {
                _ = dup2(opened, fd)
                close(opened)
            }
        }
    }

    /// The bytes of `path` (pipes such as `<(…)` and /dev/stdin work), or exit status 2 with the
    /// reason: not found, permission denied, a directory, or over `maximumBytes` (reading stops
    /// there, the rest is never loaded).
    static func readFile(_ path: String, maximumBytes: Int = 64 << 20) throws -> [UInt8] {
        do { return try DurableFile.read(path, maximumBytes: maximumBytes) } catch {
            Output.error("error: \(error.message)")
            throw ExitCode(2)
        }
    }

    /// At most `limit` bytes of the file; `complete` is false when there was more (nothing past
    /// the limit is read). Errors as `readFile`.
    static func readFile(_ path: String, upTo limit: Int) throws -> (bytes: [UInt8], complete: Bool) {
        do { return try DurableFile.read(path, upTo: limit) } catch {
            Output.error("error: \(error.message)")
            throw ExitCode(2)
        }
    }

    /// Inputs from the arguments, or — when there are none — from stdin, one per line, lazily.
    /// `tooLong(number, length)` says what an over-long line means to the command (default: a
    /// warning that it was skipped).
    static func inputs(_ arguments: [String], maximumLineBytes: Int = 64 << 10, placeholders: Bool = false,
                       tooLong: ((_ number: Int, _ length: Int) -> String)? = nil) -> InputLines {
        InputLines(arguments, maximumLineBytes: maximumLineBytes, placeholders: placeholders, tooLong: tooLong)
    }
}

/// Command inputs: the arguments, or stdin's lines (trimmed; blank and whitespace-only lines are
/// skipped and give no output line, as each command's help says) read with
/// bounded memory. A line over the cap is never kept in memory; `skipped` counts them so the
/// command can exit with 1. With `placeholders` (the batch commands, whose output lines match
/// their input lines) such a line is an input of its own that `problem(_:)` answers with
/// `line-too-long`, so the command still writes its line; otherwise it is reported on stderr
/// with its number and skipped.
final class InputLines: Sequence, IteratorProtocol {
    private var arguments: IndexingIterator<[String]>?
    private var reader: LineReader?
    private(set) var skipped = 0
    /// The stdin line number of the input `next()` returned last (nil for arguments).
    private(set) var lineNumber: Int?
    private let tooLong: ((Int, Int) -> String)?
    private let placeholders: Bool
    /// The placeholder inputs handed out for over-long lines and not yet asked about.
    private var overlong: [String: (line: Int, message: String)] = [:]

    init(_ arguments: [String], maximumLineBytes: Int = 64 << 10, placeholders: Bool = false, tooLong: ((Int, Int) -> String)? = nil) {
        self.tooLong = tooLong
        self.placeholders = placeholders
        if arguments.isEmpty {
            reader = LineReader(fileDescriptor: 0, maximumLineBytes: maximumLineBytes)
        } else {
            self.arguments = arguments.makeIterator()
        }
    }

    /// True when the inputs come from stdin.
    var fromStdin: Bool { reader != nil }

    /// Ends a command whose stdin could not be read (a directory, a closed descriptor) with
    /// status 2 and the reason: such input is not an empty input. Call it after the last input.
    func finish() throws {
        guard let reader else { return }
        let reason: String
        if Output.stdinWasClosed {
            reason = "it is closed"
        } else if let error = reader.readError {
            reason = error == EISDIR ? "it is a directory" : String(cString: strerror(error))
        } else {
            return
        }
        Output.error("error: cannot read stdin: \(reason)")
        throw ExitCode(2)
    }

    /// False when the next input may have to wait for stdin (nothing complete is buffered).
    var hasBufferedLine: Bool { reader?.hasBufferedLine ?? true }

    func next() -> String? {
        if arguments != nil { return arguments!.next() }
        while let line = reader!.next() {
            switch line {
            case .line(let text, let number):
                let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
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
                Output.error(tooLong?(number, length)
                    ?? "warning: stdin line \(number): \(length) bytes, over the \(reader!.maximumLineBytes)-byte limit; skipped")
            }
        }
        return nil
    }

    /// Why `input` cannot be used: `line-too-long` for the placeholder of an over-long line
    /// (asked once per placeholder), `invalid-url` for text that is not an absolute URL
    /// (`URLInput.problem`), or nil.
    func problem(_ input: String) -> (code: ErrorCode, message: String)? {
        if let entry = overlong.removeValue(forKey: input) { return (.lineTooLong, entry.message) }
        return URLInput.problem(input).map { (.invalidURL, $0) }
    }

    /// The JSON members that name `input` in an answer: `"input": TEXT`, or for an over-long
    /// line (whose text was never kept) `"input": null, "line": N`.
    static func inputMembers(_ input: String, key: String = "input") -> [(String, JSONValue)] {
        if input.hasPrefix("\u{0}stdin line "), let n = Int(input.dropFirst(12)) { return [(key, .null), ("line", .int(n))] }
        return [(key, .string(input))]
    }

    /// `input` as a person reads it: the text escaped, or `stdin line N` for an over-long line.
    static func shown(_ input: String) -> String {
        if input.hasPrefix("\u{0}stdin line "), Int(input.dropFirst(12)) != nil { return String(input.dropFirst()) }
        return Output.escaped(input)
    }

    /// Up to `count` inputs: at least one (none only at the end), and no more than can be had
    /// without waiting for more input, so that a slow producer (`tail -f … |`) sees each result
    /// as soon as its line arrives.
    func next(_ count: Int) -> [String] {
        var out: [String] = []
        while out.count < count {
            if !out.isEmpty, let reader, !reader.hasBufferedLine { break }
            guard let input = next() else { break }
            out.append(input)
        }
        return out
    }
}

/// The stdin line limit of the batch commands (`resolve`, `unwrap`, `route`).
struct LineLimitOption: ParsableArguments {
    // `.unconditional`: "-5" is this option's (out of range) value, not an unknown option.
    @Option(parsing: .unconditional, help: "The longest stdin line, in bytes; a longer one is not kept in memory and gets a line-too-long error line in its place.")
    var maxLineBytes = 64 << 10

    func validate() throws {
        if !(16...(64 << 20)).contains(maxLineBytes) { throw ValidationError("--max-line-bytes must be from 16 to 67108864") }
    }
}

/// Options shared by the commands that load a manifest.
struct ManifestOption: ParsableArguments {
    @Option(name: .long, help: "An Opener-format manifest (default: Switchyard's own rule set).")
    var manifest: String?

    @Flag(help: "Refuse a manifest with entries that cannot be used, instead of skipping them with a warning.")
    var strict = false

    /// Loads the manifest. Skipped entries are listed on stderr with their JSON path, then a
    /// summary line; with --strict they make the command fail with status 1. An unreadable
    /// manifest exits with 2.
    func load() throws -> Manifest {
        let loaded: Manifest
        do {
            // Read with the same 64 MB cap as `manifest lint`, so `--manifest /dev/zero` stops.
            if let manifest { loaded = try Manifest(data: try Output.readFile(manifest)) } else { loaded = try Manifest.defaultRules() }
        } catch let exit as ExitCode {
            throw exit  // readFile said why already (not found, permission denied, …)
        } catch {
            Output.error("error: \(manifest ?? "default rules"): \(error)")
            throw ExitCode(2)
        }
        ManifestOption.report(loaded, source: manifest ?? "default rules", strict: strict)
        if strict && !loaded.skipped.isEmpty { throw ExitCode(1) }
        return loaded
    }

    /// Prints each skipped entry (its location and why) and a summary to stderr, and how many
    /// values of the wrong type were ignored (`manifest lint` lists them).
    static func report(_ manifest: Manifest, source: String, strict: Bool) {
        if !manifest.warnings.isEmpty {
            let n = manifest.warnings.count
            Output.error(Output.escaped("warning: \(source): \(n) value\(n == 1 ? "" : "s") ignored or defaulted (first: \(manifest.warnings[0].location): \(manifest.warnings[0].message)); `switchyard manifest lint` lists \(n == 1 ? "it" : "them all")"))
        }
        guard !manifest.skipped.isEmpty else { return }
        let label = strict ? "error" : "warning"
        for d in manifest.skipped { Output.error(Output.escaped("\(label): \(source): \(d.location): \(d.message) [\(d.code)]")) }
        let n = manifest.skipped.count
        Output.error("\(label): \(source): \(n) entr\(n == 1 ? "y" : "ies") skipped; \(manifest.actions.count) actions, "
            + "\(manifest.browsers.count) browsers, \(manifest.redirects.count) redirect rules loaded"
            + (strict ? " (--strict refuses the manifest)" : ""))
    }
}

/// `--script-isolation`: where `script2` sources run.
struct ScriptIsolationOption: ParsableArguments {
    enum Mode: String, ExpressibleByArgument, CaseIterable { case process, none }

    @Option(help: ArgumentHelp(
        "Where scripts run: 'process' (worker processes, ended when a script overruns its time or memory) or 'none' (this process).",
        valueName: "process|none"))
    var scriptIsolation: Mode = .process

    var isolation: ScriptIsolation { scriptIsolation == .process ? ScriptWorkerCommand.isolation : .inProcess }
}

private extension String {
    /// Nil unless an absolute path.
    var nilIfRelative: String? { hasPrefix("/") ? self : nil }
}
