import SwitchyardCore

/// An Android `assetlinks.json` (Digital Asset Links) file: a list of statements.
public struct AssetLinks: Sendable, Equatable {
    /// One statement: the relations granted and the app or site they are granted to.
    public struct Statement: Sendable, Equatable {
        /// The `relation` strings, such as `delegate_permission/common.handle_all_urls`
        /// (the app may open the site's links).
        public var relations: [String]
        /// The app or site the relations are granted to.
        public var target: Target
        /// Android 15's dynamic rules (`relation_extensions`), nil when the statement has none.
        public var dynamicRules: DynamicRules? = nil

        /// A statement granting `relations` to `target`, with `dynamicRules` when given.
        public init(relations: [String], target: Target, dynamicRules: DynamicRules? = nil) {
            (self.relations, self.target, self.dynamicRules) = (relations, target, dynamicRules)
        }
    }

    /// A statement's `target`: an Android app with its signing
    /// fingerprints, a website, or another namespace by name.
    public enum Target: Sendable, Equatable {
        case androidApp(packageName: String, fingerprints: [String])
        case web(site: String)
        case other(namespace: String)

        /// The package name of an `android_app` target; nil for any other target.
        public var packageName: String? {
            if case .androidApp(let package, _) = self { return package }
            return nil
        }
    }

    /// The statements, in file order.
    public var statements: [Statement]

    /// A file holding `statements`.
    public init(statements: [Statement]) { self.statements = statements }

    /// Relations Google documents for Digital Asset Links.
    public static let knownRelations: Set<String> = [
        "delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds",
        "delegate_permission/common.use_as_origin", "lookalikes/allowlist",
    ]

    /// The fingerprint of the Android SDK's and React Native's shared debug keystore.
    public static let wellKnownDebugFingerprints: Set<String> = [
        "FA:C6:17:45:DC:09:03:78:6F:B9:ED:E6:2A:96:2B:39:9F:73:48:F0:BB:6F:89:9B:83:32:66:75:91:03:3B:9C",
    ]

    /// The file as JSON, statements in order.
    public var json: JSONValue {
        .array(statements.map { s in
            let target: JSONValue
            switch s.target {
            case .androidApp(let package, let fingerprints):
                target = .object([("namespace", .string("android_app")), ("package_name", .string(package)), ("sha256_cert_fingerprints", .array(fingerprints.map(JSONValue.string)))])
            case .web(let site): target = .object([("namespace", .string("web")), ("site", .string(site))])
            case .other(let ns): target = .object([("namespace", .string(ns))])
            }
            var members: [(key: String, value: JSONValue)] = [("relation", .array(s.relations.map(JSONValue.string))), ("target", target)]
            if let dynamic = s.dynamicRules {
                members.append(("relation_extensions", .object([(Self.handleAllURLs, .object([("dynamic_app_link_components", .array(dynamic.rules.map(\.json)))]))])))
            }
            return .object(members)
        })
    }

    /// The largest assetlinks.json the tools read (1 MiB); reading stops there.
    public static let maximumBytes = 1 << 20

    /// Reads and checks a file: syntax, shape, relations, package names, fingerprints.
    public static func validate(bytes: [UInt8]) -> (AssetLinks?, [Finding]) {
        let document: JSONValue
        do { document = try JSONParser.parse(bytes: bytes) } catch {
            return (nil, [Finding(.error, .jsonSyntax, at: "$", "invalid JSON: \(error.reason)", line: error.line, column: error.column)])
        }
        return read(document)
    }

