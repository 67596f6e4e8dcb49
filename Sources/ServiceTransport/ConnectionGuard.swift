import Atomics
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import LinkConfiguration
import SwitchyardCore
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
/// - At most `maximumPerAddress` of them come from one client, as the rate limits count clients
///   (`VisitSettings.rateLimitKey`: an IPv4 address, an IPv6 /64, which one host may hold
///   whole), so one client cannot take every connection; one more from it is closed as soon as
///   it is accepted. The clients of one network (`VisitSettings.anonymize`: an IPv4 /24, an
///   IPv6 /48, which one person can have for free from a tunnel broker) hold at most
///   ``ConnectionLimits/maximumPerNetwork`` together.
/// - A request that does not keep its connection open (HTTP/1.0 without keep-alive) ends it
///   once answered (`KeepAliveRule`). A connection the service ends is closed for writing
///   first, and whole ``lingering`` later (or when the client closes): the client reads the
///   answer before unread bytes could make the kernel reset the connection, and the slot is
///   not held until the request timeout.
/// - A request must arrive whole — head and body — within `requestTimeout` of the connection
///   opening or of the previous response: a client that sends a byte now and then gets no more
///   time for it. This also closes idle keep-alive connections.
public struct ConnectionLimits: Sendable {
    /// The most connections open at once.
    package var maximumConnections: Int
    /// Seconds a request may take to arrive, from the connection's start or the previous response.
    package var requestTimeout: Double
    /// The most connections open at once from one client address; nil: no such limit (behind a
    /// proxy of the operator's, every connection comes from the proxy).
    package var maximumPerAddress: Int?

    /// The most connections open at once from the clients of one network together: a quarter of
    /// the connections, or the share of one client where that is more; nil with no share.
    package var maximumPerNetwork: Int? { maximumPerAddress.map { max($0, maximumConnections / 4) } }

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
        // Under a very low limit, a quarter of the descriptors: accepting past what the process
        // can open fails again and again, at a cost in CPU.
        let maximum = descriptors - reserve >= 16 ? descriptors - reserve : max(1, descriptors / 4)
        return ConnectionLimits(maximumConnections: maximum, requestTimeout: requestTimeout)
    }

    /// The limits `serve` runs with: ``forThisProcess(requestTimeout:)`` with the share of one
    /// client address `perAddress` gives (`service.connectionsPerAddress`; 0: none), by default
    /// ``defaultPerAddress``, and none `behindProxies` (every connection comes from a proxy).
    package static func forService(perAddress: Int?, behindProxies: Bool) -> ConnectionLimits {
        var limits = forThisProcess()
        let share = perAddress ?? (behindProxies ? 0 : limits.defaultPerAddress)
        limits.maximumPerAddress = share > 0 ? share : nil
        return limits
    }

    /// Limits as given.
    package init(maximumConnections: Int, requestTimeout: Double, maximumPerAddress: Int? = nil) {
        self.maximumConnections = maximumConnections
        self.requestTimeout = requestTimeout
        self.maximumPerAddress = maximumPerAddress
    }

    /// The default share of one client address: a sixteenth of the connections, at least 16,
    /// and never more than a quarter of them.
    package var defaultPerAddress: Int { max(1, min(max(16, maximumConnections / 16), maximumConnections / 4)) }
}

