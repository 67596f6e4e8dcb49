import SwitchyardCore
import AsyncHTTPClient
import Foundation
import LinkRules
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The default fetcher: real HTTP(S) through AsyncHTTPClient, guarded.
///
/// Every hop (the first request and each redirect) is checked by `AddressGuard` and the
/// connection goes to the very address that was checked (DNS is pinned for that request), so a
/// name that resolves to a public address during the check cannot connect to a private one
/// afterwards. Timeouts and a body size cap bound every request.
public struct HTTPFetcher: Fetcher {
    /// The limits and settings every request of a fetcher uses.
    public struct Options: Sendable {
        /// Checks the address of every hop; unless private
        /// addresses are allowed, only public ones may be reached.
        public var guardrail: AddressGuard
        /// Seconds for the whole call: connect, response and body of every hop, redirects included.
        public var timeout: Double
        /// The largest response body read, in bytes (default
        /// 2 MiB); a larger one fails with `body-too-large`.
        public var maximumBodyBytes: Int
        /// Redirects followed for one request before it fails with `too-many-redirects` (default 10).
        public var maximumRedirects: Int
        /// The User-Agent sent, unless the request sets its own.
        public var userAgent: String

        /// Options with these limits; `allowPrivateAddresses` lets requests
        /// reach private and loopback addresses (tests, intranets).
        public init(
            allowPrivateAddresses: Bool = false, timeout: Double = 10, maximumBodyBytes: Int = 2 << 20,
            maximumRedirects: Int = 10, userAgent: String = "Switchyard/0.1 (+link resolver)"
        ) {
            self.guardrail = AddressGuard(allowPrivate: allowPrivateAddresses)
            self.timeout = timeout
            self.maximumBodyBytes = maximumBodyBytes
            self.maximumRedirects = maximumRedirects
            self.userAgent = userAgent
        }
    }

    /// The settings this fetcher's requests use.
    public let options: Options

    /// A fetcher with `options` (by default: public addresses only, 10 s, 2 MiB, 10 redirects).
    public init(options: Options = Options()) { self.options = options }

    /// Sends `request`, following redirects (up to `maximumRedirects`) when it asks to. Throws
    /// for refused addresses, invalid URLs, timeouts, oversized bodies and network failures.
    ///
    /// `timeout` bounds the whole call, its redirects included (each hop gets what is left), and
    /// so does the request's own `deadline` when it comes sooner: no hop is sent after either.
    public func fetch(_ request: FetchRequest) async throws(FetchError) -> FetchResponse {
        let clock = ContinuousClock()
        let started = clock.now
        var end = started.advanced(by: .milliseconds(Int64(RequestDeadline.clamped(options.timeout) * 1000)))
        var limit = "the \(options.timeout) s network timeout"
        if let deadline = request.deadline, deadline < end {
            end = deadline
            limit = "the caller's deadline (a script's wall-clock limit)"
        }
        var url = request.url
        var hops = 0
        while true {
            let left = (end - clock.now) / .seconds(1)
            guard left > 0 else {
                let followed = hops == 0 ? "" : " after \(hops) redirect\(hops == 1 ? "" : "s")"
                throw FetchError(code: .networkTimeout, message: "\(request.url): no complete response within \(limit)\(followed); \(url) was not requested")
            }
            let response = try await fetchOnce(url: url, request: request, seconds: left, limit: limit)
            guard request.followRedirects, FetchResponse.redirectStatuses.contains(response.status), let location = response.header("location") else {
                return response
            }
            hops += 1
            if hops > options.maximumRedirects {
                throw FetchError(code: .tooManyRedirects, message: "more than \(options.maximumRedirects) redirects starting at \(request.url)")
            }
            guard let next = RedirectLocation.resolve(location, against: url) else {
                throw FetchError(code: .invalidURL, message: "redirect to an invalid location '\(location)'")
            }
            url = next
        }
    }

