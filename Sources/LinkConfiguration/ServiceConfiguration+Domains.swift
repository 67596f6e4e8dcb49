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
            guard entry["hosts"]?.arrayValue?.isEmpty == false || entry["routeTable"] != nil else {
                throw ConfigurationError("\(at).hosts: a domain needs its host names (hosts, or those of its routeTable)")
            }
            if i > 0, entry["invites"] != nil {
                throw ConfigurationError("\(at).invites: the invite API makes the first domain's links; move invites to domains[0]")
            }
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
            // A request's host is matched as browsers send it: each configured host must be one,
            // written so (a trailing dot, a wildcard or a host a browser would rewrite matches
            // no request, or another domain's).
            let written = entry["hosts"]?.arrayValue?.compactMap(\.stringValue)
            for (j, host) in view.router.hosts.enumerated() {
                let raw = written.map { j < $0.count ? $0[j] : host } ?? host
                let place = written == nil ? "\(at).routeTable: host \(JSONWriter.quote(raw))" : "\(at).hosts[\(j)]: \(JSONWriter.quote(raw))"
                if let problem = WebURL.hostProblem(host, allowingPunycode: true) { throw ConfigurationError("\(place) \(problem)") }
                if raw.utf8.allSatisfy({ $0 < 0x80 }), raw.lowercased() != host {
                    throw ConfigurationError("\(place) is not a host as browsers send it (they would send \(host)); write \(host)")
                }
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
                    let key = view.router.hosts.contains(host) ? "hosts" : "publicURL"
                    throw ConfigurationError("\(at).\(key): \(host) is a host of domains[\(other)] (\(views[other].domainName)) already; a host belongs to one domain")
                }
                hostOwners[host] = i
            }
            if view.apple.isEmpty && view.android.isEmpty {
                throw ConfigurationError("\(at): no app (apple or android), so the domain's association files would name none and its links would open no app; give it an apple entry (teamId, bundleId) or an android entry (package, fingerprints)")
            }
            if let problem = view.servingProblem { throw ConfigurationError(Self.domainMessage(problem, at: at)) }
            views.append(view)
        }
        // A Firebase URL prefix is one domain's, and is served on its host by that host's domain.
        for (i, view) in views.enumerated() {
            for (j, prefix) in view.fdlPrefixes.enumerated() {
                if let other = views.indices.first(where: { $0 != i && (views[$0].fdlPrefixes.contains(prefix) || views[$0].servesHost(prefix.host)) }) {
                    throw ConfigurationError("domains[\(i)].fdlPrefixes[\(j)]: \(prefix.text) is on a host or prefix of domains[\(other)] (\(views[other].domainName)); a prefix is served on its host, by that host's domain")
                }
            }
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

    /// Why `name` cannot name a domain, or nil: 1–253 lower-case letters, digits, `.` and `-`,
    /// starting with a letter or digit (a host name is one), as API requests and tokens write it.
    package static func domainNameProblem(_ name: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= 253 else { return "is not 1 to 253 characters long" }
        guard name.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x2E }),
              let first = name.utf8.first, (0x61...0x7A).contains(first) || (0x30...0x39).contains(first) else {
            return "may hold lower-case letters, digits, '.' and '-' only, starting with a letter or digit"
        }
        return nil
    }

    /// The domain and code of a short link at `host` and `path` (as a browser sends them): under
    /// the longest of the domains' `fdlPrefixes` it falls under, else at the root of a domain's
    /// host; nil when no domain has it. A code is one path segment after the prefix's path
    /// (`prefixPath`, empty at the root).
    package func shortLink(host: String, path: String) -> (domain: Int, code: String, prefixPath: String)? {
        var best: (domain: Int, code: String, prefixPath: String)?
        for (d, domain) in servedDomains.enumerated() {
            for prefix in domain.fdlPrefixes where prefix.host == host {
                guard let code = prefix.code(in: path), prefix.path.count > (best?.prefixPath.count ?? -1) else { continue }
                best = (d, code, prefix.path)
            }
        }
        if let best { return best }
        guard let d = servedDomains.firstIndex(where: { $0.servesHost(host) }),
              path.hasPrefix("/"), case let code = path.dropFirst(), !code.isEmpty, !code.contains("/") else { return nil }
        return (d, String(code), "")
    }

    /// Where this domain's imported Firebase links are: its first URL prefix on one of its hosts,
    /// else its public URL.
    package var fdlBase: String {
        fdlPrefixes.first { servesHost($0.host) }?.text ?? publicURL
    }

    /// Whether `host` (as browsers send it) is this domain's: one of its route table's hosts, or
    /// its public URL's.
    package func servesHost(_ host: String) -> Bool { router.hosts.contains(host) || publicHost == host }

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

/// A Firebase Dynamic Links URL prefix (`domainUriPrefix`): an https host and a path of zero or
/// more segments, such as `https://example.page.link` or `https://go.example.com/invite`.
package struct FDLPrefix: Sendable, Equatable {
    /// The host, lower-case.
    package let host: String
    /// The path: empty, or `/` and segments, without a trailing slash.
    package let path: String
    /// The prefix as written in links: `https://host/path`.
    package var text: String { "https://" + host + path }

    /// The code of a short link whose path is this prefix's and one segment more; nil otherwise.
    package func code(in requestPath: String) -> String? {
        guard requestPath.hasPrefix(path + "/") else { return nil }
        let code = requestPath.dropFirst(path.count + 1)
        return code.isEmpty || code.contains("/") ? nil : String(code)
    }

    /// Reads `text`, refusing at `key` what is not an https host with an optional plain path.
    package init(_ text: String, at key: String) throws(ConfigurationError) {
        // The host as written (URLComponents would decode a punycode host on Linux).
        guard let parts = URLComponents(string: text), parts.scheme?.lowercased() == "https", let host = BrowserURL.host(text), !host.isEmpty,
              parts.port == nil, parts.user == nil, parts.password == nil, parts.query == nil, parts.fragment == nil else {
            throw ConfigurationError("\(key): \(JSONWriter.quote(text)) is not a Dynamic Links URL prefix (https://HOST or https://HOST/PATH, as Firebase's domainUriPrefix)")
        }
        if let problem = WebURL.hostProblem(host, allowingPunycode: true) { throw ConfigurationError("\(key): \(JSONWriter.quote(text)) \(problem)") }
        var path = parts.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard path.isEmpty || (path.hasPrefix("/") && segments.allSatisfy { s in
            !s.isEmpty && s != "." && s != ".." && s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) || $0 == 0x2D || $0 == 0x5F || $0 == 0x2E }
        }) else {
            throw ConfigurationError("\(key): \(JSONWriter.quote(text)) has a path of other than segments of letters, digits, '-', '_' and '.' (and no . or ..)")
        }
        if let first = segments.first, ServiceConfiguration.isServicePath("/" + first) || first.lowercased() == "i" || first.lowercased() == "d" {
            throw ConfigurationError("\(key): \(JSONWriter.quote(text)) starts with /\(first), a path the service answers itself")
        }
        self.host = host
        self.path = path
    }
}
