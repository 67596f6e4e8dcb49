import Foundation
import Logging
import SwitchyardCore

/// A swift-log handler that writes one JSON object per line to stderr:
/// `{"ts":"…","level":"info","label":"switchyard","msg":"request","method":"POST",…}`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let label: String

    public init(label: String, level: Logger.Level = .info) {
        self.label = label
        logLevel = level
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra, uniquingKeysWith: { _, b in b }) }
        var line = "{\"ts\":\"\(Date().formatted(.iso8601))\",\"level\":\"\(event.level)\",\"label\":\(JSONWriter.quote(label)),\"msg\":\(JSONWriter.quote("\(event.message)"))"
        for key in fields.keys.sorted() { line += ",\(JSONWriter.quote(key)):\(JSONWriter.quote("\(fields[key]!)"))" }
        line += "}\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
