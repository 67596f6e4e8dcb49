import LinkRules
import NIOPosix
import SwitchyardCore

/// DNS lookups for the fetchers: the address guard's blocking `getaddrinfo` on a thread pool of
/// its own, so no caller (an event loop, Swift's cooperative pool) waits on it and a resolver
/// that stalls (5 s per try is common) cannot hold up the shared blocking pool's file and
/// database work. Lookups of the same host, port and guard that overlap share one call, and an
/// answer (an address, or the reason there is none) is kept for ``answerSeconds``, so a batch of
/// links to one host asks once; a caller waits at most the time it was given.
enum HostLookup {
    /// Threads for lookups: a lookup mostly waits on the network, so more than one per core.
    static let threadCount = 16

    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: threadCount)
        pool.start()
        return pool
    }()

    private struct Key: Hashable {
        let host: String
        let port: Int
        let allowPrivate: Bool
    }

    /// Lookups in progress, each with the task every caller of the same key awaits.
    private static let running = Locked<[Key: Task<Result<String, FetchError>, Never>]>([:])

    /// How long an answer is used again (a short while, as a system resolver's cache keeps it:
    /// the address connected to is the one the guard checked, so a name cannot be rebound
    /// under a request in the meantime).
    static let answerSeconds = 30
    /// The most answers kept; past it the oldest half is forgotten.
    static let maximumAnswers = 1024
    /// Answers and when each was had.
    private static let answers = Locked<[Key: (result: Result<String, FetchError>, at: ContinuousClock.Instant)]>([:])

    /// The address to connect to for `host`, as `guardrail` allows, or why not. Waits at most
    /// `seconds` (the lookup goes on and ends on its own; a later caller may share it).
    /// `lookup` is the blocking call (the guard's, but for tests).
    static func address(host: String, port: Int, guardrail: AddressGuard, seconds: Double,
                        lookup: (@Sendable (String, Int) -> Result<String, FetchError>)? = nil) async throws(FetchError) -> String {
        let key = Key(host: host, port: port, allowPrivate: guardrail.allowPrivate)
        let now = ContinuousClock.now
        if let kept = answers.withLock({ $0[key] }), now - kept.at < .seconds(answerSeconds) { return try kept.result.get() }
        let call = lookup ?? { host, port in
            do throws(FetchError) { return .success(try guardrail.resolve(host: host, port: port)) } catch { return .failure(error) }
        }
        let shared = running.withLock { inProgress -> Task<Result<String, FetchError>, Never> in
            if let running = inProgress[key] { return running }
            let task = Task { () -> Result<String, FetchError> in
                let result: Result<String, FetchError>
                do {
                    result = try await pool.runIfActive { call(host, port) }
                } catch {
                    result = .failure(FetchError(code: .networkError, message: "cannot resolve host '\(host)': \(error)", cause: error))
                }
                answers.withLock { answers in
                    if answers.count >= maximumAnswers {
                        let oldest = answers.sorted { $0.value.at < $1.value.at }.prefix(maximumAnswers / 2).map(\.key)
                        for key in oldest { answers[key] = nil }
                    }
                    answers[key] = (result, ContinuousClock.now)
                }
                _ = running.withLock { $0.removeValue(forKey: key) }
                return result
            }
            inProgress[key] = task
            return task
        }
        let limit = Duration.milliseconds(Int64(RequestDeadline.clamped(seconds) * 1000))
        let answer: Result<String, FetchError>?
        do { answer = try await awaitingAtMost(limit) { await shared.value } } catch { answer = nil }
        guard let answer else {
            throw FetchError(code: .networkTimeout, message: "cannot resolve host '\(host)': no answer from DNS within \(seconds) s")
        }
        return try answer.get()
    }
}
