import SwitchyardCore
/// An HTTP request made on behalf of a script or of redirect following.
public struct FetchRequest: Sendable, Equatable {
    /// The HTTP methods a request may use.
    public enum Method: String, Sendable { case get = "GET", head = "HEAD", post = "POST" }
    /// The absolute URL to request.
    public var url: String
    /// The HTTP method (GET by default).
    public var method: Method
    /// When false, a 3xx response is returned as is (its `Location` in `headers`).
    public var followRedirects: Bool
    /// Headers sent beside the fetcher's own (`User-Agent`); a name given here replaces the fetcher's.
    public var headers: [(name: String, value: String)]
    /// The request body (a webhook's JSON); nil sends none.
    public var body: [UInt8]?
    /// When the whole request, redirects included, must be over (a script's wall-clock limit, an
    /// unwrap's time): the fetcher ends it then, or sooner at its own timeout, and sends nothing
    /// after it. nil: only the fetcher's own timeout applies.
    public var deadline: ContinuousClock.Instant?

    /// A request; by default a GET that follows redirects, with no extra headers, no body and no
    /// deadline beyond the fetcher's own timeout.
    public init(url: String, method: Method = .get, followRedirects: Bool = true,
                headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, deadline: ContinuousClock.Instant? = nil) {
        self.url = url
        self.method = method
        self.followRedirects = followRedirects
        self.headers = headers
        self.body = body
        self.deadline = deadline
    }

    /// Equal when URL, method, redirect policy, body, deadline and headers (in order) are.
    public static func == (a: FetchRequest, b: FetchRequest) -> Bool {
        a.url == b.url && a.method == b.method && a.followRedirects == b.followRedirects && a.body == b.body && a.deadline == b.deadline
            && a.headers.map { "\($0.name):\($0.value)" } == b.headers.map { "\($0.name):\($0.value)" }
    }
}

/// A response: status, headers (names lower-cased, in order), body and the URL finally fetched.
public struct FetchResponse: Sendable, Equatable {
    /// The statuses a browser follows a `Location` of (300, 304 and the unassigned 3xx are not
    /// redirects to it).
    public static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The HTTP status code.
    public var status: Int
    /// The response headers in the order received, names lower-cased (`header(_:)` relies on it).
    public var headers: [(name: String, value: String)]
    /// The response body as received.
    public var body: [UInt8]
    /// The URL finally fetched, after any redirects that were followed.
    public var url: String

    /// A response with `status` from `url`; headers and body default to empty.
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// Equal when status, body, URL and headers (in order) are.
    public static func == (a: FetchResponse, b: FetchResponse) -> Bool {
        a.status == b.status && a.body == b.body && a.url == b.url
            && a.headers.map { "\($0.name):\($0.value)" } == b.headers.map { "\($0.name):\($0.value)" }
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first(where: { $0.name == lower })?.value
    }
}

/// Why a fetch failed: `network-disabled` (offline), `network-refused` (a private or loopback
/// destination), `invalid-url`, `network-timeout`, `body-too-large`, `too-many-redirects`,
/// `network-error` (the HTTP client's error is its cause). Described as `code: message`.
public typealias FetchError = DomainError<FetchErrors>

/// The domain of ``FetchError``.
public enum FetchErrors: ErrorDomain {
    /// Fetch errors are described as `code: message`.
    public static var describesWithCode: Bool { true }
}

/// The single way scripts and redirect following reach the network. Asynchronous: a script's
/// synchronous `httpRequest` waits for it on the engine's own thread (`ScriptExecutor`), never
/// on an event loop.
public protocol Fetcher: Sendable {
    func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse
}

/// A fetcher that refuses everything with `network-disabled` (`--offline`).
public struct OfflineFetcher: Fetcher {
    /// Makes the fetcher; it has no settings.
    public init() {}

    /// Always throws `network-disabled`; nothing is sent.
    public func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
        throw FetchError(code: .networkDisabled, message: "network access is disabled (offline); \(request.method.rawValue) \(request.url) was not sent")
    }
}

/// The fetcher of an engine that is online but was given no fetcher: every request fails with
/// `network-unavailable`, saying how to give it one.
public struct UnconfiguredFetcher: Fetcher {
    /// Makes the fetcher; it has no settings.
    public init() {}

    /// Always throws `network-unavailable`, saying how to give the engine a fetcher; nothing is sent.
    public func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
        throw FetchError(code: .networkUnavailable, message: "no fetcher is configured, so \(request.method.rawValue) \(request.url) was not sent; pass LinkEngine.Options(fetcher:) (SwitchyardNetwork's HTTPFetcher, or your own), or set offline")
    }
}
