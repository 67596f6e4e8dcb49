import Foundation
import SwitchyardCore

/// One request to open a URL, as it sits in the inbox.
public struct RelayRequest: Sendable, Equatable {
    /// Unique per request; a request delivered again after
    /// a crash keeps it, so handlers can recognise repeats.
    public var id: UUID
    /// When the sender enqueued it.
    public var time: Date
    /// Who sent it (an extension's bundle id, a process name).
    public var source: String
    /// The URL to open.
    public var url: String
    /// Extra name–value pairs for the handler; the inbox bounds their size and refuses control characters.
    public var metadata: [String: String]

    /// Metadata written `key=value` (`relay send --meta`): the pairs, or why one is not such a
    /// pair (no `=`, nothing before it, a key with a space at either end) or a key is given twice.
    public static func metadata(arguments: [String]) -> Result<[String: String], RelayError> {
        var metadata: [String: String] = [:]
        for argument in arguments {
            switch NamedArgument.split(argument, at: "=") {
            case .failure(.spaceAroundName):
                return .failure(RelayError(.badRecord, "the key '\(argument.prefix { $0 != "=" })' starts or ends with a space"))
            case .failure:
                return .failure(RelayError(.badRecord, "\(argument.displayExcerpt()) is not key=value (a key before the =)"))
            case .success(let pair):
                guard metadata.updateValue(pair.value, forKey: pair.name) == nil else {
                    return .failure(RelayError(.badRecord, "the key '\(pair.name)' is given twice"))
                }
            }
        }
        return .success(metadata)
    }

    /// A request; it gets a new id and the current time unless given.
    public init(id: UUID = UUID(), time: Date = Date(), source: String, url: String, metadata: [String: String] = [:]) {
        self.id = id
        self.time = time
        self.source = source
        self.url = url
        self.metadata = metadata
    }

    /// The on-disk record: one JSON object, keys in a fixed order.
    public var record: String {
        let meta = metadata.keys.sorted().map { ($0, JSONValue.string(metadata[$0]!)) }
        return JSONWriter.compact(.object([
            ("v", .int(1)), ("id", .string(id.uuidString.lowercased())),
            ("time", .number(time.timeIntervalSince1970, text: String(format: "%.6f", time.timeIntervalSince1970))),
            ("source", .string(source)), ("url", .string(url)), ("metadata", .object(meta)),
        ])) + "\n"
    }

    /// Decodes a record; errors say which field is wrong. Never traps on hostile bytes.
    public init(record bytes: [UInt8]) throws(RelayError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes: bytes) } catch { throw RelayError(.badRecord, "not JSON: \(error)") }
        guard case .object = value else { throw RelayError(.badRecord, "a record is a JSON object") }
        guard case .number(let v, _)? = value["v"], v == 1 else { throw RelayError(.badRecord, "v: unsupported record version (expected 1)") }
        guard let idText = value["id"]?.stringValue, let id = UUID(uuidString: idText) else { throw RelayError(.badRecord, "id: not a UUID") }
        guard case .number(let t, _)? = value["time"], t.isFinite, t >= 0, t < 1e11 else { throw RelayError(.badRecord, "time: not seconds since 1970") }
        guard let source = value["source"]?.stringValue else { throw RelayError(.badRecord, "source: missing") }
        guard let url = value["url"]?.stringValue, !url.isEmpty else { throw RelayError(.badRecord, "url: missing") }
        var metadata: [String: String] = [:]
        if let m = value["metadata"] {
            guard let members = m.objectMembers else { throw RelayError(.badRecord, "metadata: not an object") }
            for (k, v) in members {
                guard let s = v.stringValue else { throw RelayError(.badRecord, "metadata.\(k): not a string") }
                metadata[k] = s
            }
        }
        self.init(id: id, time: Date(timeIntervalSince1970: t), source: source, url: url, metadata: metadata)
    }
}

/// A relay failure: `bad-record`, `io`, `locked`, `denied` or `too-long`; for `io` and
/// `locked` the file-system error is its cause.
public typealias RelayError = DomainError<RelayErrors>

/// The domain of ``RelayError``.
public enum RelayErrors: ErrorDomain {}

extension DomainError where Domain == RelayErrors {
    /// A file operation's failure, with its code and message.
    public init(_ error: FileError) { self.init(error.code, error.message, cause: error) }
}
