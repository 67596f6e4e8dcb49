import LinkStorage
import SwitchyardCore
import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the client's address (for rate limits
/// and logs).
public struct ServiceContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage (logger, parameters, endpoint path).
    public var coreContext: CoreRequestContextStorage
    /// The peer address of the connection; nil when the channel does not know it. X-Forwarded-For is not applied here.
    public let remoteAddress: SocketAddress?
    /// The API token the route's guard verified (`RequiresToken`); nil on routes without one.
    public var token: StoredToken?

    /// A context for a request arriving on `source`'s channel, taking the peer address from it.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
