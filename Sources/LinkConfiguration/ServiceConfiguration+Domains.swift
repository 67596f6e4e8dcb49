import Foundation
import LinkRouting
import SwitchyardCore

extension ServiceConfiguration {
    /// Every domain the service serves: each of `domains`, or this configuration alone.
    package var servedDomains: [ServiceConfiguration] { domains.isEmpty ? [self] : domains }

    /// Reads a configuration that lists `domains`. The service-wide sections are read first, so
    /// their errors name their keys as at the top level; each domain is then read as a
    /// configuration of one domain (those sections and its own keys), its errors named under
    /// `domains[i]`. A host belongs to one domain, names are unique, and every domain has hosts
    /// and an app.
    init(domains list: JSONValue, in document: JSONValue, relativeTo directory: String?) throws(ConfigurationError) {
        guard case .object(let members) = document, let entries = list.arrayValue else {
            throw ConfigurationError("domains: a list of domains, each with its hosts, apps and routes")
        }
        for (key, _) in members where Self.domainKeys[key] != nil {
            throw ConfigurationError("\(key): with a domains list each domain has its own \(key); move it into the domain it belongs to (domains[0] for the first)")
        }
        if document["service"]?["publicURL"] != nil {
            throw ConfigurationError("service.publicURL: with a domains list each domain has its own publicURL; move it into the domain it belongs to (domains[0].publicURL for the first)")
        }
        guard !entries.isEmpty else {
            throw ConfigurationError("domains: empty; list at least one domain (its hosts, apps and routes), or write the one domain's keys at the top level without domains")
        }
        let shared = members.filter { $0.key != "domains" }
        // The service-wide sections alone: their errors are named as written.
        _ = try ServiceConfiguration(document: .object(shared + [("routes", .array([]))]), relativeTo: directory)
        var views: [ServiceConfiguration] = []
        var hostOwners: [String: Int] = [:]
        var nameOwners: [String: Int] = [:]
        for (i, entry) in entries.enumerated() {
            let at = "domains[\(i)]"
            guard case .object(let keys) = entry else { throw ConfigurationError("\(at): an object (hosts, apple, android, routes, …)") }
            var merged = shared.filter { $0.key != "service" }
            var service: [(key: String, value: JSONValue)] = {
                if case .object(let s)? = document["service"] { return s }
                return []
            }()
            for (key, value) in keys where key != "name" {
                if key == "publicURL" { service.append((key, value)) } else { merged.append((key, value)) }
            }
            if !service.isEmpty { merged.append(("service", .object(service))) }
            var view: ServiceConfiguration
            do { view = try ServiceConfiguration(document: .object(merged), relativeTo: directory) } catch {
                throw ConfigurationError(Self.domainMessage(error.message, at: at), location: error.location, cause: error.cause)
            }
            guard !view.router.hosts.isEmpty else {
                throw ConfigurationError("\(at).hosts: a domain needs its host names (hosts, or those of its routeTable)")
            }
            if let name = keys.first(where: { $0.key == "name" })?.value.stringValue {
                if let problem = Self.domainNameProblem(name) { throw ConfigurationError("\(at).name: \(JSONWriter.quote(name)) \(problem)") }
                view.domainName = name
            }
            if let other = nameOwners[view.domainName] {
                throw ConfigurationError("\(at).name: \(JSONWriter.quote(view.domainName)) names domains[\(other)] already; give each domain a name of its own (name)")
            }
            nameOwners[view.domainName] = i
            for host in view.router.hosts + [view.publicHost] where !host.isEmpty {
                if let other = hostOwners[host], other != i {
                    throw ConfigurationError("\(at).hosts: \(host) is a host of domains[\(other)] (\(views[other].domainName)) already; a host belongs to one domain")
                }
                hostOwners[host] = i
            }
            if view.apple.isEmpty && view.android.isEmpty {
                throw ConfigurationError("\(at): no app (apple or android), so the domain's association files would name none and its links would open no app; give it an apple entry (teamId, bundleId) or an android entry (package, fingerprints)")
            }
            if let problem = view.servingProblem { throw ConfigurationError(Self.domainMessage(problem, at: at)) }
            views.append(view)
        }
        self = views[0]
        domains = views
    }

    /// `message`, an error of one domain's configuration, with its key under `domains[i]`:
    /// `apple[0].teamId: …` is `domains[1].apple[0].teamId: …`; `service.publicURL` is the
    /// domain's `publicURL`.
    static func domainMessage(_ message: String, at path: String) -> String {
        if message.hasPrefix("service.publicURL") { return "\(path).publicURL" + message.dropFirst("service.publicURL".count) }
        return "\(path).\(message)"
    }

    /// Why `name` cannot name a domain, or nil: 1–63 lower-case letters, digits, `.` and `-`,
    /// as it is written in API requests, exports and the dashboard's addresses.
    package static func domainNameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 63 else { return "is not 1 to 63 characters long" }
        guard name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2E }) else {
            return "may hold lower-case letters, digits, '.' and '-' only"
        }
        return nil
    }

    /// Which domain serves a request, by its `Host`: see ``DomainHosts``.
    package var domainHosts: DomainHosts { DomainHosts(servedDomains, listed: !domains.isEmpty) }
}

/// Which domain serves a request, decided from the `Host` it names (as ``RequestHost`` reads it)
/// against each domain's hosts and its public URL's host. With a `domains` list a host no
/// domain names is served by none (the service answers 421); a configuration of one domain
/// serves every host, as it always did (a local run at 127.0.0.1:8080 included).
package struct DomainHosts: Sendable {
    /// Domain index by host, in the route table's form.
    let owners: [String: Int]
    /// Whether a host no domain names is refused (a `domains` list) or served by the only domain.
    package let strict: Bool

    package init(_ domains: [ServiceConfiguration], listed: Bool) {
        var owners: [String: Int] = [:]
        for (i, domain) in domains.enumerated() {
            for host in domain.router.hosts + [domain.publicHost] where !host.isEmpty && owners[host] == nil { owners[host] = i }
        }
        self.owners = owners
        strict = listed
    }

    /// The index of the domain serving `authority` (a `Host` header's value), or nil when none
    /// does: a host no domain names under a `domains` list, or no host at all.
    package func domain(authority: String?) -> Int? {
        guard strict else { return 0 }
        guard let authority else { return nil }
        if let index = owners[authority] { return index }
        return RequestHost.normalized(authority).flatMap { owners[$0] }
    }
}
