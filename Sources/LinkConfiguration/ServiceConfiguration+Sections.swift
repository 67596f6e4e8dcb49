import AssociatedDomains
import Foundation
import LinkPages
import LinkRouting
import SwitchyardCore

extension ServiceConfiguration {
    /// Reads the service's own sections: `service`, `links`, `landing`, `invites`, `rateLimit`,
    /// `resolve`. Each error names the key.
    mutating func readServiceSections(_ document: JSONValue) throws(ConfigurationError) {
        // Unknown keys and wrong types were refused by `ServiceConfiguration.shape` already.
        if let service = document["service"] {
            if let url = try string(service, "publicURL", "service") {
                // Pages and API answers are built on it, so it is read as browsers read it.
                let web: WebURL
                switch WebURL.parse(url, trustedHosts: Set(router.hosts.map { $0.lowercased() })) {
                case .success(let w): web = w
                case .failure(let refusal): throw ConfigurationError("service.publicURL: \(JSONWriter.quote(url)): the URL \(refusal.reason)")
                }
                guard web.href.hasSuffix("/"), !web.href.contains("?"), !web.href.contains("#"), web.href.utf8.filter({ $0 == UInt8(ascii: "/") }).count == 3 else {
                    throw ConfigurationError("service.publicURL: \(JSONWriter.quote(url)) must be an origin such as https://links.example.com, without path, query or fragment")
                }
                publicURL = String(web.href.dropLast())
            }
            redirectHosts = try strings(service, "redirectHosts", "service")
            for (i, host) in redirectHosts.enumerated() {
                if let problem = WebURL.hostProblem(host.lowercased(), allowingPunycode: true) {
                    throw ConfigurationError("service.redirectHosts[\(i)]: \(JSONWriter.quote(host)) \(problem)")
                }
            }
            deepLinkSchemes = try strings(service, "deepLinkSchemes", "service")
            for (i, scheme) in deepLinkSchemes.enumerated() {
                if let problem = Self.schemeProblem(scheme) { throw ConfigurationError("service.deepLinkSchemes[\(i)]: \(problem)") }
            }
            switch service["trustForwardedFor"] {
            case .bool(let trust)?: trustedProxies = trust ? 1 : 0
            case .number(let n, _)?:
                guard n == n.rounded(), (0...10).contains(n) else {
                    throw ConfigurationError("service.trustForwardedFor: true, false, or how many proxies of your own stand in front of the service (0 to 10)")
                }
                trustedProxies = Int(n)
            default: break
            }
            if let n = try int(service, "connectionsPerAddress", "service") {
                guard n >= 0 else { throw ConfigurationError("service.connectionsPerAddress: \(n) is below 0; give 0 (no limit) or more connections") }
                connectionsPerAddress = n
            }
            if let n = try int(service, "maximumBodyBytes", "service") {
                guard n >= 256 else { throw ConfigurationError("service.maximumBodyBytes: at least 256") }
                maximumBodyBytes = n
            }
            if let n = try int(service, "maximumBulkBodyBytes", "service") {
                guard n >= maximumBodyBytes else { throw ConfigurationError("service.maximumBulkBodyBytes: at least service.maximumBodyBytes (\(maximumBodyBytes))") }
                maximumBulkBodyBytes = n
            }
        }
        if let links = document["links"] {
            if let alphabet = try string(links, "alphabet", "links") {
                let chars = Array(alphabet)
                guard chars.count >= 8, Set(chars).count == chars.count,
                      chars.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                    throw ConfigurationError("links.alphabet: needs at least 8 distinct ASCII letters, digits, - or _")
                }
                codeAlphabet = chars
            }
            if let n = try int(links, "passwordCost", "links") {
                guard (10...20).contains(n) else {
                    throw ConfigurationError("links.passwordCost: \(n) is outside 10–20 (scrypt's N is 2 to this power; 14, the default, is 16 MB and tens of milliseconds a hash)")
                }
                passwordCost = n
            }
            if let n = try int(links, "length", "links") {
                guard (4...32).contains(n) else { throw ConfigurationError("links.length: between 4 and 32") }
                codeLength = n
            }
        }
        if let landing = document["landing"] {
            defaultTitle = try string(landing, "title", "landing") ?? defaultTitle
            defaultDescription = try string(landing, "description", "landing") ?? defaultDescription
            defaultImage = try webURL(landing, "image", "landing")
            icon = try webURL(landing, "icon", "landing")
            defaultWebURL = try webURL(landing, "webURL", "landing")
            expiredURL = try webURL(landing, "expiredURL", "landing")
            campaignParameters = landing["campaignParameters"] == .bool(true)
            if let token = landing["appStoreProviderToken"] {
                let number = token.stringValue == nil ? try int(landing, "appStoreProviderToken", "landing") : nil
                let text = token.stringValue ?? number.map { String($0) } ?? ""
                guard !text.isEmpty, text.count <= 20, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                    throw ConfigurationError("landing.appStoreProviderToken: \(JSONWriter.quote(text)) is not a provider token (the digits App Store Connect shows as pt=)")
                }
                appStoreProviderToken = text
            }
            for (name, value) in landing["pages"]?.objectMembers ?? [] {
                let path = "landing.pages.\(name)"
                guard let route = router.routes.first(where: { $0.name == name }), route.kind == .universal else {
                    throw ConfigurationError("\(path): no universal-link route named \(JSONWriter.quote(name))")
                }
                var page = LandingPage()
                if let app = value.stringValue { page.appRoute = app } else {
                    page.appRoute = try string(value, "app", path)
                    page.title = try string(value, "title", path)
                    page.description = try string(value, "description", path)
                }
                if let app = page.appRoute, !router.routes.contains(where: { $0.name == app }) {
                    throw ConfigurationError("\(path): no route named \(JSONWriter.quote(app))")
                }
                landingPages[name] = page
            }
        }
        if let inv = document["invites"] {
            guard let route = try string(inv, "route", "invites") else { throw ConfigurationError("invites.route: required (the app route an invite stands for)") }
            guard let r = router.routes.first(where: { $0.name == route }) else { throw ConfigurationError("invites.route: no route named \(JSONWriter.quote(route))") }
            let parameters = Set(r.parameterNames)
            let codeParameter = try string(inv, "codeParameter", "invites")
            if let c = codeParameter, !parameters.contains(c) {
                throw ConfigurationError("invites.codeParameter: route \(route) has no parameter \(JSONWriter.quote(c))")
            }
            var fields: [(field: String, parameter: String)] = []
            for (field, value) in inv["fields"]?.objectMembers ?? [] {
                guard let p = value.stringValue, parameters.contains(p) else {
                    throw ConfigurationError("invites.fields.\(field): must name a parameter of route \(route) (\(parameters.sorted().joined(separator: ", ")))")
                }
                fields.append((field, p))
            }
            guard !fields.isEmpty else { throw ConfigurationError("invites.fields: map at least one request field to a route parameter") }
            let required = try strings(inv, "required", "invites")
            for f in required where !fields.contains(where: { $0.field == f }) {
                throw ConfigurationError("invites.required: \(JSONWriter.quote(f)) is not one of invites.fields")
            }
            invites = Invites(route: route, codeParameter: codeParameter, fields: fields, required: required)
        }
        if let limits = document["rateLimit"] {
            if let t = limits["perToken"] { perTokenLimit = try rateLimit(t, "rateLimit.perToken") }
            if let a = limits["perAddress"] { perAddressLimit = try rateLimit(a, "rateLimit.perAddress") }
            if let p = limits["passwordPerAddress"] { passwordPerAddressLimit = try rateLimit(p, "rateLimit.passwordPerAddress") }
            if let p = limits["passwordPerLink"] { passwordPerLinkLimit = try rateLimit(p, "rateLimit.passwordPerLink") }
        }
        if let resolve = document["resolve"] {
            manifestPath = try string(resolve, "manifest", "resolve")
            resolveOffline = resolve["offline"] == .bool(true)
            resolveAllowsPrivateAddresses = resolve["allowPrivateAddresses"] == .bool(true)
            for (key, range, target) in [("scriptTimeLimit", 0.001...3600.0, \ServiceConfiguration.resolveScriptTimeLimit),
                                         ("regexTimeLimit", 0.001...3600.0, \ServiceConfiguration.resolveRegexTimeLimit)] {
                guard case .number(let seconds, _)? = resolve[key] else { continue }
                guard range.contains(seconds) else { throw ConfigurationError("resolve.\(key): a number of seconds from 0.001 to 3600") }
                self[keyPath: target] = seconds
            }
            if let mb = try int(resolve, "scriptMemoryMB", "resolve") {
                guard (16...65536).contains(mb) else { throw ConfigurationError("resolve.scriptMemoryMB: from 16 to 65536") }
                resolveScriptMemoryMB = mb
            }
            if let mode = try string(resolve, "scriptIsolation", "resolve") {
                guard mode == "process" || mode == "none" else { throw ConfigurationError("resolve.scriptIsolation: \"process\" or \"none\", not \"\(mode)\"") }
                resolveIsolatesScripts = mode == "process"
            }
            if let n = try int(resolve, "threads", "resolve") {
                guard (1...256).contains(n) else { throw ConfigurationError("resolve.threads: from 1 to 256") }
                resolveThreads = n
            }
        }
        if let section = document["webhooks"] { webhooks = try WebhookSettings(section) }
        if let section = document["visits"] { visits = try VisitSettings(section) }
        if let section = document["deferred"] { deferred = try DeferredSettings(section) }
        if let section = document["appleCDN"] { appleCDN = try AppleCDNSettings(section) }
    }

    /// Why a custom scheme cannot be an app's deep-link scheme, or nil.
    static func schemeProblem(_ scheme: String) -> String? {
        let s = scheme.lowercased()
        guard URLInput.isSchemeName(s) else {
            return "\(JSONWriter.quote(scheme)) is not a URL scheme (a letter, then letters, digits, + - .)"
        }
        if Destinations.forbiddenSchemes.contains(s) || s == "http" || s == "https" {
            return "\(s): cannot be a deep-link scheme"
        }
        if Destinations.browserSchemes.contains(s) {
            return "\(s): opens a browser (or may fall back to a web page), so it cannot be a deep-link scheme"
        }
        if PlistCheck.reservedSchemes.contains(s) {
            return "\(s): belongs to the system (iOS never routes it to an app), so it cannot be an app's scheme"
        }
        return nil
    }

    /// An http(s) URL as a browser serialises it; refused with the reason otherwise.
    private func webURL(_ object: JSONValue, _ key: String, _ path: String) throws(ConfigurationError) -> String? {
        guard let url = try string(object, key, path) else { return nil }
        switch WebURL.parse(url, trustedHosts: allowedRedirectHosts) {
        case .success(let web):
            if key == "webURL" && !allowedRedirectHosts.contains(web.host) {
                throw ConfigurationError("\(path).\(key): host \(web.host) is not one of the configuration's hosts or service.redirectHosts")
            }
            return web.href
        case .failure(let refusal): throw ConfigurationError("\(path).\(key): \(JSONWriter.quote(url)): the URL \(refusal.reason)")
        }
    }

    private func string(_ object: JSONValue, _ key: String, _ path: String) throws(ConfigurationError) -> String? {
        guard let v = object[key] else { return nil }
        guard let s = v.stringValue else { throw ConfigurationError("\(path).\(key): expected a string, found \(v.typeName)") }
        return s
    }

    private func strings(_ object: JSONValue, _ key: String, _ path: String) throws(ConfigurationError) -> [String] {
        guard let v = object[key] else { return [] }
        guard let a = v.arrayValue, a.allSatisfy({ $0.stringValue != nil }) else {
            throw ConfigurationError("\(path).\(key): expected a list of strings")
        }
        return a.compactMap(\.stringValue)
    }

    private func int(_ object: JSONValue, _ key: String, _ path: String) throws(ConfigurationError) -> Int? {
        guard let v = object[key] else { return nil }
        guard case .number(let d, let text) = v, d == d.rounded() else {
            throw ConfigurationError("\(path).\(key): expected a whole number, found \(v.typeName)")
        }
        // Above 2^53 a JSON number no longer holds every whole number: 9007199254740993 would read as …992.
        guard d.magnitude < 0x1p53 else {
            throw ConfigurationError("\(path).\(key): \(text.displayExcerpt()) is too large (a whole number here is below 2^53)")
        }
        return Int(d)
    }

    private func rateLimit(_ object: JSONValue, _ path: String) throws(ConfigurationError) -> RateLimit {
        guard let perMinute = try int(object, "perMinute", path), perMinute > 0 else { throw ConfigurationError("\(path).perMinute: a positive whole number") }
        let burst = try int(object, "burst", path) ?? max(1, perMinute / 10)
        guard burst > 0 else { throw ConfigurationError("\(path).burst: a positive whole number") }
        return RateLimit(perMinute: Double(perMinute), burst: Double(burst))
    }
}