    /// Reads and checks a file already parsed as JSON (``validate(bytes:)`` after the parse).
    public static func read(_ document: JSONValue) -> (AssetLinks?, [Finding]) {
        var findings: [Finding] = []
        for (path, key, count) in document.repeatedKeys() {
            findings.append(Finding(.warning, .duplicateKey, at: path, "the key \(JSONWriter.quote(key)) appears \(count) times in one object; only the last is read (another reader may take the first)"))
        }
        guard case .array(let items) = document else {
            return (nil, [Finding(.error, .wrongType, at: "$", "assetlinks.json must be a JSON array of statements, found \(document.typeName)")])
        }
        if items.isEmpty { findings.append(Finding(.warning, .empty, at: "$", "the file has no statements: it links no app")) }
        var statements: [Statement] = []
        for (i, item) in items.enumerated() {
            let path = "[\(i)]"
            guard case .object(let keys) = item else {
                findings.append(Finding(.error, .wrongType, at: path, "expected a statement object, found \(item.typeName)"))
                continue
            }
            for (key, _) in keys where !["relation", "target", "relation_extensions"].contains(key) {
                let hint = DocumentShape.suggestion(for: key, among: ["relation", "target", "relation_extensions"]).map { " — did you mean \(JSONWriter.quote($0))?" } ?? ""
                findings.append(Finding(.warning, .unknownKey, at: "\(path).\(key)", "unknown key \(JSONWriter.quote(key)), ignored by Android\(hint)"))
            }
            var relations: [String] = []
            if case .array(let rels)? = item["relation"] {
                for (j, r) in rels.enumerated() {
                    guard case .string(let s) = r else {
                        findings.append(Finding(.error, .wrongType, at: "\(path).relation[\(j)]", "expected a string, found \(r.typeName)"))
                        continue
                    }
                    relations.append(s)
                    if !knownRelations.contains(s) {
                        let hint = s.contains("handle_all") ? " — did you mean delegate_permission/common.handle_all_urls?" : ""
                        findings.append(Finding(.error, .unknownRelation, at: "\(path).relation[\(j)]", "unknown relation \(JSONWriter.quote(s))\(hint)"))
                    }
                }
            } else {
                findings.append(Finding(.error, .missingKey, at: "\(path).relation", "each statement needs a \"relation\" array"))
            }
            guard let target = item["target"], case .object = target else {
                findings.append(Finding(.error, .missingKey, at: "\(path).target", "each statement needs a \"target\" object"))
                continue
            }
            let namespace = target["namespace"]?.stringValue ?? ""
            switch namespace {
            case "android_app":
                let package = target["package_name"]?.stringValue ?? ""
                if !isValidPackageName(package) {
                    findings.append(Finding(.error, .invalidPackageName, at: "\(path).target.package_name", "\(JSONWriter.quote(package)) is not an Android package name (dot-separated segments starting with a letter, e.g. com.example.app)"))
                }
                var fingerprints: [String] = []
                if case .array(let fps)? = target["sha256_cert_fingerprints"], !fps.isEmpty {
                    for (j, fp) in fps.enumerated() {
                        let fpPath = "\(path).target.sha256_cert_fingerprints[\(j)]"
                        guard case .string(let s) = fp else {
                            findings.append(Finding(.error, .wrongType, at: fpPath, "expected a string, found \(fp.typeName)"))
                            continue
                        }
                        fingerprints.append(s)
                        findings += fingerprintFindings(s, fpPath)
                    }
                } else {
                    findings.append(Finding(.error, .missingFingerprints, at: "\(path).target.sha256_cert_fingerprints", "an android_app target needs at least one SHA-256 signing-certificate fingerprint"))
                }
                let dynamic = item["relation_extensions"].flatMap { dynamicRules($0, path, findings: &findings) }
                if dynamic != nil && !relations.contains(handleAllURLs) {
                    findings.append(Finding(.warning, .ignoredKey, at: "\(path).relation_extensions", "the statement does not grant \(handleAllURLs), so its dynamic rules are not used"))
                }
                if dynamic != nil, statements.contains(where: { $0.dynamicRules != nil && $0.target.packageName == package }) {
                    findings.append(Finding(.error, .duplicateDynamicRules, at: "\(path).relation_extensions",
                                            "\(package) already has dynamic rules in an earlier statement; declare dynamic_app_link_components once per site, relation and app (this file's decisions use the first)"))
                }
                statements.append(Statement(relations: relations, target: .androidApp(packageName: package, fingerprints: fingerprints), dynamicRules: dynamic))
            case "web":
                let site = target["site"]?.stringValue ?? ""
                if !(site.hasPrefix("https://") || site.hasPrefix("http://")) {
                    findings.append(Finding(.error, .invalidSite, at: "\(path).target.site", "a web target needs a \"site\" like https://example.com"))
                }
                statements.append(Statement(relations: relations, target: .web(site: site)))
            default:
                findings.append(Finding(.error, .unknownNamespace, at: "\(path).target.namespace", "namespace must be \"android_app\" or \"web\", found \(JSONWriter.quote(namespace))"))
            }
        }
        return (AssetLinks(statements: statements), findings.stablePartitioned())
    }

    static func isValidPackageName(_ name: String) -> Bool {
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2 else { return false }
        return segments.allSatisfy { seg in
            guard let first = seg.first, first.isASCII, first.isLetter else { return false }
            return seg.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }
    }

    /// A fingerprint as assetlinks wants it: 32 bytes in upper-case hex separated by colons, from
    /// what `keytool` or the Play Console prints (colons or not, either case); nil when it is not
    /// 32 bytes of hex.
    public static func normalizedFingerprint(_ text: String) -> String? {
        var text = text.trimmingCharacters(in: .whitespaces).uppercased()
        // keytool's line, pasted whole: "SHA256: 14:6D:…".
        for label in ["SHA256:", "SHA-256:"] where text.hasPrefix(label) { text.removeFirst(label.count) }
        let hex = text.filter { $0 != ":" && $0 != " " }
        guard hex.count == 64, hex.allSatisfy({ $0.isHexDigit }) else { return nil }
        var pairs: [String] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            pairs.append(String(hex[index..<next]))
            index = next
        }
        return pairs.joined(separator: ":")
    }

    static func fingerprintFindings(_ s: String, _ path: String) -> [Finding] {
        let bytes = s.split(separator: ":", omittingEmptySubsequences: false)
        let hex = Set("0123456789ABCDEF")
        let wellFormed = bytes.count == 32 && bytes.allSatisfy { $0.count == 2 && $0.allSatisfy { hex.contains($0) } }
        if wellFormed {
            if wellKnownDebugFingerprints.contains(s) {
                return [Finding(.warning, .debugFingerprint, at: path, "this is the widely shared debug keystore fingerprint (Android SDK / React Native template): release builds are signed with another key, so links will not verify for them")]
            }
            return []
        }
        let compact = s.replacingOccurrences(of: ":", with: "")
        if compact.count == 64 && compact.allSatisfy({ $0.isHexDigit }) {
            let fixed = stride(from: 0, to: 64, by: 2).map { i -> String in
                let a = compact.index(compact.startIndex, offsetBy: i)
                return compact[a...compact.index(after: a)].uppercased()
            }.joined(separator: ":")
            return [Finding(.error, .fingerprintFormat, at: path, "the fingerprint must be 32 upper-case hex bytes separated by colons: write \(fixed)")]
        }
        if !s.contains(where: \.isHexDigit) || s.uppercased().contains("FINGERPRINT") || s.uppercased().contains("SHA256") {
            return [Finding(.error, .placeholderFingerprint, at: path, "\(JSONWriter.quote(s)) is a placeholder: put the SHA-256 fingerprint of your signing certificate (keytool -list -v, or Play Console → App integrity)")]
        }
        return [Finding(.error, .fingerprintFormat, at: path, "\(JSONWriter.quote(s)) is not a SHA-256 fingerprint (32 upper-case hex bytes separated by colons)")]
    }
}

import Foundation
