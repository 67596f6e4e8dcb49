import Foundation
import SwitchyardCore

/// A signing key named as `ID=FILE`, the file holding the secret bytes: how a command line gives
/// the keys a request is signed or verified with.
public struct CallbackKey: Sendable {
    /// The key id, which travels in the signed URL.
    public var id: String
    /// The secret bytes, at least 16.
    public var secret: [UInt8]

    /// The first key id that more than one of `arguments` (each `ID=FILE`) names, or nil: only
    /// one of its files could be used, and which is a guess.
    public static func repeatedID(in arguments: [String]) -> Substring? {
        var ids: Set<Substring> = []
        return arguments.lazy.compactMap { $0.split(separator: "=", maxSplits: 1).first }.first { !ids.insert($0).inserted }
    }

    /// Why `text` is not `ID=FILE`, or nil. The key id travels in the signed URL and comes back
    /// in messages: printable text without spaces only.
    public static func argumentProblem(_ text: String) -> String? {
        guard case .success(let pair) = NamedArgument.split(text, at: "="), !pair.value.isEmpty else {
            return "\(text.displayExcerpt()) is not ID=FILE"
        }
        if let scalar = pair.name.unicodeScalars.first(where: { $0.isUnsafeToDisplay || $0 == " " }) {
            return "\(text.displayExcerpt()): the key id must not contain spaces, control or bidirectional format characters (it holds \(String(format: "U+%04X", scalar.value)))"
        }
        return nil
    }

    /// The secret of each key `ID=FILE` in `arguments` by its id, each file read (a repeated id:
    /// the first; see ``repeatedID(in:)``).
    package static func secrets(arguments: [String]) throws(CallbackKeyError) -> [String: [UInt8]] {
        var secrets: [String: [UInt8]] = [:]
        for argument in arguments {
            let key = try CallbackKey(argument: argument)
            if secrets[key.id] == nil { secrets[key.id] = key.secret }
        }
        return secrets
    }

    /// The key `ID=FILE` with its file read (at most 1 MiB). Throws a refusal that says why: a
    /// file that cannot be read, or one shorter than 16 bytes.
    public init(argument text: String) throws(CallbackKeyError) {
        if let problem = Self.argumentProblem(text) { throw CallbackKeyError(.invalidValue, problem) }
        let eq = text.firstIndex(of: "=")!
        id = String(text[..<eq])
        let path = String(text[text.index(after: eq)...])
        do { secret = try DurableFile.read(path, maximumBytes: 1 << 20) } catch { throw CallbackKeyError(.io, error.message) }
        if secret.count < 16 {
            throw CallbackKeyError(.io, "key file '\(path)' has \(secret.count) byte\(secret.count == 1 ? "" : "s"); a key needs at least 16 random bytes (head -c 32 /dev/urandom > \(path))")
        }
    }
}

/// Why a ``CallbackKey`` cannot be had.
public typealias CallbackKeyError = DomainError<CallbackKeyErrors>

/// The domain of ``CallbackKeyError``.
public enum CallbackKeyErrors: ErrorDomain {}
