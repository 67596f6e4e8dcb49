import LinkRequests
import AssociatedDomains
import Foundation
import LinkConfiguration
import LinkRouting
import Logging
import Prometheus
import ServiceLifecycle
import SwitchyardCore
import SwitchyardNetwork

/// The latest comparison of the CDN's copy with the served AASA, per host: shown in `/healthz`
/// (never changing its status: the CDN's lag is not this service's fault) and as the gauge
/// `switchyard_apple_cdn_aasa_differences{host}` — URLs decided differently, -1 while the CDN
/// copy cannot be had.
final class AppleCDNWatch: Sendable {
    struct HostResult: Sendable {
        var host: String
        var checked: Date
        /// `same`, `differs`, or `unavailable` (the CDN could not be reached or has no copy).
        var state: String
        var cdnStatus: Int?
        var age: String?
        var urls: Int
        var differences: [AASAComparison.Difference]
        var reason: String?
    }

    let settings: AppleCDNSettings
    private let results = Locked<[String: HostResult]>([:])
    private let gauges: [String: Gauge]
    /// Every host of every domain, in order, each once.
    private let hosts: [String]
    /// Each host's domain: the AASA it serves (nil without an iOS app) and its route table.
    private let domains: [String: (served: AppSiteAssociation?, router: LinkRouter)]

    init(settings: AppleCDNSettings, configuration: ServiceConfiguration, metrics: ServiceMetrics) {
        self.settings = settings
        var hosts: [String] = [], domains: [String: (served: AppSiteAssociation?, router: LinkRouter)] = [:]
        for domain in configuration.servedDomains {
            let served = domain.apple.isEmpty ? nil : AppSiteAssociation.read(domain.appSiteAssociation).0
            for host in domain.router.hosts.map({ $0.lowercased() }) where domains[host] == nil {
                hosts.append(host)
                domains[host] = (served, domain.router)
            }
        }
        self.hosts = hosts
        self.domains = domains
        var gauges: [String: Gauge] = [:]
        for host in hosts {
            gauges[host] = metrics.registry.makeGauge(
                name: "switchyard_apple_cdn_aasa_differences", labels: [("host", host)],
                help: "URLs whose decision differs between Apple's CDN copy of the AASA and the served one (-1: the CDN copy could not be had).")
        }
        self.gauges = gauges
    }

    /// Compares every host once.
    func checkAll(logger: Logger, now: Date = Date()) async {
        let fetcher = HostingCheck(trustedCAFile: settings.caFile, allowPrivateAddresses: settings.allowPrivateAddresses)
        for host in hosts {
            let result = await check(host, fetcher: fetcher, now: now)
            results.withLock { $0[host] = result }
            gauges[host]?.set(result.state == "unavailable" ? -1 : Double(result.differences.count))
            switch result.state {
            case "differs":
                logger.warning("Apple's CDN holds an AASA that decides differently from the one served", metadata: [
                    "host": "\(host)", "differences": "\(result.differences.count)", "example": "\(result.differences.first?.url ?? "")",
                ])
            case "unavailable":
                logger.notice("Apple's CDN copy of the AASA could not be compared", metadata: ["host": "\(host)", "reason": "\(result.reason ?? "")"])
            default:
                break
            }
        }
    }

    func check(_ host: String, fetcher: HostingCheck, now: Date) async -> HostResult {
        // The routes' examples, on this host: what devices will be asked about.
        guard let (served, router) = domains[host] else { return HostResult(host: host, checked: now, state: "unavailable", urls: 0, differences: []) }
        let canonical = "https://" + (router.hosts.first?.lowercased() ?? host)
        let urls = PlatformComparison.sampleURLs(router).map { $0.hasPrefix(canonical) ? "https://" + host + $0.dropFirst(canonical.count) : $0 }
        let comparison = CDNComparison.compare(served: served, cdn: await fetcher.fetch(settings.base + host), urls: urls, domain: host)
        var result = HostResult(host: host, checked: now, state: "unavailable", cdnStatus: comparison.cdn.status, urls: 0, differences: [])
        result.age = comparison.cdnHeaders.first { $0.name == "age" }?.value
        if let problem = comparison.cdnProblem {
            result.reason = problem
        } else {
            result.urls = urls.count
            result.differences = comparison.differences
            result.state = result.differences.isEmpty ? "same" : "differs"
        }
        return result
    }

    /// The `appleCDN` member of `/healthz`: each host's latest comparison, members without a
    /// value left out.
    struct Health: Encodable {
        struct Host: Encodable {
            struct Example: Encodable {
                var url: String
                var appId: String
                var served: String
                var cdn: String
            }

            var host: String
            var state: String
            var checked: String?
            var cdnStatus: Int?
            var age: String?
            var urls: Int?
            var differences: Int?
            var example: Example?
            var reason: String?
        }

        var interval: Int
        var hosts: [Host]
    }

    var health: Health {
        let latest = results.withLock { $0 }
        return Health(interval: Int(settings.interval), hosts: hosts.map { host in
            guard let r = latest[host] else { return .init(host: host, state: "not checked yet") }
            let compared = r.state != "unavailable"
            return .init(host: host, state: r.state, checked: Timestamp.format(r.checked), cdnStatus: r.cdnStatus, age: r.age,
                         urls: compared ? r.urls : nil, differences: compared ? r.differences.count : nil,
                         example: r.differences.first.map { .init(url: $0.url, appId: $0.appID, served: $0.first.rawValue, cdn: $0.second.rawValue) },
                         reason: r.reason)
        })
    }
}

/// Runs the comparison at start and every `interval` after, until the service stops.
struct AppleCDNChecker: Service, CustomStringConvertible {
    let watch: AppleCDNWatch
    let logger: Logger
    /// Its name only: ServiceLifecycle logs this when it starts the service.
    var description: String { "AppleCDNChecker" }

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            await watch.checkAll(logger: logger)
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .seconds(watch.settings.interval)) }
        }
    }
}
