#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The standard descriptors a process was started with. One the caller closed (`<&-`, `>&-`)
/// would be the number the next opened file gets: a manifest read as stdin, results written into
/// a database. ``occupyClosed()`` holds each closed one with /dev/null before anything else
/// opens a file; a command that needs stdin then says it was closed.
enum StandardDescriptors {
    /// Opens /dev/null on each of descriptors 0, 1 and 2 that is closed; returns whether stdin
    /// was one of them. Call it first thing in `main`.
    static func occupyClosed() -> Bool {
        var stdinWasClosed = false
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
        return stdinWasClosed
    }
}
