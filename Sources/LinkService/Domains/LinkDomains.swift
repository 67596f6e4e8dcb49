import LinkConfiguration
import LinkRequests
import LinkStorage
import SwitchyardCore

/// The domains links are made on, and how a link's stored key (``LinkKey``) names its domain:
/// the first domain's links are keyed by their code alone, another domain's by `name/code`.
struct LinkDomains: Sendable {
    /// The whole configuration (its own keys are the first domain's).
    let configuration: ServiceConfiguration
    /// Each served domain's configuration, by index.
    let configurations: [ServiceConfiguration]
    /// Each domain's input checks (its routes, schemes and hosts), by index.
    let inputs: [LinkInput]
    /// Which domain a request's `Host` names.
    let hosts: DomainHosts
    /// Domain index by name.
    let indexes: [String: Int]

    init(_ configuration: ServiceConfiguration) {
        self.configuration = configuration
        configurations = configuration.servedDomains
        inputs = configurations.map { LinkInput(configuration: $0) }
        hosts = configuration.domainHosts
        indexes = Dictionary(configurations.enumerated().map { ($1.domainName, $0) }) { first, _ in first }
    }

    /// The name a key carries for the domain at `index`: nil for the first.
    func keyName(_ index: Int) -> String? { index == 0 ? nil : configurations[index].domainName }

    /// The stored key of `code` on the domain at `index`.
    func key(code: String, domain index: Int) -> String { LinkKey.key(code: code, domain: keyName(index)) }

    /// The index of the domain a stored key belongs to; nil when it names no configured domain
    /// (a domain renamed or removed since).
    func index(ofKey key: String) -> Int? {
        guard let name = LinkKey.domain(of: key) else { return 0 }
        return indexes[name]
    }

    /// The name of the domain a stored key belongs to: its configured domain's, or the name it
    /// carries when no configured domain has that name any more (renamed or removed).
    func name(ofKey key: String) -> String {
        index(ofKey: key).map { configurations[$0].domainName } ?? LinkKey.domain(of: key) ?? configurations[0].domainName
    }

    /// The index of the domain named `name` in a request (`domain` in a body or a query); a
    /// name no domain has is the request's mistake, said with the names there are.
    func index(named name: String, field: String) throws(APIError) -> Int {
        guard let index = indexes[name] else {
            throw APIError.badRequest(.invalidDomain, "no domain is named \(JSONWriter.quote(name)) (domains: \(configurations.map(\.domainName).joined(separator: ", ")))", field: field)
        }
        return index
    }
}

/// What one domain's pages are made with: its landing pages and its claims.
struct DomainPages: Sendable {
    let pages: LandingPages
    let claims: Claims
}
