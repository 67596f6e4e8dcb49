import HTTPTypes
import LinkConfiguration
import LinkStorage
import SwitchyardCore

/// The domains links are made on, and how a link's stored key (``LinkKey``) names its domain:
/// the first domain's links are keyed by their code alone, another domain's by `name/code`.
package struct LinkDomains: Sendable {
    /// The whole configuration (its own keys are the first domain's).
    package let configuration: ServiceConfiguration
    /// Each served domain's configuration, by index.
    package let configurations: [ServiceConfiguration]
    /// Each domain's input checks (its routes, schemes and hosts), by index.
    package let inputs: [LinkInput]
    /// Which domain a request's `Host` names.
    package let hosts: DomainHosts
    /// Domain index by name.
    package let indexes: [String: Int]

    /// The domains `configuration` serves, each with its input checks made once.
    package init(_ configuration: ServiceConfiguration) {
        self.configuration = configuration
        configurations = configuration.servedDomains
        inputs = configurations.map { LinkInput(configuration: $0) }
        hosts = configuration.domainHosts
        indexes = Dictionary(configurations.enumerated().map { ($1.domainName, $0) }) { first, _ in first }
    }

    /// The name a key carries for the domain at `index`: nil for the first.
    package func keyName(_ index: Int) -> String? { index == 0 ? nil : configurations[index].domainName }

    /// The stored key of `code` on the domain at `index`.
    package func key(code: String, domain index: Int) -> String { LinkKey.key(code: code, domain: keyName(index)) }

    /// The index of the domain a stored key belongs to; nil when it names no configured domain
    /// (a domain renamed or removed since).
    package func index(ofKey key: String) -> Int? {
        guard let name = LinkKey.domain(of: key) else { return 0 }
        return indexes[name]
    }

    /// The name of the domain a stored key belongs to: its configured domain's, or the name it
    /// carries when no configured domain has that name any more (renamed or removed).
    package func name(ofKey key: String) -> String {
        index(ofKey: key).map { configurations[$0].domainName } ?? LinkKey.domain(of: key) ?? configurations[0].domainName
    }

    /// The index of the domain named `name` in a request (`domain` in a body or a query); a
    /// name no domain has is the request's mistake, said with the names there are.
    package func index(named name: String, field: String) throws(APIError) -> Int {
        guard let index = indexes[name] else {
            throw APIError.badRequest(.invalidDomain, "no domain is named \(JSONWriter.quote(name)) (domains: \(configurations.map(\.domainName).joined(separator: ", ")))", field: field)
        }
        return index
    }

    /// The domain a request asks for (`name`, from a body's or the query's `domain`) as an index,
    /// checked against what `token` may do there: 400 for a name no domain has, 403 for a domain
    /// its `scope` does not reach. Without a name: the token's one domain when it is limited to
    /// one, else the first.
    package func index(named name: String?, field: String, token: StoredToken, _ scope: TokenScope) throws(APIError) -> Int {
        let allowed = APIToken.domains(token, scope)
        let index: Int
        if let name {
            index = try self.index(named: name, field: field)
        } else if let only = allowed, only.count == 1, let one = only.first, let i = indexes[one] {
            index = i
        } else {
            index = 0
        }
        let named = configurations[index].domainName
        if let allowed, !allowed.contains(named) {
            throw APIError(.forbidden, .insufficientScope, "token \(token.name) may use \(scope.rawValue) on \(allowed.sorted().joined(separator: ", ")) only, not on \(named)", field: field)
        }
        return index
    }

    /// The key names (``keyName(_:)``) of the domains `token` may use `scope` on; nil when it
    /// may on every domain.
    package func keyNames(for token: StoredToken, _ scope: TokenScope) -> [String?]? {
        APIToken.domains(token, scope).map { allowed in configurations.indices.filter { allowed.contains(configurations[$0].domainName) }.map(keyName) }
    }
}
