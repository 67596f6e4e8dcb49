import Foundation
import Testing
import SwitchyardCore

@Suite struct AwaitingAtMostTests {
    /// An operation that ends in time gives its result (or its error) at once, not at the limit
    /// (an hour: the bound below is loose, for a loaded test machine).
    @Test func anOperationThatEndsGivesItsResult() async throws {
        let start = ContinuousClock.now
        #expect(try await awaitingAtMost(.seconds(3600)) { 42 } == 42)
        struct Failure: Error {}
        await #expect(throws: Failure.self) { _ = try await awaitingAtMost(.seconds(3600)) { () async throws -> Int in throw Failure() } }
        #expect(ContinuousClock.now - start < .seconds(120))
    }

    /// One that never ends — it ignores cancellation, as a query on a dead connection may — is
    /// given up at the limit, and it is told to stop.
    @Test func anOperationThatNeverEndsIsGivenUpAtTheLimit() async throws {
        let cancelled = Locked(false)
        let start = ContinuousClock.now
        let result = try await awaitingAtMost(.milliseconds(300)) { () async -> Int in
            while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(20)) }
            cancelled.withLock { $0 = true }
            // It goes on after the cancellation; nobody waits for it any more.
            try? await Task.sleep(for: .seconds(3600))
            return 1
        }
        let waited = ContinuousClock.now - start
        #expect(result == nil)
        // Not the operation's hour (the upper bound is loose, for a loaded test machine).
        #expect(waited >= .milliseconds(300) && waited < .seconds(120), "\(waited)")
        try await Task.sleep(for: .milliseconds(200))
        #expect(cancelled.withLock { $0 })
    }
}
