import SwitchyardCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The durable file calls the inbox makes (the core's ``DurableFile``), with their failures
/// as ``RelayError``s that keep the file error as their cause.
enum FileSystem {
    static func errorText() -> String { DurableFile.reason(errno) }

    private static func relay<T>(_ body: () throws(FileError) -> T) throws(RelayError) -> T {
        do { return try body() } catch { throw RelayError(error) }
    }

    /// Writes `bytes` to a new file and syncs it to disk.
    static func writeDurably(_ path: String, _ bytes: [UInt8]) throws(RelayError) { try relay { () throws(FileError) in try DurableFile.create(path, bytes) } }
    /// Syncs a directory, so that a rename or unlink in it is durable.
    static func syncDirectory(_ path: String) throws(RelayError) { try relay { () throws(FileError) in try DurableFile.syncDirectory(path) } }
    static func rename(_ from: String, _ to: String) throws(RelayError) { try relay { () throws(FileError) in try DurableFile.rename(from, to) } }
    static func remove(_ path: String) throws(RelayError) { try relay { () throws(FileError) in try DurableFile.remove(path) } }
    /// Appends a line and syncs it (the drainer's journal).
    static func appendDurably(_ path: String, _ line: String) throws(RelayError) { try relay { () throws(FileError) in try DurableFile.append(path, line) } }

    /// An exclusive lock held until it is unlocked (or the process dies, which the kernel
    /// handles). A lock found held is tried again for up to 250 ms before it is said to be
    /// another drainer's: a child this process is starting holds a copy of every descriptor
    /// until it executes its program, the lock's too, so a lock just released can look held for
    /// a moment. Call it on a thread that may wait (the inbox's I/O queue).
    static func lock(_ path: String) throws(RelayError) -> FileLock {
        var tries = 0
        while true {
            do { return try DurableFile.lock(path) } catch {
                guard error.code == .locked else { throw RelayError(error) }
                tries += 1
                guard tries < 25 else { throw RelayError(.locked, "\(path): another drainer holds the inbox", cause: error) }
                usleep(10_000)
            }
        }
    }
}
