import Foundation

/// A directory-backed durable queue that several processes share.
///
/// Layout: `requests/` (one record per file, named so that names sort in send order), `tmp/`
/// (records being written), `rejected/` (records that do not decode, kept for inspection),
/// `journal` (ids of handled requests) and `drain.lock`.
///
/// **Policy.** Every URL goes through the inbox's `OpenPolicy` (`check`) twice: `send` refuses a
/// URL the policy denies (nothing is stored), and a drain moves a stored record that fails it
/// (written by an older version, or by hand) to `rejected/` with the reason beside it, instead
/// of handing it over.
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
    public let directory: String
    var requests: String { directory + "/requests" }
    var temporary: String { directory + "/tmp" }
    var rejected: String { directory + "/rejected" }
    var journal: String { directory + "/journal" }
    /// The URL rules applied at send and at drain.
    public let policy: OpenPolicy

    public init(directory: String, policy: OpenPolicy = OpenPolicy()) throws(RelayError) {
        self.policy = policy
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        for d in [self.directory, requests, temporary, rejected] {
            do { try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true) } catch {
                throw RelayError(.io, "\(d): cannot create the inbox directory: \(error.localizedDescription)")
            }
        }
    }

    /// Enqueues durably. Returns the file name the request got.
    @discardableResult
    public func send(_ request: RelayRequest) throws(RelayError) -> String {
        try send(batch: [request])
    }

    /// Enqueues several requests with one commit (group commit: one file, one rename, two
    /// fsyncs), so batches reach thousands of durable requests per second. All or none arrive;
    /// they are delivered in order.
    @discardableResult
    public func send(batch: [RelayRequest]) throws(RelayError) -> String {
        guard let first = batch.first else { throw RelayError(.badRecord, "an empty batch") }
        for request in batch {
            if let reason = policy.check(request.url) { throw RelayError(.denied, "refused \(Self.excerpt(request.url)): \(reason)") }
        }
        let nanos = UInt64(max(0, first.time.timeIntervalSince1970) * 1_000_000_000)
        let name = String(format: "%020llu", nanos) + "-" + first.id.uuidString.lowercased() + ".json"
        let staging = temporary + "/" + name
        try FileSystem.writeDurably(staging, Array(batch.map(\.record).joined().utf8))
        try FileSystem.rename(staging, requests + "/" + name)
        try FileSystem.syncDirectory(requests)
        #if canImport(Darwin)
        DirectoryWatch.post(directory)
        #endif
        return name
    }

    /// The start of a URL for messages (a refused URL may be megabytes long).
    package static func excerpt(_ url: String) -> String {
        let head = url.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
        return "'" + head + (url.unicodeScalars.count > 80 ? "…' (\(url.utf8.count) bytes)" : "'")
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

    /// The records of one file in `requests/` that decode (a file holds one commit).
    func decodedRecords(_ name: String) -> [RelayRequest] {
        guard let data = FileManager.default.contents(atPath: requests + "/" + name) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? RelayRequest(record: Array($0)) }
    }

    /// What one drain did.
    public struct DrainReport: Sendable, Equatable {
        public var handled: [UUID] = []
        /// Requests found already handled (the drainer died between journal and removal).
        public var alreadyHandled: [UUID] = []
        /// Requests older than the TTL, dropped.
        public var expired: [RelayRequest] = []
        /// Files that did not decode, moved to `rejected/`.
        public var rejected: [String] = []
        /// The request the handler declined; it stays first in line.
        public var declined: UUID?
    }

    /// Hands waiting requests to `handler` in order. `true` acknowledges (the request is
    /// removed); `false` stops the drain and leaves that request first in line. Only one drainer
    /// runs at a time (`RelayError.locked` otherwise).
    public func drain(ttl: Double? = nil, now: Date = Date(), log: (String) -> Void = { _ in },
                      handler: (RelayRequest) async -> Bool) async throws(RelayError) -> DrainReport {
        let lock = try FileSystem.lock(directory + "/drain.lock")
        defer { FileSystem.unlock(lock) }
        var handledIDs = journalIDs()
        var report = DrainReport()
        files: for name in pendingNames() {
            let path = requests + "/" + name
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            for (n, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() {
                let request: RelayRequest
                do { request = try RelayRequest(record: Array(line)) } catch {
                    let kept = rejected + "/" + name + ".\(n)"
                    log("rejected record \(n) of \(name): \(error.message); kept in rejected/")
                    try? FileSystem.remove(kept)
                    try FileSystem.writeDurably(kept, Array(line))
                    report.rejected.append(name + ".\(n)")
                    continue
                }
                if handledIDs.contains(request.id) {
                    report.alreadyHandled.append(request.id)
                    continue
                }
                if let reason = policy.check(request.url) {
                    let kept = rejected + "/" + name + ".\(n)"
                    log("rejected request \(request.id) from \(request.source): \(reason); kept in rejected/")
                    try? FileSystem.remove(kept)
                    try FileSystem.writeDurably(kept, Array(line))
                    try? FileSystem.remove(kept + ".reason")
                    try FileSystem.writeDurably(kept + ".reason", Array((reason + "\n").utf8))
                    try FileSystem.appendDurably(journal, request.id.uuidString.lowercased() + "\n")
                    handledIDs.insert(request.id)
                    report.rejected.append(name + ".\(n)")
                    continue
                }
                if let ttl, now.timeIntervalSince(request.time) > ttl {
                    log("dropped stale request \(request.id) from \(request.source) (\(Int(now.timeIntervalSince(request.time))) s old, TTL \(Int(ttl)) s): \(request.url)")
                    try FileSystem.appendDurably(journal, request.id.uuidString.lowercased() + "\n")
                    handledIDs.insert(request.id)
                    report.expired.append(request)
                    continue
                }
                guard await handler(request) else {
                    report.declined = request.id
                    break files
                }
                try FileSystem.appendDurably(journal, request.id.uuidString.lowercased() + "\n")
                handledIDs.insert(request.id)
                report.handled.append(request.id)
            }
            // Every record of the file is handled, dropped or rejected: remove it.
            try FileSystem.remove(path)
            try FileSystem.syncDirectory(requests)
        }
        try compactJournal()
        return report
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
}
