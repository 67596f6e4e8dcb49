import SwitchyardCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory-backed durable queue that several processes share.
///
/// Layout: `requests/` (one record per file, named so that names sort in send order), `tmp/`
/// (records being written), `rejected/` (records that do not decode, that the policy refuses or
/// whose retry budget is spent, each with a `.reason` file when there is one), `journal` (ids of
/// handled requests), `attempts` (one line per failed delivery) and `drain.lock`.
///
/// **Policy.** Every URL goes through the inbox's `OpenPolicy` (`check`) twice: `send` refuses a
/// URL the policy denies (nothing is stored), and a drain moves a stored record that fails it
/// (written by hand, or by a sender with another policy) to `rejected/` with the reason beside
/// it, instead of handing it over. The request's other fields are checked too (`check(_:)`): no
/// control characters in the source or the metadata, and bounded sizes.
///
/// **Retry budget.** A request the handler declines (or fails on) stays first in line and is
/// tried again by the next drain, up to `maxAttempts` failed deliveries (counted durably in
/// `attempts`, so a restarted drainer keeps counting). After the last one it is moved to
/// `rejected/` with a `.reason` naming the attempts and the last failure, and the requests behind
/// it are delivered. Delivered requests still arrive in send order; a rejected request is never
/// delivered after a later one, it is simply skipped.
///
/// **Guarantee.** `send` returns only after the record is fsynced and renamed into `requests/`
/// and the directory is fsynced, so an acknowledged send survives a crash of either side. A
/// drain hands requests to the handler in send order and removes one only after the handler
/// acknowledged it: the id is appended to the journal (fsync), then the file is removed. A
/// request is therefore never lost. It is delivered again only when the drainer dies after the
/// handler started and before the journal write; it then arrives with the same id, so a
/// handler that records ids durably (as the crash test's does) handles it exactly once.
///
/// ```swift
/// let inbox = try Inbox(directory: "/tmp/switchyard-inbox")
/// try inbox.send(RelayRequest(source: "share-extension", url: "plur://group/abc"))
/// let report = try await inbox.drain { request in await open(request.url) }
/// ```
public struct Inbox: Sendable {
    /// The inbox's root directory, without a trailing slash.
    public let directory: String