/// The count of open connections, in all and per client address, shared by every connection's
/// `ConnectionGuardHandler`.
package final class ConnectionCount: Sendable {
    /// What the guard reports: a connection refused by the limit or by its client's share, and a
    /// request that did not arrive whole within the timeout.
    package struct Observers: Sendable {
        let refused: @Sendable () -> Void
        let refusedPerAddress: @Sendable () -> Void
        let timedOut: @Sendable () -> Void

        package init(refused: @escaping @Sendable () -> Void, refusedPerAddress: @escaping @Sendable () -> Void,
                     timedOut: @escaping @Sendable () -> Void) {
            self.refused = refused
            self.refusedPerAddress = refusedPerAddress
            self.timedOut = timedOut
        }
    }

    let limits: ConnectionLimits
    private let open = ManagedAtomic<Int>(0)
    /// Open connections per client and per network, while they have any.
    private let held = Locked<(byClient: [String: Int], byNetwork: [String: Int])>(([:], [:]))
    let observers: Observers

    package init(_ limits: ConnectionLimits, observers: Observers) {
        self.limits = limits
        self.observers = observers
    }

    /// Counts one more connection from `client` in `network`; false (and nothing counted) when
    /// the limit, the client's share or its network's is reached.
    func admit(_ client: String?, in network: String?) -> Bool {
        let now = open.wrappingIncrementThenLoad(ordering: .relaxed)
        guard now <= limits.maximumConnections else {
            open.wrappingDecrement(ordering: .relaxed)
            observers.refused()
            return false
        }
        guard let share = limits.maximumPerAddress, let networkShare = limits.maximumPerNetwork, let client, let network else { return true }
        let admitted = held.withLock { held in
            let (mine, ours) = (held.byClient[client, default: 0], held.byNetwork[network, default: 0])
            if mine >= share || ours >= networkShare { return false }
            held.byClient[client] = mine + 1
            held.byNetwork[network] = ours + 1
            return true
        }
        if !admitted {
            open.wrappingDecrement(ordering: .relaxed)
            observers.refusedPerAddress()
        }
        return admitted
    }

    /// Counts a connection `admit` counted as closed.
    func leave(_ client: String?, in network: String?) {
        open.wrappingDecrement(ordering: .relaxed)
        guard limits.maximumPerAddress != nil, let client, let network else { return }
        held.withLock { held in
            let mine = held.byClient[client, default: 1] - 1
            held.byClient[client] = mine > 0 ? mine : nil
            let ours = held.byNetwork[network, default: 1] - 1
            held.byNetwork[network] = ours > 0 ? ours : nil
        }
    }

    /// Connections open now.
    package var current: Int { open.load(ordering: .relaxed) }
}

/// Applies `ConnectionLimits` to one connection (see there).
package final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let count: ConnectionCount
    private var counted = false
    /// The client the connection counts against (`VisitSettings.rateLimitKey` of its address),
    /// and the client's network (`VisitSettings.anonymize`).
    private var client: String?
    private var network: String?
    /// When the request now awaited started to be awaited (the connection opened or the previous
    /// response ended); nil while a request is being answered.
    private var waitingSince: NIODeadline?
    /// One repeating check per connection, not a timer per request: arming and cancelling one
    /// costs an allocation, a heap insertion and removal and often a selector wake-up.
    private var check: RepeatedTask?
    /// The full close of a connection closed for writing.
    private var linger: Scheduled<Void>?
    /// How long a connection closed for writing is read on before it is closed whole.
    static let lingering = TimeAmount.seconds(2)

    package init(_ count: ConnectionCount) { self.count = count }

    package func handlerAdded(context: ChannelHandlerContext) {
        if let address = context.channel.remoteAddress?.ipAddress {
            client = VisitSettings.rateLimitKey(address)
            network = VisitSettings.anonymize(address) ?? address
        }
        guard count.admit(client, in: network) else {
            context.close(promise: nil)
            return
        }
        counted = true
        _ = KeepAliveRule.install(in: context.pipeline.syncOperations)
        waitingSince = .now()
        let timeout = TimeAmount.milliseconds(Int64(count.limits.requestTimeout * 1000))
        // Checked four times per timeout (at most every 5 s): a request is cut off between
        // 1 and 1.25 timeouts after it started to be awaited.
        let every = TimeAmount.nanoseconds(min(timeout.nanoseconds / 4, TimeAmount.seconds(5).nanoseconds))
        let channel = context.channel
        let timedOut = count.observers.timedOut
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        check = context.eventLoop.scheduleRepeatedTask(initialDelay: every, delay: every) { task in
            let handler = loopBound.value
            guard let since = handler.waitingSince, NIODeadline.now() - since >= timeout else { return }
            task.cancel()
            timedOut()
            channel.close(promise: nil)
        }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        if counted {
            counted = false
            count.leave(client, in: network)
        }
    }

    package func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    private func stop() {
        check?.cancel()
        check = nil
        linger?.cancel()
        linger = nil
        waitingSince = nil
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .output, linger == nil, counted {
            let channel = context.channel
            linger = context.eventLoop.scheduleTask(in: Self.lingering) { channel.close(promise: nil) }
        }
        context.close(mode: mode, promise: promise)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The whole request is in: what follows is the service's time, not the client's.
        if case .end = unwrapInboundIn(data) { waitingSince = nil }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The response is complete: the next request has its own time to arrive.
        if check != nil, case .end = unwrapOutboundIn(data) { waitingSince = .now() }
        context.write(data, promise: promise)
    }
}
