import LinkRequests
import LinkStorage
import SwitchyardCore
import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the client's address (for rate limits
/// and logs).
package struct ServiceContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage (logger, parameters, endpoint path).
    package var coreContext: CoreRequestContextStorage
    /// The peer address of the connection; nil when the channel does not know it. X-Forwarded-For is not applied here.
    package let remoteAddress: SocketAddress?
    /// The API token the route's guard verified (`RequiresToken`); nil on routes without one.
    package var token: StoredToken?

    /// A context for a request arriving on `source`'s channel, taking the peer address from it.
    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
