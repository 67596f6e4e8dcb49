@testable import ServiceTransport
import Testing

/// The connection guard's and the keep-alive rule's own arithmetic; their behaviour over real
/// sockets is tried through the service (`ConnectionLimitTests`).
@Suite struct ConnectionRuleTests {
    /// The share of a network is a quarter of the connections, or the share of one address
    /// where that is more; no share of an address, none of a network.
    @Test func aNetworksShareFollowsTheAddressShare() {
        #expect(ConnectionLimits(maximumConnections: 1000, requestTimeout: 30, maximumPerAddress: 62).maximumPerNetwork == 250)
        #expect(ConnectionLimits(maximumConnections: 1000, requestTimeout: 30, maximumPerAddress: 400).maximumPerNetwork == 400)
        #expect(ConnectionLimits(maximumConnections: 1000, requestTimeout: 30).maximumPerNetwork == nil)
    }

    /// The tokens of `Connection` are compared in any ASCII case and nothing else: a control
    /// character is no letter of them.
    @Test func connectionTokensAreComparedInAnyCaseOnly() {
        #expect(KeepAliveRule.isToken("Keep-Alive", "keep-alive") && KeepAliveRule.isToken("CLOSE", "close"))
        #expect(!KeepAliveRule.isToken("keep\ralive", "keep-alive") && !KeepAliveRule.isToken("closex", "close") && !KeepAliveRule.isToken("clos", "close"))
    }
}
