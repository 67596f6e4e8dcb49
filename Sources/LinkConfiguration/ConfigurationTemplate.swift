import AssociatedDomains
import Foundation
import LinkRouting
import SwitchyardCore
import SwitchyardDocuments

/// A first configuration for an app, as `switchyard init` writes it: a commented service
/// configuration and the route table it names, which the app routes with too. The texts are read
/// back as `serve` reads them, and their association files validated, before anyone writes them.
package struct ConfigurationTemplate: Sendable {
    /// The domain of the app's universal links and of the service (`links.example.com`).
    package var domain: String
    /// The iOS app, when there is one: team ID, bundle ID, and the App Store ID if the app is published.
    package var apple: (teamID: String, bundleID: String, appStoreID: String?)?
    /// The Android app, when there is one: its package and SHA-256 signing fingerprints.
    package var android: (package: String, fingerprints: [String])?
    /// The app's custom URL scheme (`plur`), when it has one.
    package var scheme: String?
    /// The app's name, for the landing pages' title.
    package var name: String
    /// The route table's file name, relative to the configuration.
    package var routeTableName = "routes.yaml"

    /// A template for these values; nothing is checked until ``files()``.
    package init(domain: String, apple: (teamID: String, bundleID: String, appStoreID: String?)?,
                android: (package: String, fingerprints: [String])?, scheme: String?, name: String) {
        self.domain = domain
        self.apple = apple
        self.android = android
        self.scheme = scheme
        self.name = name
    }

    /// Writes the files into `directory` (made when missing) as `switchyard.yaml` and
    /// ``routeTableName``, and returns their paths. Without `replacing`, a file already there
    /// (or a symbolic link, even a dangling one) stops it before anything is written; when the
    /// second file cannot be written, the first is removed again. Errors name the path and why.
    package func write(into directory: String, replacing: Bool) throws(ConfigurationError) -> (configuration: String, routes: String) {
        let files = try files()
        let configurationPath = (directory as NSString).appendingPathComponent("switchyard.yaml")
        let routesPath = (directory as NSString).appendingPathComponent(routeTableName)
        if !replacing {
            // attributesOfItem reads the link itself: a symlink is there even when what it points at is not.
            for path in [configurationPath, routesPath] where (try? FileManager.default.attributesOfItem(atPath: path)) != nil {
                throw ConfigurationError(.invalidConfiguration, "\(path) exists already; nothing was written (--force replaces it)")
            }
        }
        for path in [configurationPath, routesPath] where (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType == .typeDirectory {
            throw ConfigurationError(.invalidConfiguration, "\(path) is a directory; nothing was written")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ConfigurationError(.invalidConfiguration, "cannot write into \(directory): it is a file, not a directory")
        }
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw ConfigurationError(.invalidConfiguration, "cannot make the directory \(directory): a part of the path is a file, or it may not be written here")
        }
        do throws(FileError) {
            try DurableFile.write(routesPath, Array(files.routes.utf8))
            do throws(FileError) { try DurableFile.write(configurationPath, Array(files.configuration.utf8)) } catch {
                // Nothing half-written: the route table goes too (when it was not there before).
                if !replacing { try? FileManager.default.removeItem(atPath: routesPath) }
                throw error
            }
        } catch {
            throw ConfigurationError(.invalidConfiguration, error.message)
        }
        return (configurationPath, routesPath)
    }

    /// The two files' texts, checked: the configuration reads as `serve` reads it, `serve` would
    /// host it, and its AASA and assetlinks pass `aasa validate` and `assetlinks validate`.
    /// Throws ``ConfigurationError`` naming the value at fault.
    package func files() throws(ConfigurationError) -> (configuration: String, routes: String) {
        // One line of printable text each: a line break would end a YAML comment or value.
        for (name, value) in [("name", name), ("domain", domain), ("bundle ID", apple?.bundleID ?? ""), ("team ID", apple?.teamID ?? ""),
                              ("App Store ID", apple?.appStoreID ?? ""), ("package", android?.package ?? ""), ("scheme", scheme ?? "")]
        where value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }) {
            throw ConfigurationError("\(name): \(JSONWriter.quote(value)) contains a control character or a line break")
        }
        if name.trimmingCharacters(in: .whitespaces).isEmpty { throw ConfigurationError("name: the app's name is empty") }
        if let problem = Self.domainProblem(domain) { throw ConfigurationError("domain: \(JSONWriter.quote(domain)) \(problem)") }
        guard apple != nil || android != nil else {
            throw ConfigurationError("no app: give the iOS app (team ID and bundle ID), the Android app (package and fingerprint), or both")
        }
        if let android {
            guard !android.fingerprints.isEmpty else {
                throw ConfigurationError("fingerprint: the Android app needs the SHA-256 fingerprint of its signing certificate (keytool -list -v, or Play Console → App integrity)")
            }
            for fingerprint in android.fingerprints where AssetLinks.normalizedFingerprint(fingerprint) == nil {
                throw ConfigurationError("fingerprint: \(JSONWriter.quote(fingerprint)) is not a SHA-256 fingerprint (32 bytes in hex, such as 14:6D:E9:…:E5)")
            }
        }
        let routes = routeTableText
        let configuration = configurationText
        let document: JSONValue
        do {
            var merged = try StructuredDocument.parse(yaml: configuration, source: "switchyard.yaml").objectMembers ?? []
            merged.removeAll { $0.key == "routeTable" }
            merged += try StructuredDocument.parse(yaml: routes, source: routeTableName).objectMembers ?? []
            document = .object(merged)
        } catch {
            throw ConfigurationError("the written files do not read back: \(error)", cause: error)
        }
        let service = try ServiceConfiguration(document: document)
        if let problem = service.servingProblem { throw ConfigurationError(problem) }
        if apple != nil {
            let aasa = Array(JSONWriter.compact(service.appSiteAssociation).utf8)
            if let finding = AppSiteAssociation.validate(bytes: aasa).first(where: { $0.severity == .error }) {
                throw ConfigurationError("the AASA it makes is not valid: \(finding.path): \(finding.message)")
            }
        }
        if android != nil {
            let links = Array(JSONWriter.compact(service.assetLinks.json).utf8)
            if let finding = AssetLinks.validate(bytes: links).1.first(where: { $0.severity == .error }) {
                throw ConfigurationError("the assetlinks it makes are not valid: \(finding.path): \(finding.message)")
            }
        }
        return (configuration, routes)
    }

    /// Why `domain` cannot carry an app's universal links, or nil: it must be a public DNS name
    /// (two labels at least, letters, digits and hyphens, 63 per label, 253 in all), not an
    /// address or `localhost` — iOS and Android fetch the association files from it over https.
    static func domainProblem(_ domain: String) -> String? {
        let host = domain.lowercased()
        if host.contains("://") || host.contains("/") || host.contains(":") {
            let bare = URLComponents(string: host.contains("://") ? host : "https://" + host)?.host.map { " (\($0))" } ?? ""
            return "is not a domain name: give the host alone\(bare), without scheme, port or path"
        }
        if let problem = WebURL.hostProblem(host, allowingPunycode: true) { return problem }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        guard host.utf8.count <= 253, labels.count >= 2 else { return "is not a public domain name (such as links.example.com)" }
        for label in labels {
            guard (1...63).contains(label.utf8.count), label.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }),
                  label.first != "-", label.last != "-" else {
                return "is not a DNS name: each label has 1–63 letters, digits or hyphens, and no hyphen at either end"
            }
        }
        if labels.last!.allSatisfy(\.isNumber) { return "is an IP address; universal links need a domain name" }
        return nil
    }

    /// A YAML scalar in double quotes, escaped as JSON (YAML's double-quoted style reads it so).
    private static func quoted(_ text: String) -> String { JSONWriter.quote(text) }

    var routeTableText: String {
        var lines = [
            "# The route table: which links open which screen of the app. `serve` builds the association",
            "# files (apple-app-site-association, assetlinks.json) from it, and the app routes incoming",
            "# links with the same file (LinkRouting: `LinkRouter(contentsOf: \"\(routeTableName)\")`).",
            "# Patterns: /path/{name}, typed {id:int} {id:uuid} {tab:home|search} {rest:*}; query items with",
            "# `query: {item: parameter}` (`parameter?` when optional). The first route that matches wins.",
            "# Check a URL: switchyard route --routes \(routeTableName) https://\(domain.lowercased())/i/abc",
            "hosts: [\(Self.quoted(domain.lowercased()))]   # the first host is canonical",
            "routes:",
            "  # The links the service makes (POST /api/links) are https://\(domain.lowercased())/i/CODE: they open",
            "  # the app where it is installed, and a landing page with the store buttons where it is not.",
            "  - {name: link, pattern: \"/i/{code}\"}",
            "  # Add the paths your app opens, for example:",
            "  # - {name: product, pattern: \"/p/{id:int}\"}",
            "  # - {name: legal, pattern: \"/legal/*\", exclude: true}   # kept out of the app on both platforms",
        ]
        if let scheme {
            lines += [
                "  # The app's own scheme, for links the app builds or the service stores as deep links:",
                "  # - {name: appProduct, pattern: \"\(scheme)://product/{id:int}\"}",
                "  # A web route's landing page offers \"Open in the app\" once switchyard.yaml names its app",
                "  # route under landing.pages (product: appProduct).",
            ]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    var configurationText: String {
        var lines = [
            "# The Switchyard link service for \(name), written by `switchyard init`.",
            "# Run it from this directory: switchyard serve (it reads the files once: restart it after editing them)",
            "# Every key, with its type and default: docs/operator-guide.md#every-key",
            "",
            "routeTable: \(Self.quoted(routeTableName))   # hosts and routes, shared with the app",
            "",
        ]
        if let apple {
            lines += [
                "apple:",
                "  - teamId: \(Self.quoted(apple.teamID))   # Membership details in the developer account",
                "    bundleId: \(Self.quoted(apple.bundleID))",
            ]
            if let store = apple.appStoreID {
                lines.append("    appStoreId: \(Self.quoted(store))   # the App Store button and the Smart App Banner")
            } else {
                lines.append("    # appStoreId: \"1234567890\"   # once the app is in the App Store: its store button")
            }
            if let scheme { lines.append("    scheme: \(Self.quoted(scheme))   # deep links may use it") }
        }
        if let android {
            lines += [
                "",
                "android:",
                "  - package: \(Self.quoted(android.package))",
                "    fingerprints:   # SHA-256 of each signing certificate (keytool -list -v, or Play Console → App integrity)",
            ]
            var seen = Set<String>()
            lines += android.fingerprints.compactMap(AssetLinks.normalizedFingerprint).filter { seen.insert($0).inserted }.map { "      - \(Self.quoted($0))" }
        }
        lines += ["", "service:"]
        if apple == nil, let scheme { lines.append("  deepLinkSchemes: [\(Self.quoted(scheme))]   # deep links may use it") }
        lines += [
            "  publicURL: \(Self.quoted("https://" + domain.lowercased()))   # the origin people and apps reach the service at",
            "  # trustForwardedFor: true   # behind a reverse proxy of your own (it terminates TLS)",
            "",
            "landing:",
            "  title: \(Self.quoted(name))   # the landing pages' title when a link has none",
            "  # description: \"…\"",
            "  # icon: \"https://\(domain.lowercased())/icon.png\"",
        ]
        if scheme != nil {
            lines += [
                "  # pages:   # the app route a web route's page opens (\"Open in the app\"), by route name:",
                "  #   product: appProduct   # /p/42 → the app's product/42",
            ]
        }
        lines += [
            "",
            "# The other sections (links, invites, rateLimit, resolve, webhooks, visits, deferred) keep",
            "# their defaults; see the reference.",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
