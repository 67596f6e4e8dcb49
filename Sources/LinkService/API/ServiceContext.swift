import SwitchyardCore
import Hummingbird
import NIOCore

/// The request context: Hummingbird's core storage plus the client's address (for rate limits
/// and logs).
public struct ServiceContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
