import Foundation
import SwitchyardCore
import Testing

@Suite struct BlockingQueueTests {
    struct Refused: Error, Equatable { let item: Int }

    /// Work from many tasks runs one item at a time, every result comes back to its caller, and
    /// a typed error reaches the caller as thrown.
    @Test func runsOneItemAtATimeAndReturnsEachResult() async throws {
        let queue = BlockingQueue(label: "test.blocking")
        /// Items inside the queue now, and how often two were.
        final class Count: Sendable {
            let state = Locked((inside: 0, overlaps: 0))
            func enter() { state.withLock { if $0.inside > 0 { $0.overlaps += 1 }; $0.inside += 1 } }
            func leave() { state.withLock { $0.inside -= 1 } }
        }
        let count = Count()
        let results = await withTaskGroup(of: Result<Int, Refused>.self) { group in
            for item in 0..<64 {
                group.addTask {
                    do throws(Refused) {
                        return .success(try await queue.run { () throws(Refused) -> Int in
                            count.enter()
                            usleep(200)  // blocking work, as a read or an fsync is
                            count.leave()
                            if item % 16 == 15 { throw Refused(item: item) }
                            return item * 2
                        })
                    } catch { return .failure(error) }
                }
            }
            var out: [Result<Int, Refused>] = []
            for await result in group { out.append(result) }
            return out
        }
        #expect(count.state.withLock { $0.overlaps } == 0)
        let values = results.compactMap { try? $0.get() }.sorted()
        #expect(values == (0..<64).filter { $0 % 16 != 15 }.map { $0 * 2 })
        let refused = results.compactMap { if case .failure(let e) = $0 { e.item } else { nil } }.sorted()
        #expect(refused == [15, 31, 47, 63])
    }

    /// While one queue's item blocks, another queue's work goes on: the slow item waits until
    /// the quick one has run, which it could not if they shared a thread.
    @Test func aBlockedQueueHoldsUpNoOtherQueue() async throws {
        let slow = BlockingQueue(label: "test.slow")
        let quick = BlockingQueue(label: "test.quick")
        let quickRan = DispatchSemaphore(value: 0)
        async let slowSawQuick = slow.run { quickRan.wait(timeout: .now() + 60) == .success }
        let answer = await quick.run { () -> Int in
            quickRan.signal()
            return 42
        }
        #expect(answer == 42)
        #expect(await slowSawQuick, "the quick queue's item did not run while the slow queue's item was blocked")
    }
}
