/// The result of `operation`, or nil when it has not finished within `limit`. Past the limit it
/// is cancelled and not waited for: it ends on its own, and its result is dropped.
///
/// For calls whose end nobody can promise and that something shared waits behind: a database
/// query whose connection died mid-transaction has been seen to never answer, and the click
/// flush holding its lock (or the requests queued behind a shared rate-limit take) must not
/// wait for it forever. The timer is cancelled when the operation ends first, so no task is
/// left sleeping.
public func awaitingAtMost<T: Sendable>(_ limit: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
    let waiter = Locked<(continuation: CheckedContinuation<T?, any Error>?, timer: Task<Void, Never>?)>((nil, nil))
    return try await withCheckedThrowingContinuation { continuation in
        waiter.withLock { $0.continuation = continuation }
        let work = Task {
            let result: Result<T?, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            let (waiting, timer) = waiter.withLock { state in
                defer { state = (nil, nil) }
                return (state.continuation, state.timer)
            }
            timer?.cancel()
            waiting?.resume(with: result)
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            guard !Task.isCancelled, let waiting = waiter.withLock({ state in defer { state.continuation = nil }; return state.continuation }) else { return }
            work.cancel()
            waiting.resume(returning: nil)
        }
        // The operation may have ended already, before there was a timer to cancel.
        let ended = waiter.withLock { state -> Bool in
            if state.continuation == nil { return true }
            state.timer = timer
            return false
        }
        if ended { timer.cancel() }
    }
}