    /// One request to `url` (the request's, or a redirect's), no redirect following, within
    /// `seconds` (what is left of the call's time; `limit` names that bound in a timeout's message).
    func fetchOnce(url: String, request: FetchRequest, seconds: Double, limit: String) async throws(FetchError) -> FetchResponse {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else {
            throw FetchError(code: .invalidURL, message: "only absolute http(s) URLs can be fetched: '\(url)'")
        }
        let port = components.port ?? (scheme == "https" ? 443 : 80)
        // NIO traps on a port that does not fit 16 bits: refused here, before any socket address.
        guard (1...65535).contains(port) else {
            throw FetchError(code: .invalidURL, message: "\(url): the port \(port) is not from 1 to 65535; nothing was fetched")
        }
        let address = try await Self.resolve(host: host, port: port, with: options.guardrail, seconds: seconds)

        // One time limit for the whole request: connection, head and every byte of the body
        // (a body sent a byte at a time cannot stretch it; see `RequestDeadline`).
        let timeout = RequestDeadline.amount(seconds)
        var tls = TLSConfiguration.makeClientConfiguration()
        // A connection ended by the deadline is closed without waiting 5 s (NIOSSL's default)
        // for the server's close_notify: a server trickling its answer never sends one.
        tls.shutdownTimeout = .milliseconds(250)
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout))
        configuration.dnsOverride = [host: address]
        // One request: a refused connection or a failed handshake is the answer, said at once
        // (the default retries until the timeout).
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let result: Result<FetchResponse, FetchError>
        do {
            var httpRequest = HTTPClientRequest(url: url)
            switch request.method {
            case .get: httpRequest.method = .GET
            case .head: httpRequest.method = .HEAD
            case .post: httpRequest.method = .POST
            }
            httpRequest.headers.replaceOrAdd(name: "User-Agent", value: options.userAgent)
            for (name, value) in request.headers { httpRequest.headers.replaceOrAdd(name: name, value: value) }
            if let body = request.body { httpRequest.body = .bytes(ByteBuffer(bytes: body)) }
            let deadline = NIODeadline.now() + timeout
            let maximumBodyBytes = options.maximumBodyBytes
            let sent = httpRequest
            result = .success(try await RequestDeadline.run(seconds: seconds) {
                let response = try await client.execute(sent, deadline: deadline)
                var buffer = try await response.body.collect(upTo: maximumBodyBytes)
                try Task.checkCancellation()  // a body cut short by the deadline is not a response
                let body = buffer.readBytes(length: buffer.readableBytes) ?? []
                return FetchResponse(
                    status: Int(response.status.code),
                    headers: response.headers.map { ($0.name.lowercased(), $0.value) },
                    body: body, url: url)
            })
        } catch is NIOTooManyBytesError {
            result = .failure(FetchError(code: .bodyTooLarge, message: "\(url): response body over \(options.maximumBodyBytes) bytes"))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            result = .failure(FetchError(code: .networkTimeout, message: "\(url): no complete response within \(limit)"))
        } catch is RequestDeadline.Exceeded {
            result = .failure(FetchError(code: .networkTimeout, message: "\(url): no complete response within \(limit)"))
        } catch {
            result = .failure(FetchError(code: .networkError, message: "\(url): \(NetworkFailure.describe(error))", cause: error))
        }
        try? await client.shutdown()
        return try result.get()
    }
}

extension HTTPFetcher {
    /// The address to connect to for `host`, as `guardrail` allows (see `HostLookup`), waiting
    /// at most `seconds` for DNS.
    static func resolve(host: String, port: Int, with guardrail: AddressGuard, seconds: Double) async throws(FetchError) -> String {
        // An address written as such needs no lookup: checked here, at once.
        if isAddressLiteral(host) { return try guardrail.resolve(host: host, port: port) }
        return try await HostLookup.address(host: host, port: port, guardrail: guardrail, seconds: seconds)
    }
}

extension HTTPFetcher {
    /// Whether `host` is an IPv4 address in dotted form or an IPv6 address (bracketed or not).
    package static func isAddressLiteral(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, bare, &v4) == 1 || inet_pton(AF_INET6, bare, &v6) == 1
    }
}

extension LinkEngine.Options {
    /// These options with an `HTTPFetcher` made from `allowPrivateAddresses` and `networkTimeout`
    /// (unless a fetcher is set already or the engine is offline): what `switchyard` uses.
    public func withHTTPFetcher() -> Self {
        guard !offline, fetcher == nil else { return self }
        var options = self
        options.fetcher = HTTPFetcher(options: .init(allowPrivateAddresses: allowPrivateAddresses, timeout: networkTimeout))
        return options
    }
}
