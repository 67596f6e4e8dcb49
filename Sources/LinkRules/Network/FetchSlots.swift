import Foundation

/// Turns for redirect following's requests: at most `perHost` in flight to one host and `total`
/// in all, so a batch of links to one short-link service asks it a few at a time, as a browser
/// does, instead of opening a connection per link at once (a server with a short listen queue
/// drops the rest, and they would be reported as timeouts). Waiters are served in the order
/// they came; one whose deadline passes first gives up, and nothing is left waiting for it.
actor FetchSlots {
    /// Requests to one host at once.
    let perHost: Int
    /// Requests at once, all hosts together.
    let total: Int
    private var busy: [String: Int] = [:]
    private var inFlight = 0
    private var waiting: [Waiter] = []
    private var nextID = 0

    private struct Waiter {
        let id: Int
        let host: String
        let continuation: CheckedContinuation<Bool, Never>
        var timer: Task<Void, Never>?
    }

    init(perHost: Int, total: Int) {
        (self.perHost, self.total) = (max(1, perHost), max(1, total))
    }

    /// Takes a turn for `host`, waiting until `deadline` at most; false when it passed first.
    /// A true answer must be given back with ``release(_:)``.
    func acquire(_ host: String, until deadline: ContinuousClock.Instant) async -> Bool {
        // Free turns are handed to waiters as they free up, so a turn free now is no waiter's.
        if canStart(host) {
            start(host)
            return true
        }
        guard ContinuousClock.now < deadline else { return false }
        let id = nextID
        nextID += 1
        return await withCheckedContinuation { continuation in
            waiting.append(Waiter(id: id, host: host, continuation: continuation))
            let timer = Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                if !Task.isCancelled { self.expire(id) }
            }
            if let index = waiting.firstIndex(where: { $0.id == id }) { waiting[index].timer = timer } else { timer.cancel() }
        }
    }

    /// Gives back a turn `acquire` gave for `host`, and hands the free turns to the oldest
    /// waiters that may have them.
    func release(_ host: String) {
        busy[host, default: 1] -= 1
        if busy[host] == 0 { busy[host] = nil }
        inFlight -= 1
        var index = 0
        while index < waiting.count && inFlight < total {
            guard canStart(waiting[index].host) else { index += 1; continue }
            let waiter = waiting.remove(at: index)
            start(waiter.host)
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: true)
        }
    }

    /// How many turns are taken now, and how many wait (for tests).
    var taken: Int { inFlight }
    var waiters: Int { waiting.count }

    private func canStart(_ host: String) -> Bool { inFlight < total && busy[host, default: 0] < perHost }

    private func start(_ host: String) {
        busy[host, default: 0] += 1
        inFlight += 1
    }

    private func expire(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(returning: false)
    }
}
