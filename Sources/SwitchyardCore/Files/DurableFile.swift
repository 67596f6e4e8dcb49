#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File operations that survive a crash or a power cut at any point: new files are synced
/// before they are renamed into place, renames and removals are made durable by syncing their
/// directory, appends are synced before they return. The relay inbox, the x-callback-url
/// request store and the seen-nonce list are built on these.
///
/// ```swift
/// try DurableFile.write("/var/lib/app/state.json", Array(json.utf8))   // old or new, never half
/// try DurableFile.append("/var/lib/app/journal", id + "\n")
/// ```
///
/// The few calls that differ between Linux and Apple platforms (F_FULLFSYNC, O_DIRECTORY) come
/// from `FilePlatform` in Platform+Linux.swift and Platform+Apple.swift.
public enum DurableFile {
    /// Writes `bytes` to `path` atomically and durably: a temporary file beside it is written and
    /// synced, renamed over `path`, and the directory synced. Readers see the old file or the new
    /// one, never a part. The new file has permissions `mode` (default 0644, less the umask).
    public static func write(_ path: String, _ bytes: [UInt8], mode: mode_t? = nil) throws(FileError) {
        let staging = path + ".tmp"
        try remove(staging)
        do throws(FileError) {
            try create(staging, bytes, mode: mode)
            try rename(staging, path)
        } catch {
            // Nothing left behind: a staging file half written (a full disk) or not renamed (a
            // directory in the way).
            try? remove(staging)
            throw error
        }
        try syncDirectory(directory(of: path))
    }

