import Foundation
@testable import LinkRules
import SwitchyardCore
import Testing

/// Redirect following's turns: a few requests at a time to one host, in the order they asked.
@Suite struct FetchSlotsTests {
    @Test func oneHostGetsAtMostItsTurnsAndWaitersGoInOrder() async throws {
        let slots = FetchSlots(perHost: 3, total: 100)
        let far = ContinuousClock.now + .seconds(600)
        for _ in 0..<3 { #expect(await slots.acquire("a.example", until: far)) }
        // Another host is not held back by a full one.
        #expect(await slots.acquire("b.example", until: far))
        let order = Locked<[Int]>([])
        // Four waiters, each asking after the one before has started to wait.
        var waiters: [Task<Bool, Never>] = []
        for n in 0..<4 {
            waiters.append(Task {
                let granted = await slots.acquire("a.example", until: far)
                order.withLock { $0.append(n) }
                return granted
            })
            while await slots.waiters < n + 1 { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(await slots.taken == 4)
        for _ in 0..<4 { await slots.release("a.example") }
        for waiter in waiters { #expect(await waiter.value) }
        #expect(order.withLock { $0 } == [0, 1, 2, 3])
        #expect(await slots.taken == 4)
    }

    @Test func aWaiterWhoseDeadlinePassesGivesUp() async throws {
        let slots = FetchSlots(perHost: 1, total: 100)
        #expect(await slots.acquire("a.example", until: ContinuousClock.now + .seconds(600)))
        #expect(await slots.acquire("a.example", until: ContinuousClock.now + .milliseconds(100)) == false)
        #expect(await slots.waiters == 0)
        // The turn it did not get is still there for the next one.
        await slots.release("a.example")
        #expect(await slots.acquire("a.example", until: ContinuousClock.now + .milliseconds(100)))
    }

    @Test func allHostsTogetherGetAtMostTheTotal() async throws {
        let slots = FetchSlots(perHost: 10, total: 2)
        let far = ContinuousClock.now + .seconds(600)
        #expect(await slots.acquire("a.example", until: far))
        #expect(await slots.acquire("b.example", until: far))
        #expect(await slots.acquire("c.example", until: ContinuousClock.now + .milliseconds(50)) == false)
        await slots.release("a.example")
        #expect(await slots.acquire("c.example", until: far))
    }
}
