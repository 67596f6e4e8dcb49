import Foundation
#if canImport(Glibc)
import Glibc
import CSpawn
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process for tests, with the part of Foundation's `Process` interface the suites use,
/// started with `posix_spawn`: on Linux, `Process.run` reads /proc/self/fd to find what to close
/// and can overrun its buffer when many descriptors are open. Here the child closes everything
/// above 2 with `closefrom` (Linux), and its signals are reset to their defaults and unblocked.
public final class ChildProcess: @unchecked Sendable {
    /// How the child ended.
    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    /// The program to run (no PATH search: use `/usr/bin/env` for that).
    public var executableURL: URL?
    /// The arguments after the program's name.
    public var arguments: [String] = []
    /// The whole environment of the child; nil inherits this process's.
    public var environment: [String: String]?
    /// The child's working directory; nil inherits this process's.
    public var currentDirectoryURL: URL?
    /// A `FileHandle` or a `Pipe` (its reading end is the child's stdin); nil inherits.
    public var standardInput: Any?
    /// A `FileHandle` or a `Pipe` (its writing end is the child's stdout); nil inherits.
    public var standardOutput: Any?
    /// A `FileHandle` or a `Pipe` (its writing end is the child's stderr); nil inherits.
    public var standardError: Any?

    private let lock = NSLock()
    private var pid: pid_t = 0
    private var rawStatus: Int32?

    /// A process to configure and then `run()`.
    public init() {}

    /// The child's process id (0 before `run()`).
    public var processIdentifier: Int32 { lock.withLock { pid } }

    /// Starts the child. The parent's copies of the child's pipe ends are closed afterwards, as
    /// `Process` does, so that reading a child's output ends when the child exits.
    public func run() throws {
        guard let executableURL else { throw POSIXError(.ENOENT) }
        let stdin = Self.descriptor(standardInput, reading: true) ?? 0
        let stdout = Self.descriptor(standardOutput, reading: false) ?? 1
        let stderr = Self.descriptor(standardError, reading: false) ?? 2
        let started = try Self.spawn(executableURL.path, arguments, environment: environment ?? ProcessInfo.processInfo.environment,
                                     directory: currentDirectoryURL?.path, stdin: stdin, stdout: stdout, stderr: stderr)
        lock.withLock { pid = started }
        if let pipe = standardInput as? Pipe { try? pipe.fileHandleForReading.close() }
        if let pipe = standardOutput as? Pipe { try? pipe.fileHandleForWriting.close() }
        if let pipe = standardError as? Pipe, standardError as AnyObject !== standardOutput as AnyObject {
            try? pipe.fileHandleForWriting.close()
        }
    }

    /// Whether the child has not ended yet (it is reaped as soon as it has).
    public var isRunning: Bool {
        lock.withLock {
            guard pid != 0, rawStatus == nil else { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { rawStatus = status }
            return result == 0
        }
    }

    /// Sends SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// Sends `number` to the child, unless it has already been reaped.
    public func signal(_ number: Int32) {
        lock.withLock {
            if pid != 0 && rawStatus == nil { _ = kill(pid, number) }
        }
    }

    /// Blocks until the child has ended.
    public func waitUntilExit() {
        while isRunning { usleep(5_000) }
    }

    /// The exit status, or the number of the signal that ended the child (as `Process` gives it).
    public var terminationStatus: Int32 {
        let status = lock.withLock { rawStatus } ?? 0
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }

    /// Whether the child exited or was ended by a signal.
    public var terminationReason: TerminationReason {
        ((lock.withLock { rawStatus } ?? 0) & 0x7f) == 0 ? .exit : .uncaughtSignal
    }

    private static func descriptor(_ stream: Any?, reading: Bool) -> Int32? {
        switch stream {
        case let pipe as Pipe: return reading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
        case let handle as FileHandle: return handle.fileDescriptor
        default: return nil
        }
    }

    /// Starts `path` with posix_spawn and returns its process id; see the type's documentation.
    public static func spawn(_ path: String, _ arguments: [String], environment: [String: String], directory: String?,
                             stdin: Int32, stdout: Int32, stderr: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        #if os(Linux)
        switchyard_spawn_add_closefrom(&actions, 3)
        if let directory { switchyard_spawn_add_chdir(&actions, directory) }
        #else
        if let directory { _ = posix_spawn_file_actions_addchdir_np(&actions, directory) }
        #endif
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid = pid_t()
        let rc = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        return pid
    }

    /// Waits for `pid`: its exit status, or the number of the signal that ended it.
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : signal
    }
}
