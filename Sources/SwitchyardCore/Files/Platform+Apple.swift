#if canImport(Darwin)
import Darwin

/// What differs on Apple platforms: F_FULLFSYNC, best-effort directory sync, Darwin's calls.
enum FilePlatform {
    /// F_FULLFSYNC reaches the platter; plain fsync when the file system refuses it.
    static func syncFile(_ fd: Int32) -> Bool { fcntl(fd, F_FULLFSYNC) == 0 || fsync(fd) == 0 }
    /// Best effort: some Apple file systems refuse fsync on a directory.
    static func syncDirectory(_ fd: Int32) -> Bool { _ = fsync(fd); return true }
    static let directoryFlag: Int32 = 0
    static func rename(_ from: String, _ to: String) -> Int32 { Darwin.rename(from, to) }
    static func write(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { Darwin.write(fd, bytes, count) }
}
#endif
