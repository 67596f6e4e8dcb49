import SwitchyardTestSupport
import Foundation
import Testing
@testable import URLRelay

/// `relay watch`'s three ways of handing a request on, each through a real file or process.
@Suite struct WatchDeliveryTests {
    final class Lines: @unchecked Sendable {
        var output: [String] = []
        var log: [String] = []
    }

    @Test func printRecordAndCommandDeliverAndSayWhat() async throws {
        let request = RelayRequest(source: "test", url: "plur://group/a?x=1\u{202E}b")
        let id = request.id.uuidString.lowercased()
        let lines = Lines()

        // Printed: the stored record itself, one JSON line (not escaped: it is JSON).
        #expect(await WatchDelivery.print.deliver(request, output: { lines.output.append($0) }, log: { lines.log.append($0) }) == .opened)
        #expect(lines.output == [String(request.record.dropLast())])

        // Recorded: appended once, a repeated delivery acknowledged without a second line.
        let directory = TestTemporary.root.appendingPathComponent("watch-delivery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("record.jsonl").path
        let record = WatchDelivery.record(try RecordingHandler(path: file))
        #expect(await record.deliver(request, output: { _ in }, log: { _ in }) == .opened)
        #expect(await record.deliver(request, output: { _ in }, log: { _ in }) == .opened)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == request.record)

        // A command: its exit status decides; a success is said with the URL escaped for a terminal.
        lines.output = []
        #expect(await WatchDelivery.command(["/bin/true"], timeLimit: 5).deliver(request, output: { lines.output.append($0) }, log: { lines.log.append($0) }) == .opened)
        #expect(lines.output == ["handled \(id) plur://group/a?x=1\\u{202E}b"])
        let failed = await WatchDelivery.command(["/bin/false"], timeLimit: 5).deliver(request, output: { lines.output.append($0) }, log: { lines.log.append($0) })
        #expect(failed != .opened)
        #expect(lines.log.count == 1 && lines.log[0].hasPrefix("\(id) not handled: ") && lines.log[0].contains("exited with status 1"), "\(lines.log)")
    }

    /// The options choose: a record file, else a command split into words, else printing; a
    /// record file that cannot be used is refused with the reason.
    @Test func theOptionsChooseTheDelivery() throws {
        let directory = TestTemporary.root.appendingPathComponent("watch-choice-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard case .record(let recorder) = try WatchDelivery.chosen(record: directory + "/r.jsonl", openWith: nil, handlerTimeout: 5, log: { _ in }) else {
            Issue.record("a record file was not chosen"); return
        }
        #expect(recorder.path.hasSuffix("/r.jsonl"))
        guard case .command(let words, let limit) = try WatchDelivery.chosen(record: nil, openWith: "'/usr/bin/env' -i true", handlerTimeout: 7, log: { _ in }) else {
            Issue.record("a command was not chosen"); return
        }
        #expect(words == ["/usr/bin/env", "-i", "true"] && limit == 7)
        guard case .print = try WatchDelivery.chosen(record: nil, openWith: nil, handlerTimeout: 5, log: { _ in }) else { Issue.record("not printing"); return }
        #expect(throws: RelayError.self) { try WatchDelivery.chosen(record: directory, openWith: nil, handlerTimeout: 5, log: { _ in }) }
    }
}
