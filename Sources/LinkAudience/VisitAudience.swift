import Crypto
import Dispatch
import Foundation
import LinkConfiguration
import LinkStorage
import Logging
import SwitchyardCore
import SwitchyardGeo
import UserAgents

/// Who a visit's visitor was, as far as the configuration looks (`visits`): the place (a geo
/// database looked up with the full address, or a trusted proxy's country header), the browser,
/// OS and device families of the User-Agent, and the visitor of the day (a keyed hash of
/// address, User-Agent and link under the day's secret).
///
/// The batched visit flush hands its records here before it writes them; the address and the
/// User-Agent the request left in ``Visit/observed`` are read and dropped. The work runs on a
/// thread of its own, never on an event loop or the concurrency pool.
package final class VisitAudience: Sendable {
    let settings: VisitSettings
    let geo: GeoSource?
    let agents: AgentSource?
    let secrets: VisitorSecrets?
    let logger: Logger
    private let queue = DispatchQueue(label: "switchyard.visit-audience")

    /// The sources `settings` names, opened now: a geo database or a `userAgents` file that
    /// cannot be read is a configuration error with its path and what is wrong. Uniques take
    /// their daily secrets from `store`.
    package init(settings: VisitSettings, store: LinkStore, logger: Logger) throws(ConfigurationError) {
        self.settings = settings
        self.logger = logger
        if settings.geo != .off, let path = settings.geoDatabase {
            do { geo = try GeoSource(path: path, logger: logger) } catch { throw ConfigurationError("visits.geoDatabase: \(error.message)", cause: error) }
        } else {
            geo = nil
        }
        if let path = settings.userAgentRegexes {
            // A file the configuration names is read now, so a bad one stops the start; the
            // installed default is read at the first visit (most runs record few).
            agents = try AgentSource(path: path, eager: settings.userAgentRegexesConfigured)
        } else {
            agents = nil
        }
        secrets = settings.uniques ? VisitorSecrets(store: store) : nil
    }

    /// Where places come from, as the dashboard credits it: the attribution DB-IP's licence (CC
    /// BY 4.0) and MaxMind's GeoLite2 ask for, another database's type, or the proxy's header.
    package var placeSource: String? {
        guard settings.geo != .off else { return nil }
        if let type = geo?.current.databaseType {
            if type.hasPrefix("DBIP") { return "Places: IP Geolocation by DB-IP (https://db-ip.com), CC BY 4.0." }
            if type.hasPrefix("GeoLite2") { return "Places: GeoLite2 data created by MaxMind, available from https://www.maxmind.com." }
            return "Places: \(type.isEmpty ? "a MaxMind-format database" : type)."
        }
        return settings.countryHeader.map { "Countries: the \($0) header of your proxy." }
    }

    /// Whether visitors of the day are counted (`visits.uniques`).
    package var countsUniques: Bool { secrets != nil }

    /// Whether a visit's record needs the full address (a geo database, or uniques).
    package var needsAddress: Bool { geo != nil || secrets != nil }

    /// What the record of a visit is made from, or nil when nothing is looked at.
    package func observed(address: () -> String?, userAgent: String?, proxyCountry: String?) -> Visit.Observed? {
        let country = settings.geo == .off ? nil : proxyCountry.flatMap(VisitSettings.countryCode)
        let agent = agents != nil || secrets != nil ? userAgent.map(Self.bounded) : nil
        let full = needsAddress ? address() : nil
        guard full != nil || agent != nil || country != nil else { return nil }
        return Visit.Observed(address: full, userAgent: agent, proxyCountry: country)
    }

    /// At most this many bytes of a User-Agent are read (real ones are a few hundred).
    package static let maximumUserAgentBytes = 1024

    static func bounded(_ text: String) -> String {
        text.utf8.count <= maximumUserAgentBytes ? text : String(decoding: text.utf8.prefix(maximumUserAgentBytes), as: UTF8.self)
    }

    /// `visits` with each observed record made into what is stored (place, software, visitor)
    /// and its observation dropped; records that become identical are added up. Throws when the
    /// day's secret cannot be read (the database is down): the flush keeps the records for its
    /// next try.
    package func enrich(_ visits: [Visit: Int64], at date: Date) async throws(StoreError) -> [Visit: Int64] {
        guard visits.keys.contains(where: { $0.observed != nil }) else { return visits }
        var keys: [Int64: [UInt8]] = [:]
        if let secrets {
            let days = Set(visits.keys.filter { $0.observed != nil && !$0.bot }.map { $0.second / 86400 })
            for day in days { keys[day] = try await secrets.key(day: day, at: date) }
        }
        let keysForDays = keys
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.made(visits, keys: keysForDays)) }
        }
    }

    /// The records made (on the audience's thread).
    private func made(_ visits: [Visit: Int64], keys secrets: [Int64: [UInt8]]) -> [Visit: Int64] {
        geo?.reloadIfReplaced()
        let database = geo?.current
        let parser = agents?.parser(logger: logger)
        let keys = secrets.mapValues { SymmetricKey(data: $0) }
        var out: [Visit: Int64] = [:]
        out.reserveCapacity(visits.count)
        for (visit, count) in visits {
            guard let seen = visit.observed else { out[visit, default: 0] += count; continue }
            var v = visit
            let geo = settings.geo
            let software = parser.flatMap { p in seen.userAgent.map { agents?.software($0, p) ?? .init() } }
            v.updateAudience { a in
                a.observed = nil
                if geo != .off {
                    if let database, let address = seen.address, let place = try? database.lookup(address) {
                        a.place.continent = place.continent.flatMap { VisitSettings.letterCode($0, count: 2) }
                        a.place.country = place.country.flatMap(VisitSettings.countryCode)
                        if geo == .city {
                            a.place.region = place.subdivisions.first.flatMap { VisitText.region($0, country: a.place.country) }
                            a.place.city = place.city.flatMap(VisitText.cleaned)
                        }
                    } else if let country = seen.proxyCountry {
                        a.place.country = country
                    }
                }
                if let software { a.software = software }
                if !visit.bot, let address = seen.address, let key = keys[visit.second / 86400] {
                    a.visitor = Self.visitor(address: address, userAgent: seen.userAgent ?? "", code: visit.code, key: key)
                }
            }
            out[v, default: 0] += count
        }
        return out
    }

    /// The visitor of the day: HMAC-SHA256 of address, User-Agent and link under the day's key,
    /// 16 bytes in base64url.
    static func visitor(address: String, userAgent: String, code: String, key: SymmetricKey) -> String {
        var message = Data(address.utf8)
        message.append(0)
        message.append(contentsOf: userAgent.utf8)
        message.append(0)
        message.append(contentsOf: code.utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return Base64URL.encode(Array(mac).prefix(16))
    }
}

