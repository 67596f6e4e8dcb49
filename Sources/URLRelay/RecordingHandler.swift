import SwitchyardCore
import Foundation

/// A handler that appends each request's record to a file (fsynced) instead of opening it, and
/// recognises a request delivered again after a crash by its id, so each is recorded once.
/// `relay watch --record FILE` uses it; the crash test reads the file.
public final class RecordingHandler: Sendable {
    /// The file records are appended to, one JSON line per request.
    public let path: String
    private let seen: Locked<Set<UUID>>
    private let log: @Sendable (String) -> Void

    /// Records into `path`, remembering the ids already in it; `log` gets a line for each
    /// repeated delivery and failed write. Throws when a torn last line cannot be ended.
    public init(path: String, log: @escaping @Sendable (String) -> Void = { _ in }) throws(RelayError) {
        self.path = path
        self.log = log
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        // Opened for appending now (made when missing), so a file that cannot be written stops the
        // watcher before any request is taken; a SIGKILL mid-append leaves a torn last line,
        // ended here so the next record starts clean.
        try FileSystem.appendDurably(path, !text.isEmpty && !text.hasSuffix("\n") ? "\n" : "")
        seen = Locked(Set(text.split(separator: "\n").compactMap { try? RelayRequest(record: Array($0.utf8)).id }))
    }

    /// Records `request` (true acknowledges it); false when the write failed.
    public func record(_ request: RelayRequest) -> Bool {
        seen.withLock { seen in
            let id = request.id.uuidString.lowercased()
            if seen.contains(request.id) {
                log("\(id) was delivered again after a crash; already recorded, acknowledging")
                return true
            }
            do { try DurableFile.append(path, request.record) } catch {
                log("cannot record \(id): \(error)")
                return false
            }
            seen.insert(request.id)
            return true
        }
    }
}