    /// Creates `path` (it must not exist) with `bytes`, and syncs it to disk. Not durable until
    /// its directory is synced (``syncDirectory(_:)``) or it is renamed into place. With `mode`,
    /// the file has exactly those permissions (made owner-only first, so it is never readable by
    /// more); else 0644 less the umask.
    public static func create(_ path: String, _ bytes: [UInt8], mode: mode_t? = nil) throws(FileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode == nil ? 0o644 : 0o600)
        guard fd >= 0 else { throw failure(path, "cannot create") }
        defer { close(fd) }
        if let mode, fchmod(fd, mode) != 0 { throw failure(path, "cannot set its permissions") }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { FilePlatform.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(path, "write failed")
            }
            offset += n
        }
        guard FilePlatform.syncFile(fd) else { throw failure(path, "fsync failed") }
    }

    /// Appends `text` (a line, usually) to `path`, creating it if needed, and syncs it.
    public static func append(_ path: String, _ text: String) throws(FileError) {
        guard !path.isEmpty else { throw FileError(.io, path: path, "an empty path names no file") }
        // Only a regular file of one name is appended to: not through a symbolic link, not to a
        // FIFO (O_NONBLOCK: no wait for a reader), not to a file hard-linked elsewhere (the
        // other name's file would change too).
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        guard fd >= 0 else {
            if errno == ELOOP { throw FileError(.io, path: path, "\(path): a symbolic link (not written)", errno: ELOOP) }
            throw failure(path, "cannot open")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, "cannot stat") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileError(.io, path: path, "\(path): not a regular file (not written)") }
        guard info.st_nlink <= 1 else { throw FileError(.io, path: path, "\(path): it has another hard link (not written: the file under the other name would change too)") }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { FilePlatform.write(fd, $0.baseAddress, $0.count) }
        guard n == bytes.count else { throw failure(path, "append failed") }
        guard FilePlatform.syncFile(fd) else { throw failure(path, "fsync failed") }
    }

    /// Renames `from` to `to`, replacing `to`. Durable once the directory is synced.
    public static func rename(_ from: String, _ to: String) throws(FileError) {
        guard FilePlatform.rename(from, to) == 0 else {
            let code = errno
            throw FileError(.io, path: from, "rename \(from) → \(to): \(reason(code))", errno: code)
        }
    }

    /// Removes `path`; a file that is not there is no error. Durable once the directory is synced.
    public static func remove(_ path: String) throws(FileError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw failure(path, "cannot remove") }
    }

    /// Removes `path` and syncs its directory.
    public static func removeDurably(_ path: String) throws(FileError) {
        try remove(path)
        try syncDirectory(directory(of: path))
    }

    /// Syncs a directory, so that a rename, creation or removal in it survives a crash.
    public static func syncDirectory(_ path: String) throws(FileError) {
        let fd = open(path, O_RDONLY | FilePlatform.directoryFlag | O_CLOEXEC)
        guard fd >= 0 else { throw failure(path, "cannot open directory") }
        defer { close(fd) }
        guard FilePlatform.syncDirectory(fd) else { throw failure(path, "fsync failed") }
    }

    /// Takes an exclusive lock on `path` (created if missing) without waiting: `locked` when
    /// another process holds it. The lock lasts until ``FileLock/unlock()`` or the process ends.
    public static func lock(_ path: String) throws(FileError) -> FileLock {
        // Never through a symbolic link: a link planted at the lock's name would make this
        // process create (or lock) a file of the planter's choosing.
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            if errno == ELOOP { throw FileError(.io, path: path, "\(path): a symbolic link (a lock file is never followed)", errno: ELOOP) }
            throw failure(path, "cannot open")
        }
        var locked = flock(fd, LOCK_EX | LOCK_NB)
        while locked != 0 && errno == EINTR { locked = flock(fd, LOCK_EX | LOCK_NB) }
        guard locked == 0 else {
            let failure = errno
            close(fd)
            guard failure == EWOULDBLOCK else { throw FileError(.io, path: path, "\(path): cannot lock: \(reason(failure))", errno: failure) }
            throw FileError(.locked, path: path, "\(path): another process holds the lock")
        }
        return FileLock(descriptor: fd)
    }

    /// Runs `body` while holding an exclusive lock on `path` (created if missing), waiting for
    /// other processes that hold it.
    public static func withExclusiveLock<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws -> T {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP { throw FileError(.io, path: path, "\(path): a symbolic link (a lock file is never followed)", errno: ELOOP) }
            throw failure(path, "cannot open the lock file")
        }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw failure(path, "cannot lock") }
        }
        return try body()
    }

    /// The bytes of `path` if it is a regular file, nil if there is nothing at `path`. Anything
    /// else — a symbolic link, a directory, a FIFO, a device — is never read: `io`, naming it.
    /// A file larger than `maximumBytes` is not read either (`io`, with its size): what a
    /// stranger can write must not decide how much memory the reader takes.
    public static func readRegularFile(_ path: String, maximumBytes: Int = .max) throws(FileError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw FileError(.io, path: path, "\(path): a symbolic link (not read)", errno: ELOOP) }
            throw failure(path, "cannot open")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, "cannot stat") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let kind = info.st_mode & S_IFMT == S_IFDIR ? "a directory" : info.st_mode & S_IFMT == S_IFIFO ? "a FIFO" : "not a regular file"
            throw FileError(.io, path: path, "\(path): \(kind) (not read)")
        }
        func tooLarge(_ size: Int) -> FileError {
            FileError(.io, path: path, "\(path): \(size) bytes, more than the \(maximumBytes) such a file may hold (not read)")
        }
        if Int(info.st_size) > maximumBytes { throw tooLarge(Int(info.st_size)) }
        return try readAll(fd, path, maximumBytes, tooLarge: tooLarge)  // (it may grow while read)
    }

    /// Everything `fd` gives until its end, or `tooLarge(count)` once more than `maximumBytes` came.
    private static func readAll(_ fd: Int32, _ path: String, _ maximumBytes: Int, tooLarge: (Int) -> FileError) throws(FileError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { readBytes(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(path, "read failed")
            }
            if n == 0 { return bytes }
            bytes += chunk[..<n]
            if bytes.count > maximumBytes { throw tooLarge(bytes.count) }
        }
    }

    /// The bytes of `path` — a file, a pipe or a device — read up to `maximumBytes` and no
    /// further: a larger input (`/dev/zero`) is refused without being loaded. Errors say why in
    /// words a person reads (`no such file`, `permission denied`, `it is a directory`, `larger
    /// than N bytes`).
    public static func read(_ path: String, maximumBytes: Int) throws(FileError) -> [UInt8] {
        let (bytes, complete) = try read(path, upTo: maximumBytes)
        guard complete else { throw FileError(.io, path: path, "cannot read '\(path)': larger than \(maximumBytes) bytes; reading stopped there") }
        return bytes
    }

    /// At most `limit` bytes of `path` (a file, a pipe or a device); `complete` is false when
    /// there was more, none of which is read. Errors as ``read(_:maximumBytes:)``.
    public static func read(_ path: String, upTo limit: Int) throws(FileError) -> (bytes: [UInt8], complete: Bool) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            let why = code == ENOENT ? "no such file" : code == EACCES ? "permission denied" : reason(code)
            throw FileError(.io, path: path, "cannot read '\(path)': \(why)", errno: code)
        }
        defer { close(fd) }
        var info = stat()
        if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw FileError(.io, path: path, "cannot read '\(path)': it is a directory", errno: EISDIR)
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { readBytes(fd, $0.baseAddress, min($0.count, limit + 1 - bytes.count)) }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                throw FileError(.io, path: path, "cannot read '\(path)': \(reason(code))", errno: code)
            }
            if n == 0 { return (bytes, true) }
            bytes += chunk[..<n]
            if bytes.count > limit { return (Array(bytes[..<limit]), false) }
        }
    }

    /// Writes `bytes` to the file an output option names: a FIFO or a device (such as
    /// /dev/stdout) is written through; a symbolic link writes the file it names (made when
    /// missing); a regular file is replaced whole (``write(_:_:mode:)``) when this user may write
    /// it, keeping its permissions. A directory is refused.
    /// Errors read `cannot write 'PATH': reason`.
    public static func writeOutput(_ path: String, _ bytes: [UInt8]) throws(FileError) {
        do throws(FileError) {
            guard !path.isEmpty else { throw FileError(.io, path: path, "an empty path names no file (give a file, or - for standard output)") }
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else {
                let target = target(of: path)
                var existing = stat()
                guard stat(target, &existing) == 0 else { return try write(target, bytes) }
                // A file is replaced only where it could be written in place, and keeps who may read it.
                guard access(target, W_OK) == 0 else { throw FileError(.io, path: path, reason(errno), errno: errno) }
                return try write(target, bytes, mode: existing.st_mode & 0o7777)
            }
            guard info.st_mode & S_IFMT != S_IFDIR else { throw FileError(.io, path: path, "it is a directory", errno: EISDIR) }
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw FileError(.io, path: path, reason(errno), errno: errno) }
            defer { close(fd) }
            if let code = bytes.withUnsafeBytes({ writeAll(descriptor: fd, $0) }) { throw FileError(.io, path: path, reason(code), errno: code) }
        } catch {
            throw FileError(error.code, path: path, "cannot write '\(path)': \(error.message)", errno: error.errno)
        }
    }

    /// The file a chain of symbolic links starting at `path` ends at (which may not exist yet);
    /// `path` itself when it is not a link.
    static func target(of path: String) -> String {
        var target = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: 4096)
            let n = readlink(target, &buffer, buffer.count)
            guard n > 0 else { break }
            let destination = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let parent = target.lastIndex(of: "/").map { String(target[...$0]) } ?? ""
            target = destination.hasPrefix("/") ? destination : parent + destination
        }
        return target
    }

    /// The directory part of `path` (`.` for a bare name).
    static func directory(of path: String) -> String {
        let parent = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return parent.isEmpty ? (path.hasPrefix("/") ? "/" : ".") : parent
    }

    /// The system's words for an error number.
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// Writes all of `bytes` to the open file descriptor `descriptor` (retrying interrupted and
    /// partial writes); nil when done, otherwise the `errno` of the write that failed.
    public static func writeAll(descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard var start = bytes.baseAddress else { return nil }
        var left = bytes.count
        while left > 0 {
            let written = FilePlatform.write(descriptor, start, left)
            if written >= 0 {
                start += written
                left -= written
            } else if errno != EINTR && errno != EAGAIN {
                return errno
            }
        }
        return nil
    }

    /// The `errno` of a write to a pipe whose reader has gone.
    public static let brokenPipe = EPIPE

    private static func failure(_ path: String, _ what: String) -> FileError {
        let code = errno
        return FileError(.io, path: path, "\(path): \(what): \(reason(code))", errno: code)
    }
}

/// An exclusive lock on a file, from ``DurableFile/lock(_:)``: held until ``unlock()`` or
/// until the process ends (the kernel releases it then).
public struct FileLock: Sendable {
    let descriptor: Int32

    /// Releases the lock.
    public func unlock() { close(descriptor) }
}

/// `read(2)`, named apart from ``DurableFile/read(_:maximumBytes:)``.
private func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
