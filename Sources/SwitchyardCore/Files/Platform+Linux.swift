#if canImport(Glibc)
import Glibc

/// What differs on Linux: plain fsync, O_DIRECTORY, Glibc's rename and write.
enum FilePlatform {
    static func syncFile(_ fd: Int32) -> Bool { fsync(fd) == 0 }
    static func syncDirectory(_ fd: Int32) -> Bool { fsync(fd) == 0 }
    static let directoryFlag = O_DIRECTORY
    static func rename(_ from: String, _ to: String) -> Int32 { Glibc.rename(from, to) }
    static func write(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int { Glibc.write(fd, bytes, count) }
}
#endif
