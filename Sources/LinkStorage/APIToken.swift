import SwitchyardCore
import Crypto
import Foundation

/// What a token may do. `admin` implies every other scope.
public enum TokenScope: String, Sendable, CaseIterable {
    case linksRead = "links:read"
    case linksWrite = "links:write"
    /// Issue and verify callback transactions.
    case transactions
    /// Create short links through the Firebase Dynamic Links REST API (`POST /v1/shortLinks`) and
    /// nothing else: the scope for the key an app carries where Firebase's Web API key was.
    case fdlCreate = "fdl:create"
    case admin
}

/// API tokens: `sy_<id>_<secret>`. The id finds the record; only SHA-256 of the secret is
/// stored, and the check compares hashes in constant time.
///
/// ```swift
/// let issued = APIToken.issue(name: "ci", scopes: [.linksWrite])
/// try await store.insert(issued.record)
/// print(issued.token)          // shown once
/// ```
public enum APIToken {
    /// A newly made token: the secret to show once, and the record to store.
    public struct Issued: Sendable {
        /// The full token, to hand to the user once.
        public var token: String
        /// What is stored.
        public var record: StoredToken
    }

    static let idAlphabet = Array("abcdefghijkmnopqrstuvwxyz23456789")

    /// Makes a new token with a random 12-character id and a 256-bit secret; a scope given twice is kept once.
    /// With `domains`, the link scopes (`links:read`, `links:write`) are granted on those domains
    /// only, each as `scope@domain` (see ``domains(_:_:)``); the others are every domain's.
    public static func issue(name: String, scopes: [TokenScope], domains: [String] = [], now: Date = Date()) -> Issued {
        var rng = SystemRandomNumberGenerator()
        let id = String((0..<12).map { _ in idAlphabet[Int(rng.next(upperBound: UInt(idAlphabet.count)))] })
        let secret = Base64URL.random(bytes: 32)
        var given: Set<String> = []
        let granted = scopes.flatMap { scope in
            domains.isEmpty || !domainScopes.contains(scope) ? [scope.rawValue] : domains.map { scope.rawValue + "@" + $0 }
        }.filter { given.insert($0).inserted }
        let record = StoredToken(id: id, name: name, secretHash: hash(secret), scopes: granted, createdAt: now, revokedAt: nil)
        return Issued(token: "sy_\(id)_\(secret)", record: record)
    }

    /// Why `name` cannot name a token, said of the name (`must be 1–100 characters`), or nil:
    /// names are printable text, as `token list` and the dashboard print them back.
    package static func nameProblem(_ name: String) -> String? {
        if name.isEmpty || name.count > 100 { return "must be 1–100 characters" }
        if let scalar = name.unicodeScalars.first(where: { $0.isUnsafeToDisplay || $0 == "\u{FFFD}" }) {
            return "contains \(String(format: "U+%04X", scalar.value)) (a control, bidirectional or replacement character)"
        }
        return nil
    }

    /// A token as `token list --json` shows it: never its secret or its hash.
    package struct Listing: Encodable, Sendable {
        /// The token's id.
        package var id: String
        /// The token's name.
        package var name: String
        /// The scopes.
        package var scopes: [String]
        /// When it was issued (ISO 8601).
        package var created: String
        /// When it was revoked (ISO 8601); null while it is valid.
        package var revoked: String?

        /// The listing of `token`.
        package init(_ token: StoredToken) {
            id = token.id
            name = token.name
            scopes = token.scopes
            created = token.createdAt.formatted(.iso8601)
            revoked = token.revokedAt?.formatted(.iso8601)
        }

        /// The listing on one line: `ID  NAME  [SCOPES]  created T`, and `REVOKED T` when it is.
        /// A name may hold anything the database holds: escape the line before it reaches a terminal.
        package var line: String { "\(id)  \(name)  [\(scopes.joined(separator: " "))]  created \(created)\(revoked.map { "  REVOKED \($0)" } ?? "")" }
    }

    /// Splits a token into id and secret; nil when it is not one of ours.
    package static func parse(_ token: String) -> (id: String, secret: String)? {
        let parts = token.split(separator: "_", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "sy", parts[1].count == 12, parts[2].count == 43 else { return nil }
        return (String(parts[1]), String(parts[2]))
    }

    /// Hex SHA-256 of a secret.
    package static func hash(_ secret: String) -> String {
        Hex.encode(SHA256.hash(data: Array(secret.utf8)))
    }

    /// Equal-length comparison whose time does not depend on where the bytes differ.
    package static func constantTimeEquals(_ a: String, _ b: String) -> Bool { ConstantTime.equals(a, b) }

    /// The scopes a token can be limited to some domains for.
    public static let domainScopes: Set<TokenScope> = [.linksRead, .linksWrite]

    /// The domains `record` may use `scope` on: nil for every domain (the scope granted as
    /// itself, or `admin`), else the names its `scope@name` grants give (empty: none). A node of
    /// an older version reads `links:read@shop` as no scope it knows, and refuses the token.
    package static func domains(_ record: StoredToken, _ scope: TokenScope) -> Set<String>? {
        if grants(record, scope) { return nil }
        let prefix = scope.rawValue + "@"
        return Set(record.scopes.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
    }

    /// Whether `record` grants `scope` on every domain.
    package static func grants(_ record: StoredToken, _ scope: TokenScope) -> Bool {
        record.scopes.contains(scope.rawValue) || record.scopes.contains(TokenScope.admin.rawValue)
            // A token that may make any link may make one through Firebase's API too.
            || (scope == .fdlCreate && record.scopes.contains(TokenScope.linksWrite.rawValue))
    }
}
