import Foundation

/// The test process's own temporary directory: created once under the system's temporary
/// directory, and removed with everything in it when the process exits normally, so a run of
/// the suite leaves nothing behind (copies of the binary, databases, inboxes, configurations).
/// Tests make their files and directories under ``root`` instead of the shared temporary
/// directory; processes the tests start get those paths as arguments.
public enum TestTemporary {
    /// The directory, made at first use.
    public static let root: URL = {
        let base = FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("switchyard-tests.\(getpid()).\(UUID().uuidString.prefix(8))", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            fatalError("cannot make the tests' temporary directory \(url.path): \(error)")
        }
        // Runs after `root` is set, at the process's normal exit.
        atexit { try? FileManager.default.removeItem(at: TestTemporary.root) }
        return url
    }()
}