    /// The inbox a user's commands share: `$SWITCHYARD_INBOX` when set and not empty, else
    /// `switchyard/inbox` in the user's state directory (`StateDirectory`).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["SWITCHYARD_INBOX"].flatMap { $0.isEmpty ? nil : $0 } ?? StateDirectory.path(environment: environment) + "/switchyard/inbox"
    }
    var requests: String { directory + "/requests" }
    var temporary: String { directory + "/tmp" }
    var rejected: String { directory + "/rejected" }
    var journal: String { directory + "/journal" }
    var attempts: String { directory + "/attempts" }
    /// The URL rules applied at send and at drain.
    public let policy: OpenPolicy

    /// Opens the inbox at `directory`, creating it and its `requests/`,
    /// `tmp/` and `rejected/` folders as needed; throws `io` when it cannot.
    /// With `creating: false` (a reader such as a status check) nothing is created: a missing
    /// directory throws `io` saying so, and missing folders read as empty.
    public init(directory: String, policy: OpenPolicy = OpenPolicy(), creating: Bool = true) throws(RelayError) {
        self.init(absolute: Self.absolute(directory), policy: policy)
        guard creating else {
            if let reason = Self.missing(self.directory) {
                guard reason.hasSuffix(" does not exist") else { throw RelayError(.io, "cannot use the inbox at '\(directory)': \(reason)") }
                throw RelayError(.io, "there is no inbox at '\(directory)': \(reason) (it is made by the first relay send or watch)")
            }
            if let link = foreignPart() { throw RelayError(.io, "cannot use '\(directory)' as the inbox: \(link)") }
            return
        }
        // The directory and its parents, one at a time, so that a failure says the system's
        // reason for the very component ("permission denied", "no such file or directory").
        if let reason = Self.makeDirectories(self.directory) {
            throw RelayError(.io, "cannot use '\(directory)' as the inbox: \(reason)")
        }
        for d in [requests, temporary, rejected] {
            if let reason = Self.makeDirectories(d) { throw RelayError(.io, "cannot use '\(directory)' as the inbox: \(reason)") }
        }
        if let link = foreignPart() { throw RelayError(.io, "cannot use '\(directory)' as the inbox: \(link)") }
    }

    /// The inbox at `directory` as it would be opened, neither created nor looked at: where a dry
    /// run says requests would go.
    public static func unopened(directory: String, policy: OpenPolicy = OpenPolicy()) -> Inbox {
        Inbox(absolute: absolute(directory), policy: policy)
    }

    private init(absolute directory: String, policy: OpenPolicy) {
        self.directory = directory
        self.policy = policy
    }

    /// `directory` absolute and without a trailing slash, so that what is said of the inbox
    /// (status, logs, the launcher) names it wherever it is read.
    private static func absolute(_ directory: String) -> String {
        let trimmed = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        return trimmed.hasPrefix("/") || trimmed.isEmpty ? trimmed : FileManager.default.currentDirectoryPath + "/" + trimmed
    }

    /// The inbox's own folder or file that is not what it must be, said so, or nil: a folder
    /// that is a symbolic link or no directory, a `journal` or `attempts` that is a symbolic
    /// link, no regular file (a FIFO, a directory) or one with another hard link. They are read
    /// and written as they are named: a linked `rejected/` would take refused requests wherever
    /// it points, and a journal that cannot be written (it never is through a link) would have
    /// every drain fail after its first delivery, so that the request is delivered again and
    /// again; an attempts file that cannot be written would lose the retry budget.
    func foreignPart() -> String? {
        for (path, folder) in [(requests, true), (temporary, true), (rejected, true), (journal, false), (attempts, false)] {
            var entry = stat()
            guard lstat(path, &entry) == 0 else { continue }  // made when needed
            let type = entry.st_mode & S_IFMT
            if type == S_IFLNK { return "\(path) is a symbolic link; the inbox's folders and files must be its own" }
            if folder, type != S_IFDIR { return "\(path) is not a directory" }
            if !folder, type != S_IFREG { return "\(path) is not a regular file" }
            if !folder, entry.st_nlink > 1 { return "\(path) has another hard link; the inbox's files must be its own" }
        }
        return nil
    }

    /// Why `path` is not an existing directory (the first missing component, one that is not a
    /// directory, or one that may not be searched), or nil; nothing is created.
    static func missing(_ path: String) -> String? { walk(path, creating: false) }

    /// Creates `path` and its missing parents (as `mkdir -p`); nil when done, else why not,
    /// naming the component at fault.
    static func makeDirectories(_ path: String) -> String? { walk(path, creating: true) }

    /// Each component of `path` in turn, made when missing and `creating`; why one will not do.
    private static func walk(_ path: String, creating: Bool) -> String? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            let parent = prefix.isEmpty ? "/" : prefix
            prefix += "/" + component
            switch kind(prefix) {
            case .directory: continue
            case .other: return "\(prefix) is not a directory"
            case .unsearchable:
                // The entry itself can be seen: what may not be searched lies beyond it (a
                // symbolic link into such a directory), not in the parent.
                var entry = stat()
                if lstat(prefix, &entry) == 0 { return "cannot search the way into \(prefix): permission denied" }
                return "cannot search \(parent): permission denied"
            case .failed(let reason): return "\(prefix): \(reason)"
            case .absent:
                guard creating else { return "\(prefix) does not exist" }
                if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                    return "cannot create \(prefix): \(String(cString: strerror(errno)).lowercased())"
                }
            }
        }
        return nil
    }

    private enum Kind { case directory, other, absent, unsearchable, failed(String) }

    /// What is at `path`, by `stat` (symbolic links followed).
    private static func kind(_ path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else {
            switch errno {
            case ENOENT: return .absent
            case EACCES: return .unsearchable
            case ENOTDIR: return .other
            case let code: return .failed(String(cString: strerror(code)).lowercased())
            }
        }
        return info.st_mode & S_IFMT == S_IFDIR ? .directory : .other
    }

    /// Enqueues durably. Returns the file name the request got.
    @discardableResult
    public func send(_ request: RelayRequest) throws(RelayError) -> String {
        try send(batch: [request])
    }

    /// Enqueues several requests with one commit (group commit: one file, one rename, two
    /// fsyncs). All or none arrive; they are delivered in order.
    @discardableResult
    public func send(batch: [RelayRequest]) throws(RelayError) -> String {
        guard let first = batch.first else { throw RelayError(.badRecord, "an empty batch") }
        for request in batch {
            if let reason = check(request) { throw RelayError(.denied, "refused \(request.url.displayExcerpt()): \(reason)") }
        }
        let nanos = UInt64(max(0, first.time.timeIntervalSince1970) * 1_000_000_000)
        let name = String(format: "%020llu", nanos) + "-" + first.id.uuidString.lowercased() + ".json"
        let staging = temporary + "/" + name
        let bytes = Array(batch.map(\.record).joined().utf8)
        guard bytes.count <= Self.maximumCommitBytes else {
            throw RelayError(.denied, "refused a batch of \(batch.count) requests: \(bytes.count) bytes, more than the \(Self.maximumCommitBytes) one commit may hold")
        }
        try FileSystem.writeDurably(staging, bytes)
        try FileSystem.rename(staging, requests + "/" + name)
        try FileSystem.syncDirectory(requests)
        // Wakes a watcher where the file system does not (see InboxWatcher.run).
        DirectoryWatch.post(requests)
        return name
    }

    /// The largest file one commit may write, in bytes (64 MiB: 10,000 requests of a few KiB
    /// each). A larger file in `requests/` is moved to `rejected/` without being read.
    public static let maximumCommitBytes = 64 << 20

    /// The longest `source`, in bytes.
    public static let maximumSourceBytes = 1024
    /// The most metadata a request may carry, keys and values together, in bytes.
    public static let maximumMetadataBytes = 8192

    /// Enqueues a URL per element of `urls` (empty ones skipped), committing `batch` at a time,
    /// as `relay send --stdin` does: a refused URL (``check(_:)``) is told to `refused` with the
    /// reason and never stored; each committed group is told to `committed` once it is durable.
    /// Returns how many were refused.
    public func send(_ urls: some Sequence<String>, source: String, metadata: [String: String], batch: Int,
                     committed: ([RelayRequest]) -> Void, refused: (String, String) -> Void) throws(RelayError) -> Int {
        var refusals = 0
        var pending: [RelayRequest] = []
        for url in urls where !url.isEmpty {
            let request = RelayRequest(source: source, url: url, metadata: metadata)
            if let reason = check(request) {
                refusals += 1
                refused(url, reason)
                continue
            }
            pending.append(request)
            if pending.count >= batch {
                try send(batch: pending)
                committed(pending)
                pending.removeAll()
            }
        }
        if !pending.isEmpty {
            try send(batch: pending)
            committed(pending)
        }
        return refusals
    }

    /// Why `request` may never be stored or delivered, or nil: the policy's verdict on its URL
    /// (`OpenPolicy.check`: length, control characters, scheme and host lists), then its other
    /// fields — no control characters (a NUL, an escape sequence that would rewrite a terminal
    /// showing `relay status`) and bounded sizes.
    public func check(_ request: RelayRequest) -> String? {
        if let reason = policy.check(request.url) { return reason }
        if request.source.utf8.count > Self.maximumSourceBytes { return "the source is longer than \(Self.maximumSourceBytes) bytes" }
        if request.source.isEmpty { return "the source is empty" }
        if let c = Self.controlCharacter(in: request.source) { return "the source contains \(c)" }
        var size = 0
        for (key, value) in request.metadata.sorted(by: { $0.key < $1.key }) {
            size += key.utf8.count + value.utf8.count
            if key.isEmpty { return "a metadata key is empty" }
            if let c = Self.controlCharacter(in: key) { return "metadata key \(key.displayExcerpt()) contains \(c)" }
            if let c = Self.controlCharacter(in: value) { return "metadata \(key.displayExcerpt()) contains \(c)" }
        }
        if size > Self.maximumMetadataBytes { return "the metadata is larger than \(Self.maximumMetadataBytes) bytes" }
        return nil
    }

    /// The first control character (C0, DEL or C1), bidirectional format character or U+FFFD
    /// (what bytes that are not UTF-8 decode to) in `text`, as `U+XXXX`.
    static func controlCharacter(in text: String) -> String? {
        guard let scalar = text.unicodeScalars.first(where: { $0.isUnsafeToDisplay || $0 == "\u{FFFD}" }) else { return nil }
        let kind = scalar.isControlCharacter ? "a control character" : scalar == "\u{FFFD}" ? "the replacement character" : "an invisible format character"
        return "\(kind) (\(String(format: "U+%04X", scalar.value)))"
    }

    /// File names waiting in `requests/`, oldest first.
    public func pendingNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: requests)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
    }

    /// The waiting requests, oldest first (records that do not decode are skipped here).
    public func pending() -> [RelayRequest] {
        let handled = journalIDs()
        return pendingNames().flatMap(decodedRecords).filter { !handled.contains($0.id) }
    }

    /// Files in `requests/` with no request to read (not a regular file, nothing that decodes):
    /// the next drain moves them to `rejected/`.
    public func unreadableNames() -> [String] {
        pendingNames().filter { decodedRecords($0).isEmpty }
    }

    /// What is waiting, at `now`: counts, the oldest request's age and the first few requests.
    /// An inbox whose `requests/` or `rejected/` this user may not list is an error, not an
    /// empty inbox.
    public func status(now: Date = Date()) throws(RelayError) -> InboxStatus {
        for directory in [requests, rejected] where access(directory, R_OK | X_OK) != 0 && errno != ENOENT {
            let reason = errno == EACCES ? "permission denied" : String(cString: strerror(errno))
            throw RelayError(.io, "cannot read the inbox '\(directory)': \(reason)")
        }
        let names = pendingNames()
        let waiting = pending()
        let rejectedCount = ((try? FileManager.default.contentsOfDirectory(atPath: rejected)) ?? []).filter { !$0.hasSuffix(".reason") }.count
        return InboxStatus(inbox: directory, pending: waiting.count, files: names.count, unreadableFiles: unreadableNames().count,
                           rejected: rejectedCount, oldestSeconds: waiting.first.map { Int(now.timeIntervalSince($0.time)) },
                           next: waiting.first?.url, first: Array(waiting.prefix(InboxStatus.shown)))
    }

    /// The records of one file in `requests/` that decode (a file holds one commit).
    func decodedRecords(_ name: String) -> [RelayRequest] {
        guard let data = try? DurableFile.readRegularFile(requests + "/" + name, maximumBytes: Self.maximumCommitBytes) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? RelayRequest(record: Array($0)) }
    }

    /// What one drain did.
    public struct DrainReport: Sendable, Equatable {
        /// Requests the handler acknowledged in this drain, in delivery order.
        public var handled: [UUID] = []
        /// Requests found already handled (the drainer died between journal and removal).
        public var alreadyHandled: [UUID] = []
        /// Requests older than the TTL, dropped.
        public var expired: [RelayRequest] = []
        /// Records moved to `rejected/` (`<file>.<record>`): undecodable, refused by the policy,
        /// or out of retries.
        public var rejected: [String] = []
        /// Requests moved to `rejected/` because their retry budget was spent.
        public var gaveUp: [UUID] = []
        /// The request the handler declined; it stays first in line.
        public var declined: UUID?
    }

    /// Hands waiting requests to `handler` in order. `true` (or `.opened`) acknowledges the
    /// request, which is removed; `false` (or `.failed(reason)`) stops the drain and leaves that
    /// request first in line, one failed attempt counted. With `maxAttempts`, the attempt that
    /// spends the budget moves the request to `rejected/` instead, and the drain goes on with
    /// the next. Only one drainer runs at a time (`RelayError.locked` otherwise). A cancelled
    /// drain hands out no more requests: those not handled yet wait for the next.
    ///
    /// The file work (the lock, reads, fsyncs, renames) runs on `Inbox.io`; the calling task
    /// waits suspended, and `handler` runs in the caller's context.
    public func drain<Outcome: DeliveryOutcome>(
        ttl: Double? = nil, maxAttempts: Int? = nil, now: Date = Date(), log: (String) -> Void = { _ in },
        handler: (RelayRequest) async -> Outcome
    ) async throws(RelayError) -> DrainReport {
        let inbox = self
        let lock = try await Self.io.run { () throws(RelayError) in try FileSystem.lock(inbox.directory + "/drain.lock") }
        defer { lock.unlock() }
        // Checked before anything is delivered: a delivery whose journal line cannot be written
        // would be delivered again at every drain.
        if let link = await Self.io.run({ inbox.foreignPart() }) { throw RelayError(.io, "cannot drain '\(inbox.directory)': \(link)") }
        var (handledIDs, failures, names) = await Self.io.run { (inbox.journalIDs(), inbox.failedAttempts(), inbox.pendingNames()) }
        var report = DrainReport()
        files: for name in names {
            let path = requests + "/" + name
            let read = try await Self.io.run { () throws(RelayError) in try inbox.readPending(name) }
            let data: [UInt8]
            switch read {
            case .missing: continue
            case .read(let bytes): data = bytes
            case .rejected(let reason):
                log("rejected \(name): \(reason); moved to rejected/")
                report.rejected.append(name)
                continue
            }
            for (n, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
                let request: RelayRequest
                do { request = try RelayRequest(record: Array(line)) } catch {
                    log("rejected record \(n) of \(name): \(error.message); kept in rejected/")
                    try await Self.io.run { () throws(RelayError) in try inbox.keep(line, as: name + ".\(n)", reason: "the record cannot be read: \(Self.oneLine(error.message))") }
                    report.rejected.append(name + ".\(n)")
                    continue
                }
                if handledIDs.contains(request.id) {
                    report.alreadyHandled.append(request.id)
                    continue
                }
                if let reason = check(request) {
                    log("rejected request \(request.id.uuidString.lowercased()) from \(request.source.displayExcerpt()): \(reason); kept in rejected/")
                    try await Self.io.run { () throws(RelayError) in
                        try inbox.keep(line, as: name + ".\(n)", reason: reason)
                        try FileSystem.appendDurably(inbox.journal, request.id.uuidString.lowercased() + "\n")
                    }
                    handledIDs.insert(request.id)
                    report.rejected.append(name + ".\(n)")
                    continue
                }
                if let ttl, now.timeIntervalSince(request.time) > ttl {
                    log("dropped stale request \(request.id.uuidString.lowercased()) from \(request.source.displayExcerpt()) (\(Int(now.timeIntervalSince(request.time))) s old, TTL \(Int(ttl)) s): \(request.url)")
                    try await Self.io.run { () throws(RelayError) in try FileSystem.appendDurably(inbox.journal, request.id.uuidString.lowercased() + "\n") }
                    handledIDs.insert(request.id)
                    report.expired.append(request)
                    continue
                }
                // Stopped with the drainer (SIGTERM): this request and those behind it wait for
                // the next drain, however many there are.
                if Task.isCancelled { break files }
                if let failure = await handler(request).failure {
                    // Stopped with the drainer (SIGTERM during the handler): the handler did not
                    // fail, so no attempt is counted and the request stays first in line.
                    if Task.isCancelled {
                        report.declined = request.id
                        break files
                    }
                    let id = request.id.uuidString.lowercased()
                    let reason = Self.oneLine(failure)
                    try await Self.io.run { () throws(RelayError) in try FileSystem.appendDurably(inbox.attempts, id + " " + reason + "\n") }
                    failures[request.id, default: []].append(reason)
                    let count = failures[request.id]!.count
                    guard let maxAttempts, count >= maxAttempts else {
                        log("request \(id) not delivered (attempt \(count)\(maxAttempts.map { " of \($0)" } ?? "")): \(reason)")
                        report.declined = request.id
                        break files
                    }
                    let why = "not delivered after \(count) attempt\(count == 1 ? "" : "s") (the retry budget is \(maxAttempts)); last failure: \(reason)"
                    log("gave up on request \(id) from \(request.source.displayExcerpt()): \(why); kept in rejected/, the requests behind it go on")
                    try await Self.io.run { () throws(RelayError) in
                        try inbox.keep(line, as: name + ".\(n)", reason: why)
                        try FileSystem.appendDurably(inbox.journal, id + "\n")
                    }
                    handledIDs.insert(request.id)
                    report.rejected.append(name + ".\(n)")
                    report.gaveUp.append(request.id)
                    continue
                }
                try await Self.io.run { () throws(RelayError) in try FileSystem.appendDurably(inbox.journal, request.id.uuidString.lowercased() + "\n") }
                handledIDs.insert(request.id)
                report.handled.append(request.id)
            }
            // Every record of the file is handled, dropped or rejected: remove it.
            try await Self.io.run { () throws(RelayError) in
                try FileSystem.remove(path)
                try FileSystem.syncDirectory(inbox.requests)
            }
        }
        try await Self.io.run { () throws(RelayError) in
            try inbox.compactJournal()
            try inbox.compactAttempts()
        }
        return report
    }

    /// The queue that runs the inbox's file work for `drain` (one per process: drains of several
    /// inboxes in one process take turns there).
    static let io = BlockingQueue(label: "switchyard.relay.inbox")

    /// What became of a file in `requests/` that `drain` went to read.
    enum PendingFile: Sendable {
        /// Gone since it was listed (another drainer's, before the lock).
        case missing
        case read([UInt8])
        /// Not a regular file of a possible size: moved to `rejected/` as it is, with the reason.
        case rejected(String)
    }

    /// Reads the pending file `name`. A symbolic link (or a directory, a device, a file larger
    /// than any commit) put in `requests/` is never followed or read: it is moved to `rejected/`
    /// as it is, with its reason beside it.
    func readPending(_ name: String) throws(RelayError) -> PendingFile {
        let path = requests + "/" + name
        do {
            guard let bytes = try DurableFile.readRegularFile(path, maximumBytes: Self.maximumCommitBytes) else { return .missing }
            return .read(bytes)
        } catch {
            let reason = error.message.replacingOccurrences(of: path + ": ", with: "")
            try FileSystem.remove(rejected + "/" + name)
            try FileSystem.remove(rejected + "/" + name + ".reason")
            try FileSystem.writeDurably(rejected + "/" + name + ".reason", Array((reason + "\n").utf8))
            try FileSystem.rename(path, rejected + "/" + name)
            try FileSystem.syncDirectory(rejected)
            try FileSystem.syncDirectory(requests)
            return .rejected(reason)
        }
    }

    /// Keeps a record in `rejected/` under `name`, with `reason` in `name.reason` when given.
    private func keep(_ record: some Collection<UInt8>, as name: String, reason: String?) throws(RelayError) {
        let kept = rejected + "/" + name
        try FileSystem.remove(kept)
        try FileSystem.writeDurably(kept, Array(record))
        try FileSystem.remove(kept + ".reason")
        if let reason { try FileSystem.writeDurably(kept + ".reason", Array((reason + "\n").utf8)) }
        try FileSystem.syncDirectory(rejected)
    }

    /// A handler's failure text on one line, without control characters, at most 500 characters.
    static func oneLine(_ text: String) -> String {
        let clean = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.isControlCharacter ? " " : $0 }))
        let trimmed = clean.trimmingCharacters(in: .whitespaces)
        let short = trimmed.count > 500 ? String(trimmed.prefix(500)) + "…" : trimmed
        // A bidirectional or invisible format character is written as \u{202E}, as in messages.
        return short.isEmpty ? "no reason given" : short.terminalEscaped
    }

    /// The failed attempts recorded in `attempts`, by request: each attempt's reason, in order.
    func failedAttempts() -> [UUID: [String]] {
        guard let text = try? String(contentsOfFile: attempts, encoding: .utf8) else { return [:] }
        var out: [UUID: [String]] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard let first = parts.first, let id = UUID(uuidString: String(first)) else { continue }
            out[id, default: []].append(parts.count > 1 ? String(parts[1]) : "")
        }
        return out
    }

    /// Ids in the journal.
    func journalIDs() -> Set<UUID> {
        guard let text = try? String(contentsOfFile: journal, encoding: .utf8) else { return [] }
        return Set(text.split(separator: "\n").compactMap { UUID(uuidString: String($0)) })
    }

    /// Once the journal has grown, rewrites it with only the handled ids whose records are still
    /// in `requests/` (normally none); done under the drain lock.
    func compactJournal() throws(RelayError) {
        let size = (try? FileManager.default.attributesOfItem(atPath: journal)[.size] as? Int) ?? 0
        guard size > 64 * 1024 else { return }
        let waiting = Set(pendingNames().flatMap(decodedRecords).map(\.id))
        let ids = waiting.intersection(journalIDs())
        let staging = temporary + "/journal.\(ProcessInfo.processInfo.processIdentifier)"
        try FileSystem.remove(staging)
        try FileSystem.writeDurably(staging, Array(ids.map { $0.uuidString.lowercased() + "\n" }.joined().utf8))
        try FileSystem.rename(staging, journal)
        try FileSystem.syncDirectory(directory)
    }

    /// Forgets the failed attempts once nothing waits; once the file has grown, keeps only the
    /// lines of requests still waiting. Done under the drain lock (the only writer).
    func compactAttempts() throws(RelayError) {
        guard FileManager.default.fileExists(atPath: attempts) else { return }
        let names = pendingNames()
        if names.isEmpty {
            try FileSystem.remove(attempts)
            return
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: attempts)[.size] as? Int) ?? 0
        guard size > 64 * 1024 else { return }
        let waiting = Set(names.flatMap(decodedRecords).map(\.id))
        let kept = failedAttempts().filter { waiting.contains($0.key) }
            .flatMap { id, reasons in reasons.map { id.uuidString.lowercased() + " " + $0 + "\n" } }
        let staging = temporary + "/attempts.\(ProcessInfo.processInfo.processIdentifier)"
        try FileSystem.remove(staging)
        try FileSystem.writeDurably(staging, Array(kept.joined().utf8))
        try FileSystem.rename(staging, attempts)
        try FileSystem.syncDirectory(directory)
    }
}

