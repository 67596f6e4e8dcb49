import SwitchyardCore
import Foundation

/// How `relay watch` hands on each request it drains: appended to a record file, opened by a
/// command, or printed as its JSON record.
public enum WatchDelivery: Sendable {
    /// Appended to a file (`--record`), once per request id.
    case record(RecordingHandler)
    /// Opened by a command (`--open-with`), within `timeLimit` seconds.
    case command([String], timeLimit: Double)
    /// Printed as the request's record, one JSON line each.
    case print

    /// The delivery `relay watch` is given: a record file, else a command (its words, as
    /// ``CommandOpen/words(_:)`` splits them), else printing. Throws why the record file cannot be
    /// used.
    public static func chosen(record: String?, openWith: String?, handlerTimeout: Double, log: @escaping @Sendable (String) -> Void) throws(RelayError) -> WatchDelivery {
        if let record { return .record(try RecordingHandler(path: record, log: log)) }
        if let words = openWith.flatMap(CommandOpen.words) { return .command(words, timeLimit: handlerTimeout) }
        return .print
    }

    /// Delivers `request`: `output` gets what goes to stdout (the JSON record as it is stored, or
    /// `handled ID URL` escaped for a terminal), `log` a failed command's reason.
    public func deliver(_ request: RelayRequest, output: (String) -> Void, log: (String) -> Void) async -> OpenOutcome {
        let id = request.id.uuidString.lowercased()
        switch self {
        case .record(let recorder):
            return recorder.record(request) ? .opened : .failed("cannot append it to \(recorder.path)")
        case .print:
            output(String(request.record.dropLast()))
            return .opened
        case .command(let words, let timeLimit):
            let outcome = await CommandOpen(command: words, timeLimit: timeLimit).open(request)
            switch outcome {
            case .opened: output("handled \(id) \(request.url)".terminalEscaped)
            case .failed(let reason): log("\(id) not handled: \(reason)")
            }
            return outcome
        }
    }
}