/// The day's visitor secrets, read from the store (made by the first node that asks) and kept
/// in memory for the current and previous day only.
final class VisitorSecrets: Sendable {
    let store: LinkStore
    private let known = Locked<[Int64: [UInt8]]>([:])

    init(store: LinkStore) { self.store = store }

    func key(day: Int64, at date: Date) async throws(StoreError) -> [UInt8] {
        if let key = known.withLock({ $0[day] }) { return key }
        let secret = try await store.visitorSecret(day: day, at: date)
        let key = Array(secret.utf8)
        let today = Int64(date.timeIntervalSince1970.rounded(.down)) / 86400
        known.withLock { known in
            known = known.filter { $0.key >= today - 1 }
            known[day] = key
        }
        return key
    }
}

/// A geo database file, read into memory of its own (so a file replaced or rewritten in place
/// never changes what is mapped), and read again when the file changes: a file that cannot be
/// opened then is logged, and the one loaded keeps answering.
final class GeoSource: Sendable {
    let path: String
    let logger: Logger
    private struct State {
        var database: GeoDatabase
        var signature: FileSignature?
        var failed: FileSignature?
        var checked: Double
    }
    private let state: Locked<State>
    /// How often the file is looked at (seconds).
    static let checkInterval: Double = 10

    init(path: String, logger: Logger) throws(GeoError) {
        self.path = path
        self.logger = logger
        let signature = FileSignature(path)
        let database = try GeoDatabase(snapshotOf: path)
        state = Locked(State(database: database, signature: signature, failed: nil, checked: ProcessInfo.processInfo.systemUptime))
    }

    var current: GeoDatabase { state.withLock { $0.database } }

    /// Opens the file again when its inode, size or modification time changed since it was read.
    func reloadIfReplaced(force: Bool = false) {
        let now = ProcessInfo.processInfo.systemUptime
        let due = state.withLock { s -> Bool in
            guard force || now - s.checked >= Self.checkInterval else { return false }
            s.checked = now
            return true
        }
        guard due, let signature = FileSignature(path) else { return }
        let changed = state.withLock { $0.signature != signature && $0.failed != signature }
        guard changed else { return }
        do {
            let database = try GeoDatabase(snapshotOf: path)
            state.withLock { $0.database = database; $0.signature = signature; $0.failed = nil }
            logger.info("geo database read again", metadata: ["path": "\(path)", "type": "\(database.databaseType)"])
        } catch {
            state.withLock { $0.failed = signature }
            logger.error("geo database replaced by a file that cannot be used; the one read before keeps answering",
                         metadata: ["path": "\(path)", "error": "\(error.message)"])
        }
    }
}

