import LinkRequests
import Foundation
import Logging
import SwitchyardCore

/// A swift-log handler that writes one JSON object per line to stderr:
/// `{"ts":"…","level":"info","label":"switchyard","msg":"request","method":"POST",…}`.
package struct JSONLogHandler: LogHandler {
    /// Metadata written with every line; an event's own metadata wins on a clash.
    package var metadata: Logger.Metadata = [:]
    /// The lowest level written (swift-log drops lower ones before they reach the handler).
    package var logLevel: Logger.Level
    let label: String

    /// A handler whose lines carry `label`, writing `level` and above (default `info`).
    package init(label: String, level: Logger.Level = .info) {
        self.label = label
        logLevel = level
    }

    /// One entry of the handler's metadata.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the event as one JSON line to stderr: time, level, label, message, then metadata keys sorted, every value as a string.
    package func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra, uniquingKeysWith: { _, b in b }) }
        var line = "{\"ts\":\"\(Date().formatted(.iso8601))\",\"level\":\"\(event.level)\",\"label\":\(JSONWriter.quote(label)),\"msg\":\(JSONWriter.quote("\(event.message)"))"
        for key in fields.keys.sorted() { line += ",\(JSONWriter.quote(key)):\(JSONWriter.quote("\(fields[key]!)"))" }
        line += "}\n"
        // A closed stderr (its reader gone) must not stop the service: the line is dropped.
        try? FileHandle.standardError.write(contentsOf: Data(line.utf8))
    }
}
