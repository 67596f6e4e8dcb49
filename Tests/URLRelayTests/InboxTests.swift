import Foundation
import Testing
@testable import URLRelay

@Suite struct InboxTests {
    static func inbox() throws -> Inbox {
        try Inbox(directory: FileManager.default.temporaryDirectory.appendingPathComponent("relay-\(UUID().uuidString)").path)
    }

    @Test func recordsRoundTripAndBadRecordsSayWhy() throws {
        let r = RelayRequest(time: Date(timeIntervalSince1970: 1_790_000_000.25), source: "share-ext", url: "plur://group/a?x=1", metadata: ["k": "v", "a": "ü"])
        #expect(try RelayRequest(record: Array(r.record.utf8)) == r)
        let cases: [(String, String)] = [
            ("", "not JSON"), ("[]", "a record is a JSON object"), (#"{"v":2}"#, "v: unsupported"),
            (#"{"v":1,"id":"x"}"#, "id: not a UUID"),
            (#"{"v":1,"id":"\#(UUID())","time":-1}"#, "time:"),
            (#"{"v":1,"id":"\#(UUID())","time":1,"source":"s"}"#, "url: missing"),
            (#"{"v":1,"id":"\#(UUID())","time":1,"source":"s","url":"u","metadata":{"a":1}}"#, "metadata.a"),
        ]
        for (text, message) in cases {
            #expect(throws: RelayError.self) { try RelayRequest(record: Array(text.utf8)) }
            do { _ = try RelayRequest(record: Array(text.utf8)) } catch { #expect(error.message.contains(message), "\(text)") }
        }
    }

    @Test func drainsInSendOrderAndRemovesOnlyAcknowledged() async throws {
        let inbox = try Self.inbox()
        var sent: [RelayRequest] = []
        for i in 0..<5 {
            let r = RelayRequest(time: Date(timeIntervalSince1970: 1_800_000_000 + Double(i)), source: "t", url: "plur://item/\(i)")
            try inbox.send(r)
            sent.append(r)
        }
        #expect(inbox.pending() == sent)
        // The handler declines the third: the first two are gone, the rest stay in order.
        let seen = Box()
        let report = try await inbox.drain(now: Date(timeIntervalSince1970: 1_800_000_010)) { r in
            seen.append(r.id)
            return r.url != "plur://item/2"
        }
        #expect(report.handled == sent.prefix(2).map(\.id))
        #expect(report.declined == sent[2].id)
        #expect(seen.ids == sent.prefix(3).map(\.id))
        #expect(inbox.pending() == Array(sent.dropFirst(2)))
        let second = try await inbox.drain(now: Date(timeIntervalSince1970: 1_800_000_010)) { _ in true }
        #expect(second.handled == sent.dropFirst(2).map(\.id))
        #expect(inbox.pending().isEmpty)
    }

    @Test func journalPreventsASecondDeliveryAfterACrashBeforeRemoval() async throws {
        let inbox = try Self.inbox()
        let r = RelayRequest(source: "t", url: "plur://x")
        try inbox.send(r)
        // Simulate a drainer that journaled the id and died before removing the file.
        try FileSystem.appendDurably(inbox.journal, r.id.uuidString.lowercased() + "\n")
        let report = try await inbox.drain { _ in Issue.record("delivered twice"); return true }
        #expect(report.alreadyHandled == [r.id])
        #expect(inbox.pending().isEmpty)
    }

    @Test func staleRequestsAreDroppedWithALogLineAndBadFilesAreKept() async throws {
        let inbox = try Self.inbox()
        let old = RelayRequest(time: Date(timeIntervalSince1970: 1000), source: "t", url: "plur://old")
        let fresh = RelayRequest(time: Date(timeIntervalSince1970: 5000), source: "t", url: "plur://fresh")
        try inbox.send(old)
        try inbox.send(fresh)
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: inbox.requests + "/00000000000000000001-x.json"))
        let lines = Box()
        let report = try await inbox.drain(ttl: 600, now: Date(timeIntervalSince1970: 5100), log: { lines.log($0) }) { _ in true }
        #expect(report.expired == [old])
        #expect(report.handled == [fresh.id])
        #expect(report.rejected == ["00000000000000000001-x.json.0"])
        #expect(lines.lines.contains { $0.contains("dropped stale request") && $0.contains("plur://old") })
        #expect(FileManager.default.fileExists(atPath: inbox.rejected + "/00000000000000000001-x.json.0"))
    }

    @Test func batchesCommitTogetherAndResumeMidFile() async throws {
        let inbox = try Self.inbox()
        let batch = (0..<5).map { RelayRequest(time: Date(timeIntervalSince1970: 1_800_000_000), source: "b", url: "plur://b/\($0)") }
        try inbox.send(batch: batch)
        #expect(inbox.pendingNames().count == 1)
        #expect(inbox.pending() == batch)
        let first = try await inbox.drain { $0.url != "plur://b/3" }
        #expect(first.handled == batch.prefix(3).map(\.id))
        #expect(inbox.pending() == Array(batch.suffix(2)))
        let second = try await inbox.drain { _ in true }
        #expect(second.alreadyHandled == batch.prefix(3).map(\.id))
        #expect(second.handled == batch.suffix(2).map(\.id))
        #expect(inbox.pendingNames().isEmpty)
    }

    @Test func recordingHandlerRecordsEachIdOnceAndSurvivesATornLine() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID().uuidString).jsonl").path
        let a = RelayRequest(source: "t", url: "plur://a"), b = RelayRequest(source: "t", url: "plur://b")
        let first = try RecordingHandler(path: path)
        #expect(first.record(a))
        #expect(first.record(a))
        // A crash mid-append leaves half a line; a restarted handler still knows `a` and appends cleanly.
        try FileSystem.appendDurably(path, "{\"v\":1,\"id\":")
        let lines = Box()
        let second = try RecordingHandler(path: path, log: { lines.log($0) })
        #expect(second.record(a))
        #expect(second.record(b))
        let records = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").compactMap { try? RelayRequest(record: Array($0.utf8)) }
        #expect(records.map(\.id) == [a.id, b.id])
        #expect(lines.lines.count == 1 && lines.lines[0].contains("delivered again"))
    }

    @Test func onlyOneDrainerAtATime() async throws {
        let inbox = try Self.inbox()
        try inbox.send(RelayRequest(source: "t", url: "plur://x"))
        let fd = try FileSystem.lock(inbox.directory + "/drain.lock")
        await #expect(throws: RelayError.self) { _ = try await inbox.drain { _ in true } }
        FileSystem.unlock(fd)
        #expect(try await inbox.drain { _ in true }.handled.count == 1)
    }

    @Test func watcherWakesOnSendAndStops() async throws {
        let inbox = try Self.inbox()
        let got = Box()
        let watcher = RelayWatcher(inbox: inbox, pollInterval: 30) { r in got.append(r.id); return true }
        let task = Task { try await watcher.run() }
        try await Task.sleep(for: .milliseconds(300))
        let r = RelayRequest(source: "t", url: "plur://wake")
        let start = ContinuousClock.now
        try inbox.send(r)
        while got.ids.isEmpty && ContinuousClock.now - start < .seconds(5) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(got.ids == [r.id])
        #expect(ContinuousClock.now - start < .seconds(2), "woken by inotify, not by the 30 s poll")
        task.cancel()
        _ = try? await task.value
    }
}

/// A thread-safe recorder for handler calls and log lines.
final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var _ids: [UUID] = []
    private var _lines: [String] = []
    var ids: [UUID] { lock.withLock { _ids } }
    var lines: [String] { lock.withLock { _lines } }
    func append(_ id: UUID) { lock.withLock { _ids.append(id) } }
    func log(_ line: String) { lock.withLock { _lines.append(line) } }
}
