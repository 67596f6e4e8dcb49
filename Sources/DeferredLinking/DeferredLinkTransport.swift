import SwitchyardCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How ``DeferredLink`` talks to the link service: one JSON POST. Inject your own (a test's, or
/// your app's networking layer); ``URLSessionDeferredLinkTransport`` is the default.
public protocol DeferredLinkTransport: Sendable {
    /// POSTs `json` to `url` and returns the status and body of the answer.
    func post(_ url: URL, json: Data) async throws -> (status: Int, body: Data)
}

/// ``DeferredLinkTransport`` over `URLSession` (10 s timeout).
public struct URLSessionDeferredLinkTransport: DeferredLinkTransport {
    /// The session requests are made with.
    public let session: URLSession

    /// A transport over `session` (the shared session by default).
    public init(session: URLSession = .shared) { self.session = session }

    /// POSTs `json` as `application/json` with a 10 s timeout; the status is 0 when the answer is not HTTP.
    /// Throws the session's error.
    public func post(_ url: URL, json: Data) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = json
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}
