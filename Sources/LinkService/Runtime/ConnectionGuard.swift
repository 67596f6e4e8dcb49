import Atomics
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Prometheus
import NIOHTTPTypes
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What keeps a flood of connections from taking the service down.
///
/// - At most `maximumConnections` connections are open at once; one more is closed as soon as it
///   is accepted. The limit leaves room below the process's descriptor limit for what the service
///   itself opens (the database, log writes, script workers, a timer): libdispatch stops the
///   process when it cannot get a descriptor for a timer.
/// - A request must arrive whole — head and body — within `requestTimeout` of the connection
///   opening or of the previous response: a client that sends a byte now and then gets no more
///   time for it. This also closes idle keep-alive connections.
public struct ConnectionLimits: Sendable {
    /// The most connections open at once.
    package var maximumConnections: Int
    /// Seconds a request may take to arrive, from the connection's start or the previous response.
    package var requestTimeout: Double

    /// Limits for this process: raises the soft descriptor limit to the hard one, then allows
    /// that many connections less a reserve (an eighth, at least 64) for everything else.
    package static func forThisProcess(requestTimeout: Double = 75) -> ConnectionLimits {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            return ConnectionLimits(maximumConnections: 768, requestTimeout: requestTimeout)
        }
        // The hard limit may be "unlimited": one million descriptors is plenty.
        let ceiling = rlim_t(1 << 20)
        let wanted = min(limit.rlim_max, ceiling)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        let descriptors = Int(min(limit.rlim_cur, ceiling))
        let reserve = max(64, descriptors / 8)
        return ConnectionLimits(maximumConnections: max(16, descriptors - reserve), requestTimeout: requestTimeout)
    }

    /// Limits as given.
    package init(maximumConnections: Int, requestTimeout: Double) {
        self.maximumConnections = maximumConnections
        self.requestTimeout = requestTimeout
    }
}

/// The count of open connections, shared by every connection's `ConnectionGuardHandler`.
final class ConnectionCount: Sendable {
    let limits: ConnectionLimits
    private let open = ManagedAtomic<Int>(0)
    let refused: Counter
    let timedOut: Counter

    init(_ limits: ConnectionLimits, metrics: ServiceMetrics) {
        self.limits = limits
        refused = metrics.connectionsRefused
        timedOut = metrics.requestsTimedOut
    }

    /// Counts one more connection; false (and nothing counted) when the limit is reached.
    func admit() -> Bool {
        let now = open.wrappingIncrementThenLoad(ordering: .relaxed)
        if now <= limits.maximumConnections { return true }
        open.wrappingDecrement(ordering: .relaxed)
        refused.increment()
        return false
    }

    func leave() { open.wrappingDecrement(ordering: .relaxed) }

    /// Connections open now.
    var current: Int { open.load(ordering: .relaxed) }
}

/// Applies `ConnectionLimits` to one connection (see there).
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let count: ConnectionCount
    private var counted = false
    /// When the request now awaited started to be awaited (the connection opened or the previous
    /// response ended); nil while a request is being answered.
    private var waitingSince: NIODeadline?
    /// One repeating check per connection, not a timer per request: arming and cancelling one
    /// costs an allocation, a heap insertion and removal and often a selector wake-up.
    private var check: RepeatedTask?

    init(_ count: ConnectionCount) { self.count = count }

    func handlerAdded(context: ChannelHandlerContext) {
        guard count.admit() else {
            context.close(promise: nil)
            return
        }
        counted = true
        waitingSince = .now()
        let timeout = TimeAmount.milliseconds(Int64(count.limits.requestTimeout * 1000))
        // Checked four times per timeout (at most every 5 s): a request is cut off between
        // 1 and 1.25 timeouts after it started to be awaited.
        let every = TimeAmount.nanoseconds(min(timeout.nanoseconds / 4, TimeAmount.seconds(5).nanoseconds))
        let channel = context.channel
        let timedOut = count.timedOut
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleRepeatedTask(initialDelay: every, delay: every) { task in
            let handler = loopBound.value
            guard let since = handler.waitingSince, NIODeadline.now() - since >= timeout else { return }
            task.cancel()
            timedOut.increment()
            channel.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        if counted {
            counted = false
            count.leave()
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    private func stop() {
        check?.cancel()
        check = nil
        waitingSince = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The whole request is in: what follows is the service's time, not the client's.
        if case .end = unwrapInboundIn(data) { waitingSince = nil }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The response is complete: the next request has its own time to arrive.
        if check != nil, case .end = unwrapOutboundIn(data) { waitingSince = .now() }
        context.write(data, promise: promise)
    }
}
