import Dispatch
import SwitchyardCore
import Testing

@Suite struct LockedTests {
    /// Increments from many threads at once are none of them lost.
    @Test func concurrentUpdatesAreSerialised() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    struct Refused: Error, Equatable {}

    /// A throwing body leaves what it changed before throwing, and the lock is free after it.
    @Test func aThrowingBodyReleasesTheLock() {
        let list = Locked<[Int]>([])
        #expect(throws: Refused()) {
            try list.withLock { (value: inout [Int]) throws(Refused) in
                value.append(1)
                throw Refused()
            }
        }
        #expect(list.withLock { $0 } == [1])
        list.withLock { $0.append(2) }
        #expect(list.withLock { $0.count } == 2)
    }
}
