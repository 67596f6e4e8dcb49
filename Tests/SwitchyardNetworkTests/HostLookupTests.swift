import Foundation
import LinkRules
import SwitchyardCore
@testable import SwitchyardNetwork
import Testing

/// DNS lookups for the fetchers: on a pool of their own, shared when they overlap, and waited on
/// at most the time given. A stand-in for getaddrinfo that blocks until the test lets it answer
/// keeps these free of timing.
@Suite struct HostLookupTests {
    final class GatedResolver: Sendable {
        let calls = Locked(0)
        let running = Locked(0)
        let mostAtOnce = Locked(0)
        let gate = DispatchSemaphore(value: 0)

        func lookup(_ host: String, _ port: Int) -> Result<String, FetchError> {
            calls.withLock { $0 += 1 }
            let now = running.withLock { $0 += 1; return $0 }
            mostAtOnce.withLock { $0 = max($0, now) }
            gate.wait()
            running.withLock { $0 -= 1 }
            return .success("192.0.2.\(port % 200)")
        }

        func open(_ count: Int) { for _ in 0..<count { gate.signal() } }

        /// Waits (up to a minute) until `condition` holds.
        func waitUntil(_ condition: @escaping @Sendable () -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(60)
            while !condition() && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        }
    }

    @Test func overlappingLookupsOfOneHostShareOneCall() async throws {
        let resolver = GatedResolver()
        let host = "shared-\(UUID().uuidString).example"
        let started = Locked(0)
        let addresses = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    started.withLock { $0 += 1 }
                    return try await HostLookup.address(host: host, port: 443, guardrail: AddressGuard(), seconds: 120, lookup: resolver.lookup)
                }
            }
            // Every caller has asked before the one lookup may answer.
            try await resolver.waitUntil { started.withLock { $0 } == 20 && resolver.calls.withLock { $0 } >= 1 }
            try await Task.sleep(for: .milliseconds(300))
            resolver.open(1)
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(addresses == Array(repeating: "192.0.2.43", count: 20))
        #expect(resolver.calls.withLock { $0 } == 1)
        // A lookup after the first ended uses its answer; another port is another lookup.
        #expect(try await HostLookup.address(host: host, port: 443, guardrail: AddressGuard(), seconds: 120, lookup: resolver.lookup) == "192.0.2.43")
        #expect(resolver.calls.withLock { $0 } == 1)
        resolver.open(1)
        #expect(try await HostLookup.address(host: host, port: 80, guardrail: AddressGuard(), seconds: 120, lookup: resolver.lookup) == "192.0.2.80")
        #expect(resolver.calls.withLock { $0 } == 2)
    }

    /// A name that does not resolve is not asked again for a while either: a batch of links to
    /// it fails at once instead of waiting on the resolver each time.
    @Test func aFailureIsKeptToo() async throws {
        let calls = Locked(0)
        let host = "gone-\(UUID().uuidString).example"
        for _ in 0..<3 {
            do {
                _ = try await HostLookup.address(host: host, port: 443, guardrail: AddressGuard(), seconds: 120) { host, _ in
                    calls.withLock { $0 += 1 }
                    return .failure(FetchError(code: .networkError, message: "cannot resolve host '\(host)'"))
                }
                Issue.record("a name that does not resolve gave an address")
            } catch {
                #expect(error.message == "cannot resolve host '\(host)'")
            }
        }
        #expect(calls.withLock { $0 } == 1)
    }

    /// Lookups that stall do not wait on one another: 8 of them (4 per core here) block at once.
    @Test func stalledLookupsOfManyHostsRunTogether() async throws {
        let resolver = GatedResolver()
        try await withThrowingTaskGroup(of: String.self) { group in
            for n in 0..<8 {
                group.addTask { try await HostLookup.address(host: "stall-\(n)-\(UUID().uuidString).example", port: 443, guardrail: AddressGuard(), seconds: 120, lookup: resolver.lookup) }
            }
            try await resolver.waitUntil { resolver.running.withLock { $0 } == 8 }
            resolver.open(8)
            for try await _ in group {}
        }
        #expect(resolver.mostAtOnce.withLock { $0 } == 8)
    }

    /// A lookup that has not answered within the caller's time is a network timeout (the gate is
    /// still closed: the caller did not wait for it).
    @Test func aLookupThatDoesNotAnswerInTimeIsANetworkTimeout() async throws {
        let resolver = GatedResolver()
        defer { resolver.open(1) }
        do {
            _ = try await HostLookup.address(host: "late-\(UUID().uuidString).example", port: 443, guardrail: AddressGuard(), seconds: 0.2, lookup: resolver.lookup)
            Issue.record("a lookup that never answered gave an address")
        } catch {
            #expect(error.code == .networkTimeout)
            #expect(error.message.hasSuffix(".example': no answer from DNS within 0.2 s"), "\(error.message)")
        }
    }

    @Test func theGuardStillRefusesAPrivateAddress() async throws {
        do {
            _ = try await HTTPFetcher.resolve(host: "localhost", port: 80, with: AddressGuard(), seconds: 5)
            Issue.record("localhost was allowed")
        } catch {
            #expect(error.code == .networkRefused, "\(error.message)")
        }
        let address = try await HTTPFetcher.resolve(host: "localhost", port: 80, with: AddressGuard(allowPrivate: true), seconds: 5)
        #expect(address == "127.0.0.1" || address == "::1")
    }
}
