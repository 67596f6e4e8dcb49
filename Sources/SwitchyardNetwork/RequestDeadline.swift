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

    /// The result of `operation`, or `Exceeded` once `seconds` (plus `margin`) have passed; the
    /// operation is cancelled then.
    static func run<T: Sendable>(seconds: Double, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let limit = clamped(seconds) + margin
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64(limit * 1000)))
                return nil
            }
            defer { group.cancelAll() }
            // The first child to finish decides: the request's value, or nil from the timer.
            guard let first = try await group.next(), let value = first else { throw Exceeded() }
            return value
        }
    }
}
