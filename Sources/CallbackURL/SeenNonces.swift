import SwitchyardCore
import Foundation

/// Nonces of verified requests, kept on disk until their request expires, so that a replay is
/// refused across processes and restarts (`callback verify` runs once per request). One line per
/// nonce, `EXPIRY KEY`, appended with an fsync under a file lock; expired lines are dropped
/// when the file is rewritten.
///
/// ```swift
/// let verifier = CallbackVerifier(keys: keys, seen: SeenNonces(path: stateDirectory + "/callback-nonces"))
/// try verifier.verify(request)   // a second call with the same request throws .replayed
/// ```
public struct SeenNonces: Sendable {
    /// The nonce file; a `.lock` file beside it serialises the processes writing it.
    public let path: String

    /// Nonces kept in the file at `path`, created (with its directory) on the first insert.
    public init(path: String) { self.path = path }

    /// Records `key` until `expiry`, or throws `.replayed` if it is recorded and not expired.
    /// A key with a space or a control character is `malformed`: it would plant a second line.
    public func insert(_ key: String, until expiry: Date, now: Date) throws(CallbackError) {
        if key.isEmpty || key.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F || $0.properties.isWhitespace }) {
            throw CallbackError(.malformed, "a nonce key must not be empty or hold spaces or control characters")
        }
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
        var isDirectory: ObjCBool = false
        if path.isEmpty { throw CallbackError(.io, "the nonce file's path is empty (give a file path such as DIR/callback-nonces)") }
        if path.hasSuffix("/") || (FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            throw CallbackError(.io, "\(path): a directory, not a nonce file (give a file path such as DIR/callback-nonces)")
        }
        do {
            if !directory.isEmpty { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            try DurableFile.withExclusiveLock(path + ".lock") { () throws(CallbackError) in
                // Only a regular file is read (a FIFO would block, a link could point anywhere).
                let text: String
                do throws(FileError) {
                    text = String(decoding: try DurableFile.readRegularFile(path) ?? [], as: UTF8.self)
                } catch { throw CallbackError(.io, "\(error.message); the nonce file must be a regular file", cause: error) }
                var live: [Substring] = []
                var total = 0
                for line in text.split(separator: "\n") {
                    total += 1
                    guard let space = line.firstIndex(of: " "), let seconds = Double(line[..<space]) else { continue }
                    guard seconds > now.timeIntervalSince1970 else { continue }
                    if line[line.index(after: space)...] == key { throw CallbackError(.replayed, "nonce \(key.prefix(60)) was used before") }
                    live.append(line)
                }
                let entry = String(format: "%.0f", expiry.timeIntervalSince1970) + " " + key + "\n"
                do throws(FileError) {
                    if total > 256 && total > 2 * live.count {
                        try DurableFile.write(path, Array((live.map { $0 + "\n" }.joined() + entry).utf8))
                    } else {
                        try DurableFile.append(path, entry)
                    }
                } catch { throw CallbackError(.io, error.message, cause: error) }
            }
        } catch let error as CallbackError {
            throw error
        } catch {
            throw CallbackError(.io, "\(path): \(error)", cause: error)
        }
    }
}

extension SeenNonces {
    /// The nonce file `callback verify --seen` names, or by default `switchyard/callback-nonces`
    /// in the user's state directory (made when missing). A chosen file's directory must exist
    /// (``missingDirectory(of:)``): throws `.io` saying so.
    package init(commandLine chosen: String?) throws(CallbackError) {
        if let chosen, let parent = Self.missingDirectory(of: chosen) {
            throw CallbackError(.io, "--seen '\(chosen)': there is no directory '\(parent)' (a new nonce file elsewhere would not know the requests already accepted); create it first")
        }
        self.init(path: chosen ?? StateDirectory.path() + "/switchyard/callback-nonces")
    }

    /// The directory `path` would be in when there is no such directory, or nil. A nonce file
    /// started elsewhere would not know the requests already accepted, so a chosen file's
    /// directory must exist. A bare name is in the working directory.
    public static func missingDirectory(of path: String) -> String? {
        // (NSString's deletingLastPathComponent traps on ".".)
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        let parent = trimmed.lastIndex(of: "/").map { $0 == trimmed.startIndex ? "/" : String(trimmed[..<$0]) } ?? ""
        var isDirectory: ObjCBool = false
        guard !parent.isEmpty, !(FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory) && isDirectory.boolValue) else { return nil }
        return parent
    }
}
