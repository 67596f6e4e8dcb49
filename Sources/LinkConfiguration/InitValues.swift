import Foundation
import SwitchyardCore

/// What `switchyard init` is given, by option or by answer: the values a ``ConfigurationTemplate``
/// is made from, checked one at a time as they are asked for and named by the option that gives
/// each (`--team-id`), since that is what the person typed.
package struct InitValues: Sendable {
    package var domain: String?
    package var teamID: String?
    package var bundleID: String?
    package var appStoreID: String?
    package var package: String?
    package var fingerprints: [String] = []
    package var scheme: String?
    package var name: String?

    /// Values as given; nothing is checked until ``template()``.
    package init(domain: String?, teamID: String?, bundleID: String?, appStoreID: String?, package: String?, fingerprints: [String],
                 scheme: String?, name: String?) {
        (self.domain, self.teamID, self.bundleID, self.appStoreID) = (domain, teamID, bundleID, appStoreID)
        (self.package, self.fingerprints, self.scheme, self.name) = (package, fingerprints, scheme, name)
    }

    /// The template for these values, or what is missing (a usage error, in words that name the
    /// options). The template itself is checked by ``ConfigurationTemplate/files()``.
    package func template() -> Result<ConfigurationTemplate, InitValuesError> {
        guard let domain, !domain.isEmpty else { return .failure(.init("--domain is missing: the domain of your universal links (links.example.com)")) }
        if (teamID == nil) != (bundleID == nil) {
            return .failure(.init(teamID == nil ? "--team-id is missing: the iOS app needs its team ID with --bundle-id" : "--bundle-id is missing: the iOS app needs its bundle ID with --team-id"))
        }
        if package == nil, !fingerprints.isEmpty { return .failure(.init("--package is missing: --fingerprint is for an Android app")) }
        guard teamID != nil || package != nil else {
            return .failure(.init("no app: give --team-id and --bundle-id (iOS), --package and --fingerprint (Android), or both"))
        }
        let apple = teamID.map { (teamID: $0, bundleID: bundleID!, appStoreID: appStoreID) }
        let android = package.map { (package: $0, fingerprints: fingerprints) }
        let appName = name ?? Self.derivedName(bundleID ?? package ?? domain)
        return .success(ConfigurationTemplate(domain: domain, apple: apple, android: android, scheme: scheme, name: appName))
    }

    /// A template's error with the option to change named: its messages name the configuration's
    /// keys (`apple[0].scheme: …`), which the person typed as options.
    package static func flagged(_ message: String) -> String {
        let options: [(prefix: String, flags: String)] = [
            ("apple[0].scheme", "--scheme"), ("apple[0].appStoreId", "--app-store-id"), ("apple[0].bundleId", "--bundle-id"), ("apple[0].teamId", "--team-id"), ("apple[0]", "--team-id/--bundle-id"),
            ("android[0]", "--package/--fingerprint"), ("android", "--package/--fingerprint"), ("service.deepLinkSchemes[0]", "--scheme"),
            ("service.publicURL", "--domain"), ("domain", "--domain"), ("fingerprint", "--fingerprint"), ("landing.title", "--name"),
            ("name", "--name"), ("bundle ID", "--bundle-id"), ("team ID", "--team-id"), ("App Store ID", "--app-store-id"),
            ("package", "--package"), ("scheme", "--scheme"),
        ]
        for (prefix, flags) in options where message.hasPrefix(prefix + ":") {
            return flags + ":" + message.dropFirst(prefix.count + 1)
        }
        return "cannot write a configuration for these values: " + message
    }

    /// What a question got: an answer, an empty answer (skip the question), or the end of input
    /// (no more questions are asked).
    package enum Reply: Equatable, Sendable { case answer(String), skip, end }

    /// Asks `question` for what the options left out. Each answer is checked as it is given (as
    /// ``ConfigurationTemplate/files()`` will check it, the values not asked for yet standing in
    /// with ones that pass); `question` asks again, with the reason, while the check refuses.
    package mutating func askForMissing(_ question: (_ text: String, _ check: (String) -> String?) -> Reply) {
        var ended = false
        func ask(_ text: String, _ option: String, _ set: @escaping (inout InitValues, String) -> Void) -> String? {
            guard !ended else { return nil }
            let current = self
            switch question(text, { answer in var values = current; set(&values, answer); return values.problem(with: option) }) {
            case .answer(let answer): return answer
            case .skip: return nil
            case .end: ended = true; return nil
            }
        }
        if domain == nil { domain = ask("Domain of your universal links, such as links.example.com", "--domain") { $0.domain = $1 } }
        // Nothing can be written without a domain: the other answers would be lost.
        guard domain != nil else { return }
        if teamID == nil, package == nil { teamID = ask("Apple team ID (empty: no iOS app)", "--team-id") { $0.teamID = $1 } }
        if teamID != nil, bundleID == nil { bundleID = ask("iOS bundle ID", "--bundle-id") { $0.bundleID = $1 } }
        if teamID != nil, appStoreID == nil { appStoreID = ask("App Store ID (empty: not published yet)", "--app-store-id") { $0.appStoreID = $1 } }
        if package == nil { package = ask("Android package (empty: no Android app)", "--package") { $0.package = $1 } }
        if package != nil, fingerprints.isEmpty, let first = ask("SHA-256 signing-certificate fingerprint", "--fingerprint", { $0.fingerprints = [$1] }) {
            fingerprints = [first]
            while let another = ask("Another signing fingerprint (empty: no more)", "--fingerprint", { $0.fingerprints = [$1] }) { fingerprints.append(another) }
        }
        if scheme == nil { scheme = ask("The app's URL scheme (empty: none)", "--scheme") { $0.scheme = $1 } }
    }

    /// What the files for these values would be refused for, when it is about `option`; the
    /// values not given yet stand in with ones that pass.
    func problem(with option: String) -> String? {
        let team = teamID ?? (bundleID != nil || appStoreID != nil ? "ABCDE12345" : nil)
        let apple = team.map { (teamID: $0, bundleID: bundleID ?? "com.example.app", appStoreID: appStoreID) }
        let android = package.map { (package: $0, fingerprints: fingerprints.isEmpty ? [Self.standInFingerprint] : fingerprints) }
        let template = ConfigurationTemplate(domain: domain ?? "links.example.com", apple: apple ?? (android == nil ? (teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: nil) : nil),
                                             android: android, scheme: scheme, name: name ?? "app")
        do { _ = try template.files() } catch {
            let message = Self.flagged(error.message)
            guard let colon = message.firstIndex(of: ":"), message[..<colon].split(separator: "/").contains(where: { $0 == option || "--" + $0 == option }) else { return nil }
            return String(message[message.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// Parts of a bundle ID or package that say what kind of build it is, not the app's name.
    static let genericParts: Set<String> = ["app", "apps", "ios", "android", "mobile", "client", "prod", "production", "release", "debug", "beta", "main", "www"]

    /// A name for the landing pages from a bundle ID, package or domain when `--name` is not
    /// given: its last part that is not a generic one (`com.acme.app` → `Acme`,
    /// `com.example.shop` → `Shop`), with its first letter upper-cased.
    static func derivedName(_ identifier: String) -> String {
        let parts = identifier.split(separator: ".").map(String.init)
        let chosen = parts.last { !genericParts.contains($0.lowercased()) && !["com", "org", "net", "io", "co"].contains($0.lowercased()) } ?? parts.last ?? identifier
        return chosen.prefix(1).uppercased() + chosen.dropFirst()
    }

    /// A fingerprint that passes, standing in for one not asked for yet.
    static let standInFingerprint = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
}

extension InitValues {
    /// Adds the domain these values make, named `name`, to `directory`'s switchyard.yaml
    /// (``ConfigurationTemplate/add(as:to:replacing:)``) and returns what to tell the person.
    package func add(named name: String, into directory: String, replacing: Bool) throws(InitValuesError) -> [String] {
        let template = try template().get()
        guard !directory.isEmpty else { throw InitValuesError("--directory is empty: give a directory (. for this one)") }
        do { _ = try template.files() } catch { throw InitValuesError(Self.flagged(error.message), usage: false) }
        let path = (directory as NSString).appendingPathComponent("switchyard.yaml")
        let written: (configuration: String, routes: String)
        do { written = try template.add(as: name, to: path, replacing: replacing) } catch { throw InitValuesError(error.message, usage: false) }
        return [
            "added the domain \(name) (\(template.domain.lowercased())) to \(written.configuration), and wrote its route table \(written.routes)",
            template.apple == nil && template.scheme != nil
                ? "its app's scheme \(template.scheme ?? ""): is not in service.deepLinkSchemes; add it there for the domain's links to use it" : nil,
            "next: restart switchyard serve (it reads the configuration once)",
        ].compactMap { $0 }
    }

    /// Writes the files these values make into `directory` (``ConfigurationTemplate/write(into:replacing:)``)
    /// and returns what to tell the person: what was written, and what to run next. A value
    /// missing is a usage error; a value the files refuse is named by its option.
    package func write(into directory: String, replacing: Bool) throws(InitValuesError) -> [String] {
        let template = try template().get()
        guard !directory.isEmpty else { throw InitValuesError("--directory is empty: give a directory (. for this one)") }
        do { _ = try template.files() } catch { throw InitValuesError(Self.flagged(error.message), usage: false) }
        let written: (configuration: String, routes: String)
        do { written = try template.write(into: directory, replacing: replacing) } catch { throw InitValuesError(error.message, usage: false) }
        // serve reads ./switchyard.yaml and keeps its data in ./.switchyard/: run it from there.
        let plain = directory.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._/-".unicodeScalars.contains($0)) }
        let quoted = plain ? directory : "'" + directory.replacingOccurrences(of: "'", with: "'\\''") + "'"
        return [
            "wrote \(written.configuration) (the service: apps, public URL, landing pages) and \(written.routes) (the route table, which the app routes with too)",
            name == nil ? "the landing pages call the app \(JSONWriter.quote(template.name)) (from \(bundleID ?? package ?? domain ?? "")); give --name to call it otherwise" : nil,
            (directory == "." ? "next: " : "next: cd \(quoted) && ") + "switchyard serve (it reads ./switchyard.yaml and keeps its data in ./.switchyard/)",
        ].compactMap { $0 }
    }
}

/// Why `switchyard init` cannot write its files: a value missing (a usage error, naming the
/// options to give), or one the files refuse, or the files cannot be written.
package struct InitValuesError: Error, Sendable {
    /// In words.
    package var message: String
    /// True when an option is missing or empty (the command's usage), false when a value or the
    /// directory is refused.
    package var usage: Bool
    init(_ message: String, usage: Bool = true) { (self.message, self.usage) = (message, usage) }
}