/// What is waiting in an inbox (``Inbox/status(now:)``); encodes as `relay status --json` prints it.
public struct InboxStatus: Sendable, Encodable {
    /// How many requests the status lists in `first`.
    public static let shown = 10

    /// The inbox directory.
    public var inbox: String
    /// Requests waiting to be delivered.
    public var pending: Int
    /// Files in `requests/` (a file holds one commit of one or more requests).
    public var files: Int
    /// Files in `requests/` with no request to read; the next drain moves them to `rejected/`.
    public var unreadableFiles: Int
    /// Requests moved to `rejected/`.
    public var rejected: Int
    /// The age of the oldest waiting request, in whole seconds (negative when it is dated ahead of
    /// this machine's clock).
    public var oldestSeconds: Int?
    /// The URL delivered next.
    public var next: String?
    /// The first ``shown`` waiting requests, oldest first (not encoded).
    public var first: [RelayRequest]

    enum CodingKeys: String, CodingKey { case inbox, pending, files, unreadableFiles, rejected, oldestSeconds, next }

    /// The status in words, as `switchyard relay status` prints it: counts, then the first
    /// requests. Records are read back from files anyone may write: escape the lines before
    /// they reach a terminal.
    public var lines: [String] {
        let n = unreadableFiles
        // A sender whose clock is ahead dates its request in the future: said so, not as a negative age.
        let age = oldestSeconds.map { $0 < 0 ? ", the oldest dated \(-$0) s ahead of this clock" : ", oldest \($0) s" } ?? ""
        var lines = ["\(inbox): \(pending) waiting\(age), \(rejected) rejected"
            + (n > 0 ? "; \(n) file\(n == 1 ? "" : "s") in requests/ hold\(n == 1 ? "s" : "") no readable request (the next drain moves \(n == 1 ? "it" : "them") to rejected/)" : "")]
        lines += first.map { "  \($0.id.uuidString.lowercased())  \($0.source)  \($0.url)" }
        if pending > first.count { lines.append("  … \(pending - first.count) more") }
        return lines
    }
}
