import SwitchyardCore
import NIOCore

/// A bound on a whole request — connection, response head and every byte of the body.
///
/// AsyncHTTPClient's deadline ends only the wait for the response head, and its read timeout is
/// per read: a server that sends one byte a second keeps a request alive for as long as it likes.
/// `run` races the request against a timer instead; when the timer wins, the request's task is
/// cancelled (which cancels the HTTP transaction and closes its connection) and `run` throws
/// `RequestDeadline.Exceeded`. Nothing blocks: the timer is a `Task.sleep`.
enum RequestDeadline {
    /// The whole request ran past its time.
    struct Exceeded: Error {}

    /// `seconds` clamped to what a timer can take (non-finite or huge values become one day).
    static func clamped(_ seconds: Double) -> Double {
        seconds.isFinite ? min(max(seconds, 0.001), 86_400) : 86_400
    }

    /// The same bound as a NIO time amount, for AsyncHTTPClient's own deadline and timeouts.
    static func amount(_ seconds: Double) -> TimeAmount {
        .milliseconds(Int64(clamped(seconds) * 1000))
    }

    /// Added to the timer, so that when the response head is late AsyncHTTPClient's own deadline
    /// (the same `seconds`) reports first, with its reason (a TLS failure, a refused connection).
    static let margin = 0.5

    /// The result of `operation`, or `Exceeded` once `seconds` (plus `margin`) have passed. At
    /// the deadline the operation is cancelled and `run` returns at once: it does not wait for the
    /// cancellation to reach a connection that is still handshaking or reading (a task group
    /// would), so a slow or stuck peer cannot stretch the bound.
    static func run<T: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let limit = clamped(seconds) + margin
        let outcome = Outcome<T>()
        let work = Task {
            do { outcome.finish(.success(try await operation())) } catch { outcome.finish(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(for: .milliseconds(Int64(limit * 1000)))
            if !Task.isCancelled { outcome.finish(.failure(Exceeded())) }
            work.cancel()
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await outcome.value()
        } onCancel: {
            work.cancel()
            outcome.finish(.failure(CancellationError()))
        }
    }

    /// The first result handed to it, for whoever waits (once).
    private final class Outcome<T: Sendable>: Sendable {
        private struct State {
            var result: Result<T, any Error>?
            var waiter: CheckedContinuation<T, any Error>?
        }
        private let state = Locked(State())

        /// Keeps `result` unless one came first, and wakes the waiter.
        func finish(_ result: Result<T, any Error>) {
            let waiter = state.withLock { state -> CheckedContinuation<T, any Error>? in
                guard state.result == nil else { return nil }
                state.result = result
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(with: result)
        }

        /// The result, once there is one.
        func value() async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<T, any Error>? in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