/// What tells a changed file: inode, size and modification time.
struct FileSignature: Equatable, Sendable {
    let inode: UInt64, size: Int64, modified: Int64, modifiedNanoseconds: Int64

    init?(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        #if canImport(Darwin)
        modified = Int64(st.st_mtimespec.tv_sec); modifiedNanoseconds = Int64(st.st_mtimespec.tv_nsec)
        #else
        modified = Int64(st.st_mtim.tv_sec); modifiedNanoseconds = Int64(st.st_mtim.tv_nsec)
        #endif
    }
}

/// ua-parser's rules and a bounded cache of the families of the User-Agents seen.
final class AgentSource: Sendable {
    let path: String
    private let loaded: Locked<UserAgentParser?>
    private let failed = Locked(false)
    /// Two generations of at most this many User-Agents each: a full one becomes the older,
    /// which a hit moves back, so the strings seen often stay and memory stays bounded.
    static let generationSize = 10_000
    private let cache = Locked<(current: [String: Visit.Software], older: [String: Visit.Software])>(([:], [:]))

    init(path: String, eager: Bool) throws(ConfigurationError) {
        self.path = path
        if eager {
            do { loaded = Locked(try Self.rules(path)) } catch {
                throw ConfigurationError("visits.userAgents: " + (error.message.contains(path) ? error.message : "\(path): \(error.message)"), cause: error)
            }
        } else {
            loaded = Locked(nil)
        }
    }

    /// Rules read in this process, by path and file signature: services in one process (the
    /// tests' many) compile a file once.
    private static let shared = Locked<[String: (FileSignature?, UserAgentParser)]>([:])

    static func rules(_ path: String) throws(UserAgentRulesError) -> UserAgentParser {
        let signature = FileSignature(path)
        if let (known, parser) = shared.withLock({ $0[path] }), known == signature { return parser }
        let parser = try UserAgentParser(contentsOf: path)
        shared.withLock { $0[path] = (signature, parser) }
        return parser
    }

    /// The parser, read at first use when it was not at start; nil (logged once) when it cannot be read.
    func parser(logger: Logger) -> UserAgentParser? {
        if let parser = loaded.withLock({ $0 }) { return parser }
        guard !failed.withLock({ $0 }) else { return nil }
        do {
            let parser = try Self.rules(path)
            loaded.withLock { $0 = parser }
            return parser
        } catch {
            failed.withLock { $0 = true }
            logger.error("User-Agents are not parsed: ua-parser's rules cannot be read", metadata: ["path": "\(path)", "error": "\(error.message)"])
            return nil
        }
    }

    /// The families of `agent`, from the cache or parsed.
    func software(_ agent: String, _ parser: UserAgentParser) -> Visit.Software {
        if let hit = cache.withLock({ c -> Visit.Software? in
            if let s = c.current[agent] { return s }
            guard let s = c.older[agent] else { return nil }
            c.current[agent] = s
            return s
        }) { return hit }
        let parsed = parser.parse(agent)
        // ua-parser's "Other" is its name for not known.
        let family = { (name: String) in name == "Other" ? nil : VisitText.cleaned(name) }
        let software = Visit.Software(browser: family(parsed.userAgent.family), os: family(parsed.os.family), device: family(parsed.device.family))
        cache.withLock { c in
            if c.current.count >= Self.generationSize { c.older = c.current; c.current = [:] }
            c.current[agent] = software
        }
        return software
    }
}

extension VisitText {
    /// A subdivision as ISO 3166-2 writes it, with its country (`GB-ENG`): 1–3 letters or digits
    /// after the country, upper-cased; a code that already names its country keeps it once.
    package static func region(_ text: String, country: String?) -> String? {
        var code = text.uppercased()
        if let country, code.hasPrefix(country + "-") { code.removeFirst(country.count + 1) }
        guard (1...3).contains(code.utf8.count), code.utf8.allSatisfy({ (0x41...0x5A).contains($0) || (0x30...0x39).contains($0) }) else { return nil }
        return country.map { $0 + "-" + code }
    }
}
