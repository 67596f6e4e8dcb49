import Foundation
import LinkRules
import SwitchyardCore

/// The `webhooks` section: where events go, how they are signed, and how hard delivery tries.
///
/// ```yaml
/// webhooks:
///   endpoints:
///     - name: crm
///       url: https://hooks.example.com/switchyard
///       keyId: k1
///       secret: env:SWITCHYARD_WEBHOOK_SECRET     # or file:/run/secrets/hook, or the text itself
///       events: [link.created, link.clicked]      # default: every event
///   allowedHosts: [hooks.internal]                # may be reached over plain http
///   allowPrivateAddresses: false                  # loopback/private targets (tests, intranets)
///   timeout: 10                                   # seconds per attempt
///   maxAttempts: 12
///   firstRetryDelay: 10                           # seconds; doubles per attempt
///   maxRetryDelay: 3600
/// ```
package struct WebhookSettings: Sendable, Equatable {
    /// One receiver from `endpoints`: where events are POSTed and the key they are signed with.
    package struct Endpoint: Sendable, Equatable {
        /// A unique label for the endpoint (`name`; default `endpoint-N`, its position counted from 1).
        package var name: String
        /// The URL events are POSTed to (`url`, required); https unless the host is in `allowedHosts`.
        package var url: String
        /// The key id sent as `k` in the signature header, so secrets can be rotated (`keyId`; default `k1`).
        package var keyID: String
        /// The HMAC-SHA256 key (`secret`, required: `env:NAME`, `file:PATH`, or the text itself); never printed.
        package var secret: SecretBytes
        /// The events sent to this endpoint (`events`; default every event in ``WebhookSettings/events``).
        package var events: Set<String>
    }

    /// Every event a service emits.
    package static let events = ["link.created", "link.updated", "link.deleted", "link.clicked", "link.exhausted", "deferred.claimed"]

    /// The receivers (`endpoints`; none by default, and then no events are written).
    package var endpoints: [Endpoint] = []
    /// Lower-cased hosts endpoints may reach over plain http (`allowedHosts`; none by default).
    package var allowedHosts: Set<String> = []
    /// Whether endpoints may be loopback or private addresses (`allowPrivateAddresses`; off by default).
    package var allowPrivateAddresses = false
    /// Seconds one delivery attempt may take (`timeout`, 0.1–300; default 10).
    package var timeout: Double = 10
    /// Attempts per delivery before it is given up (`maxAttempts`, 1–100; default 12).
    package var maxAttempts = 12
    /// Seconds before the first retry, doubling with each failed attempt (`firstRetryDelay`; default 10).
    package var firstRetryDelay: Double = 10
    /// The longest wait between attempts, in seconds (`maxRetryDelay`, not below `firstRetryDelay`; default 3600).
    package var maxRetryDelay: Double = 3600
    /// How often a node looks for due deliveries when it has had nothing to do.
    package var pollInterval: Double = 1

    /// The defaults, as when the configuration has no `webhooks` section: no endpoints.
    package init() {}

    /// Whether any endpoint wants `event`.
    package func wants(_ event: String) -> Bool { endpoints.contains { $0.events.contains(event) } }

    /// Each event type some endpoint wants, with the names of the endpoints that want it (the outbox's routing).
    package var endpointNames: [String: [String]] {
        var names: [String: [String]] = [:]
        for endpoint in endpoints { for event in endpoint.events { names[event, default: []].append(endpoint.name) } }
        return names
    }

    /// The delay before attempt `attempt + 1`, after `attempt` attempts failed:
    /// `firstRetryDelay · 2^(attempt−1)`, at most `maxRetryDelay`, ±20 % so nodes and endpoints
    /// that failed together do not retry in step.
    package func retryDelay(after attempt: Int, jitter: Double = Double.random(in: 0.8...1.2)) -> Double {
        let exponent = Double(min(max(attempt - 1, 0), 40))
        return min(maxRetryDelay, firstRetryDelay * pow(2, exponent)) * jitter
    }

    static let shape = DocumentShape.object([
        "endpoints": .array(.object([
            "name": .string, "url": .string, "keyId": .string, "secret": .string, "events": .array(.string),
        ])),
        "allowedHosts": .array(.string), "allowPrivateAddresses": .bool, "timeout": .number, "maxAttempts": .int,
        "firstRetryDelay": .number, "maxRetryDelay": .number, "pollInterval": .number,
    ])

    /// Reads the section (its shape was checked already); errors name the key.
    /// - Parameter environment: where `env:NAME` secrets are looked up.
    init(_ section: JSONValue, environment: [String: String] = ProcessInfo.processInfo.environment) throws(ConfigurationError) {
        allowPrivateAddresses = section["allowPrivateAddresses"] == .bool(true)
        for (i, host) in (section["allowedHosts"]?.arrayValue ?? []).compactMap(\.stringValue).enumerated() {
            if let problem = WebURL.hostProblem(host.lowercased(), allowingPunycode: true) {
                throw ConfigurationError("webhooks.allowedHosts[\(i)]: \(JSONWriter.quote(host)) \(problem)")
            }
            allowedHosts.insert(host.lowercased())
        }
        func seconds(_ key: String, _ range: ClosedRange<Double>) throws(ConfigurationError) -> Double? {
            guard case .number(let n, _)? = section[key] else { return nil }
            guard range.contains(n) else { throw ConfigurationError("webhooks.\(key): a number of seconds from \(range.lowerBound) to \(range.upperBound)") }
            return n
        }
        timeout = try seconds("timeout", 0.1...300) ?? timeout
        firstRetryDelay = try seconds("firstRetryDelay", 0.01...86_400) ?? firstRetryDelay
        maxRetryDelay = try seconds("maxRetryDelay", 0.01...604_800) ?? maxRetryDelay
        pollInterval = try seconds("pollInterval", 0.01...60) ?? pollInterval
        if maxRetryDelay < firstRetryDelay { throw ConfigurationError("webhooks.maxRetryDelay: must not be below firstRetryDelay (\(firstRetryDelay) s)") }
        if case .number(let n, _)? = section["maxAttempts"] {
            guard n == n.rounded(), (1...100).contains(n) else { throw ConfigurationError("webhooks.maxAttempts: a whole number from 1 to 100") }
            maxAttempts = Int(n)
        }
        for (i, value) in (section["endpoints"]?.arrayValue ?? []).enumerated() {
            endpoints.append(try endpoint(value, "webhooks.endpoints[\(i)]", index: i, environment: environment))
        }
        var seen = Set<String>()
        for (i, e) in endpoints.enumerated() where !seen.insert(e.name).inserted {
            throw ConfigurationError("webhooks.endpoints[\(i)].name: \(JSONWriter.quote(e.name)) is used by an earlier endpoint; names must differ")
        }
    }

    private func endpoint(_ value: JSONValue, _ path: String, index: Int, environment: [String: String]) throws(ConfigurationError) -> Endpoint {
        guard let url = value["url"]?.stringValue else { throw ConfigurationError("\(path).url: required (where events are POSTed)") }
        let web: WebURL
        switch WebURL.parse(url) {
        case .success(let w): web = w
        case .failure(let refusal):
            // A URL that does not parse is not shown at all: it may be a secret pasted in the wrong place.
            throw ConfigurationError("\(path).url: the URL \(refusal.reason) (not shown: a webhook URL may hold a secret)")
        }
        if web.scheme != "https" && !allowedHosts.contains(web.host) {
            throw ConfigurationError("\(path).url: \(Redaction.url(web.href, keepingPath: false)) is not https; plain http is allowed only to a host in webhooks.allowedHosts")
        }
        let loopbackName = web.host == "localhost" || web.host.hasSuffix(".localhost")
        if !allowPrivateAddresses, loopbackName || Self.ipv4(web.host).map({ !AddressGuard.isPublic($0) }) == true {
            throw ConfigurationError("\(path).url: \(web.host) is a loopback or private address; set webhooks.allowPrivateAddresses: true to send events there")
        }
        let name = value["name"]?.stringValue ?? "endpoint-\(index + 1)"
        guard !name.isEmpty, name.utf8.count <= 64, name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)) }) else {
            throw ConfigurationError("\(path).name: 1–64 ASCII letters, digits, - _ or .")
        }
        let keyID = value["keyId"]?.stringValue ?? "k1"
        guard !keyID.isEmpty, keyID.utf8.count <= 64, !keyID.contains(","), !keyID.contains("="),
              keyID.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }) else {
            throw ConfigurationError("\(path).keyId: 1–64 printable ASCII characters without spaces, commas or =")
        }
        guard let secretText = value["secret"]?.stringValue else {
            throw ConfigurationError("\(path).secret: required (env:NAME, file:PATH, or the secret itself; at least 16 bytes)")
        }
        let secret = try Self.secret(secretText, "\(path).secret", environment: environment)
        var events = Set(Self.events)
        if let list = value["events"]?.arrayValue {
            events = []
            for (j, e) in list.compactMap(\.stringValue).enumerated() {
                guard Self.events.contains(e) else {
                    throw ConfigurationError("\(path).events[\(j)]: unknown event \(JSONWriter.quote(e)) (known: \(Self.events.joined(separator: ", ")))")
                }
                events.insert(e)
            }
            if events.isEmpty { throw ConfigurationError("\(path).events: name at least one event, or leave the key out for all") }
        }
        return Endpoint(name: name, url: web.href, keyID: keyID, secret: SecretBytes(secret), events: events)
    }

    /// A secret given as `env:NAME`, `file:PATH` (trailing newlines dropped) or literally.
    static func secret(_ text: String, _ path: String, environment: [String: String]) throws(ConfigurationError) -> [UInt8] {
        var value = text
        if text.hasPrefix("env:") {
            let name = String(text.dropFirst(4))
            guard let v = environment[name] else { throw ConfigurationError("\(path): the environment variable \(name) is not set") }
            value = v
        } else if text.hasPrefix("file:") {
            let file = String(text.dropFirst(5))
            // A secret is short: a larger file (or /dev/zero) is read no further than this.
            do { value = String(decoding: try DurableFile.read(file, maximumBytes: 64 << 10), as: UTF8.self) } catch {
                throw ConfigurationError("\(path): \(error.message)")
            }
            while value.hasSuffix("\n") || value.hasSuffix("\r") { value.removeLast() }
        }
        guard value.utf8.count >= 16 else { throw ConfigurationError("\(path): the secret has \(value.utf8.count) bytes; use at least 16 (e.g. openssl rand -hex 32)") }
        return Array(value.utf8)
    }

    /// The bytes of a dotted-decimal IPv4 host, or nil.
    static func ipv4(_ host: String) -> AddressGuard.Address? {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let bytes = parts.compactMap { UInt8($0) }
        return bytes.count == 4 ? bytes : nil
    }
}

/// An endpoint prints with its URL redacted and without its secret (ServiceLifecycle logs the
/// services it starts, and they hold these settings).
extension WebhookSettings.Endpoint: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `name → url`, the URL as ``Redaction/url(_:keepingPath:)`` shows it without its path.
    package var description: String { "\(name) → \(Redaction.url(url, keepingPath: false))" }
    /// The same as ``description``.
    package var debugDescription: String { description }
    /// Name, redacted URL, key id and events; no secret.
    package var customMirror: Mirror {
        Mirror(self, children: ["name": name, "url": Redaction.url(url, keepingPath: false), "keyID": keyID, "events": events.sorted()], displayStyle: .struct)
    }
}
