import Foundation
import SwitchyardCore

/// A request sent to another app and not yet answered.
public struct PendingRequest: Sendable, Equatable {
    /// The id the response is matched by: 1–64 letters, digits, `-` or `_`.
    public var id: String
    /// The x-callback-url action the request asked for.
    public var action: String
    /// When the request expires; stored to the whole second. `answer(id:now:)` refuses an answer after it.
    public var expires: Date

    /// A request record, to `register` before the request is sent.
    public init(id: String, action: String, expires: Date) {
        self.id = id
        self.action = action
        self.expires = expires
    }
}

/// Requests waiting for their x-success/x-error/x-cancel, kept on disk so that they survive the
/// app being killed: one durable file per request, plus a journal of answered ids. A response
/// for an unknown id, or for an id already answered, is refused.
public struct PendingRequests: Sendable {
    /// Where the records live: `pending/` holds one file per waiting request, `answered` the answered ids.
    public let directory: String
    var answeredPath: String { directory + "/answered" }

    /// The store in `directory`, creating `pending/` if needed; throws `io` when it cannot.
    public init(directory: String) throws(CallbackError) {
        self.directory = directory
        do { try FileManager.default.createDirectory(atPath: directory + "/pending", withIntermediateDirectories: true) } catch {
            throw CallbackError(.io, "\(directory): \(error.localizedDescription)")
        }
    }

    /// Records a request before it is sent.
    public func register(_ request: PendingRequest) throws(CallbackError) {
        guard Self.isSafeID(request.id) else { throw CallbackError(.malformed, "request ids are 1–64 letters, digits, - or _") }
        let record = JSONWriter.compact(.object([("id", .string(request.id)), ("action", .string(request.action)),
                                                 ("expires", .int(Int(request.expires.timeIntervalSince1970)))]))
        do { try DurableFile.write(recordPath(request.id), Array(record.utf8)) } catch {
            throw CallbackError(.io, error.message, cause: error)
        }
    }

    /// Matches a response to its request and marks it answered (once). A request past its
    /// expiry at `now` is not waiting any more: `expired`, and it is removed.
    public func answer(id: String, now: Date = Date()) throws(CallbackError) -> PendingRequest {
        guard Self.isSafeID(id) else { throw CallbackError(.unknownRequest, "no pending request \"\(id.prefix(64))\"") }
        if answered().contains(id) { throw CallbackError(.alreadyAnswered, "request \(id) was already answered") }
        guard let request = pending(id) else { throw CallbackError(.unknownRequest, "no pending request \(id)") }
        if request.expires <= now {
            try? DurableFile.removeDurably(recordPath(id))
            throw CallbackError(.expired, "request \(id) expired at \(ISO8601DateFormatter().string(from: request.expires)); it is not waiting any more")
        }
        do {
            try DurableFile.append(answeredPath, id + " " + String(Int(request.expires.timeIntervalSince1970)) + "\n")
            try DurableFile.removeDurably(recordPath(id))
        } catch { throw CallbackError(.io, error.message, cause: error) }
        return request
    }

    /// Where the record of pending request `id` is kept.
    func recordPath(_ id: String) -> String { directory + "/pending/" + id + ".json" }

    /// The pending request `id`, if its record is there and readable.
    func pending(_ id: String) -> PendingRequest? {
        guard let data = FileManager.default.contents(atPath: recordPath(id)),
              let value = try? JSONParser.parse(bytes: Array(data)), let action = value["action"]?.stringValue,
              case .number(let exp, _)? = value["expires"] else { return nil }
        return PendingRequest(id: id, action: action, expires: Date(timeIntervalSince1970: exp))
    }

    /// Ids still waiting at `now` (not answered, not expired).
    public func waiting(now: Date = Date()) -> [String] {
        allPending().filter { id in pending(id).map { $0.expires > now } ?? false }
    }

    /// Removes the requests that expired before `now`, and forgets answered ids whose requests
    /// expired before then (an answer for them would be refused as expired anyway); returns the
    /// ids removed. Call it now and then (at launch): nothing else shrinks the directory.
    @discardableResult
    public func removeExpired(now: Date = Date()) throws(CallbackError) -> [String] {
        var removed: [String] = []
        for id in allPending() where pending(id).map({ $0.expires <= now }) ?? true {
            do { try DurableFile.removeDurably(recordPath(id)) } catch { throw CallbackError(.io, error.message, cause: error) }
            removed.append(id)
        }
        let lines = ((try? String(contentsOfFile: answeredPath, encoding: .utf8)) ?? "").split(separator: "\n")
        let kept = lines.filter { line in
            let parts = line.split(separator: " ")
            // A line without a readable expiry is kept: its request may still be waiting.
            guard parts.count == 2, let expires = Double(parts[1]) else { return true }
            return expires > now.timeIntervalSince1970
        }
        if kept.count < lines.count {
            do { try DurableFile.write(answeredPath, Array(kept.map { $0 + "\n" }.joined().utf8)) } catch { throw CallbackError(.io, error.message, cause: error) }
        }
        return removed
    }

    private func allPending() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/pending")) ?? []).filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
    }

    func answered() -> Set<String> {
        Set(((try? String(contentsOfFile: answeredPath, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
    }

    static func isSafeID(_ id: String) -> Bool {
        (1...64).contains(id.count) && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}

/// Which callback URLs may be opened: each must start with one of the allowed prefixes
/// (`myapp://x-callback-url/`, `https://example.com/cb/`).
public struct CallbackAllowlist: Sendable {
    /// The allowed URL prefixes, compared without regard to case.
    public var prefixes: [String]
    /// An allowlist of `prefixes`; an empty list allows nothing.
    public init(_ prefixes: [String]) { self.prefixes = prefixes }

    /// Returns when `url` starts with an allowed prefix (ignoring case); throws `not-allowed` otherwise.
    public func check(_ url: String) throws(CallbackError) {
        guard prefixes.contains(where: { url.lowercased().hasPrefix($0.lowercased()) }) else {
            throw CallbackError(.notAllowed, "callback \(url.prefix(80)) is not on the allowlist")
        }
    }
}
