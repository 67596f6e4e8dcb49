import ArgumentParser
import Foundation
import LinkRules
import SwitchyardCore
import SwitchyardNetwork

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

    /// Several lines in one write.
    static func write(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        standardOutput(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// A message on stderr. Whatever it quotes (a file's text, a parser's context), no control
    /// or deceptive format character reaches the terminal raw; its own line breaks stay.
    static func error(_ text: String) {
        let safe = text.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).terminalEscaped }.joined(separator: "\n")
        standardError(Data((safe + "\n").utf8))
    }

    /// `body`'s result; when it throws, the error is said on stderr after "error: " and the
    /// command ends with `status` (2 by default: input that cannot be read or used).
    static func orExit<T>(_ status: Int32 = 2, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let exit as ExitCode { throw exit } catch {
            Output.error("error: \(error)")
            throw ExitCode(status)
        }
    }

    /// `orExit` for asynchronous work.
    static func orExit<T>(_ status: Int32 = 2, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let exit as ExitCode { throw exit } catch {
            Output.error("error: \(error)")
            throw ExitCode(status)
        }
    }

    /// Writes `bytes` to the file an `-o` option names (`-` is stdout; see
    /// `DurableFile.writeOutput`), or exits with status 2 and the reason. Written to a file,
    /// `note` (what was written) is said on stderr.
    static func writeFile(_ path: String, _ bytes: [UInt8], note: @autoclosure () -> String? = nil) throws {
        if path == "-" { return standardOutput(Data(bytes)) }
        try orExit { try DurableFile.writeOutput(path, bytes) }
        if let note = note() { error(note) }
    }

    /// A command's result: one compact JSON line with `json`, else `lines` escaped for the
    /// terminal (they may quote a file, a URL or a server's text).
    static func report(json: Bool, _ value: @autoclosure () throws -> JSONValue, lines: @autoclosure () -> [String]) rethrows {
        if json { line(JSONWriter.compact(try value())) } else { write(lines().map(\.terminalEscaped)) }
    }

    /// Says why each of `urls` that is no absolute URL cannot be decided, and exits with 1 when
    /// one is not (nothing is decided then).
    static func refuseNonURLs(_ urls: [String]) throws {
        let problems = urls.compactMap { url in URLInput.problem(url).map { "error: \(url.terminalEscaped): \($0)" } }
        guard problems.isEmpty else {
            problems.forEach { error($0) }
            throw ExitCode(1)
        }
    }

    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// True when stdin was closed when the process started (`StandardDescriptors.occupyClosed`, run first in main.swift).
    nonisolated(unsafe) static var stdinWasClosed = false

    /// The bytes of `path` (pipes such as `<(…)` and /dev/stdin work), or exit status 2 with the
    /// reason: not found, permission denied, a directory, or over `maximumBytes` (reading stops
    /// there, the rest is never loaded).
    static func readFile(_ path: String, maximumBytes: Int = 64 << 20) throws -> [UInt8] {
        try orExit { try DurableFile.read(path, maximumBytes: maximumBytes) }
    }

    /// Inputs from the arguments, or — when there are none — from stdin, one per line, lazily;
    /// what is said of an over-long line goes to stderr. `tooLong(number, length)` says what such
    /// a line means to the command (default: a warning that it was skipped).
    static func inputs(_ arguments: [String], maximumLineBytes: Int = 64 << 10, placeholders: Bool = false,
                       tooLong: ((_ number: Int, _ length: Int) -> String)? = nil) -> InputLines {
        InputLines(arguments, maximumLineBytes: maximumLineBytes, placeholders: placeholders, tooLong: tooLong, report: { Output.error($0) })
    }
}

extension InputLines {
    /// Ends a command whose stdin could not be read (closed, a directory) with status 2 and the
    /// reason: such input is not an empty input. Call it after the last input.
    func finish() throws {
        guard let reason = readProblem(stdinWasClosed: Output.stdinWasClosed) else { return }
        Output.error("error: cannot read stdin: \(reason)")
        throw ExitCode(2)
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
    func load() throws -> Manifest { try Self.load(manifest, strict: strict) }

    /// Loads the manifest at `path` (nil: the default rules), read with the 64 MB cap (so
    /// `/dev/zero` stops); what loading left out is said on stderr (`Manifest.loadingReport`).
    /// An unreadable manifest exits with 2; with `strict`, skipped entries exit with 1.
    static func load(_ path: String?, strict: Bool) throws -> Manifest {
        guard let path else { return try parse(nil, source: "default rules", strict: strict) }
        return try parse(try Output.readFile(path), source: path, strict: strict)
    }

    /// The manifest in `bytes` (nil: the default rules), as ``load(_:strict:)`` reads it.
    static func parse(_ bytes: [UInt8]?, source: String, strict: Bool) throws -> Manifest {
        let loaded: Manifest
        do { loaded = try bytes.map { try Manifest(data: $0) } ?? Manifest.defaultRules() } catch {
            Output.error("error: \(source): \(error)")
            throw ExitCode(2)
        }
        for line in loaded.loadingReport(source: source, strict: strict) { Output.error(line) }
        if strict && !loaded.skipped.isEmpty { throw ExitCode(1) }
        return loaded
    }
}

/// `--script-isolation`: where `script2` sources run.
struct ScriptIsolationOption: ParsableArguments {
    enum Mode: String, ExpressibleByArgument, CaseIterable { case process, none }

    @Option(help: ArgumentHelp(
        "Where scripts run: 'process' (worker processes, ended when a script overruns its time or memory) or 'none' (this process, where a promise-job loop or one huge allocation is not stopped).",
        valueName: "process|none"))
    var scriptIsolation: Mode = .process

    var isolation: ScriptIsolation { scriptIsolation == .process ? ScriptWorkerCommand.isolation : .inProcess }
}
