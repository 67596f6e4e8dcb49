import LinkCache
import LinkRequests
import Foundation
import HTTPTypes
import Hummingbird
import LinkConfiguration
import LinkStorage
import NIOCore
import NIOPosix
import SwitchyardCore
import SwitchyardQR

extension LinkService {
    /// Pixel sizes a PNG may be asked for (`?size=`); the image is the largest whole number of
    /// pixels per module that fits, but never fewer than `QRCode.minimumScale` (a code drawn at
    /// one pixel per module does not scan), so a small size can give a slightly larger image.
    package static let qrSizes = 64...2048
    /// The PNG size when none is asked for.
    package static let defaultQRSize = 512
}

/// `/i/{code}/qr.svg` and `/i/{code}/qr.png`: the QR code of a stored link's page.
struct QRController: Sendable {
    let qr: QRImages
    let hot: HotLinks
    let store: LinkStore
    let input: LinkInput
    let answers: LinkAnswers
    let addresses: ClientAddresses
    let now: @Sendable () -> Date
    /// The domains: a code is looked up on the domain the request's host names.
    let domains: LinkDomains

    func addRoutes(to router: Router<ServiceContext>) {
        router.get("/i/{code}/qr.svg") { request, context in try await image(request, context, png: false) }
        router.get("/i/{code}/qr.png") { request, context in try await image(request, context, png: true) }
    }

    /// GET `/i/{code}/qr.svg` and `/i/{code}/qr.png?size=`: the QR code of the link's page URL
    /// (`publicURL/i/{code}`), in its domain's `qr` style with the query's `foreground`,
    /// `background`, `margin`, `errorCorrection` and `logo=none` over it. Never counts a click or
    /// uses a use; a missing link is 404, an ended one 410 (a protected one is drawn whatever its
    /// state, as its form tells nothing of it). Drawn on ``QRImages``' own thread,
    /// kept once drawn, and limited per client address (429) and in how many may wait (503
    /// `qr-busy`).
    func image(_ request: Request, _ context: ServiceContext, png: Bool) async throws -> Response {
        // Like the page: a code that cannot exist is simply not found.
        let raw = context.parameters.get("code") ?? ""
        let shown = raw.contains("%") ? raw.removingPercentEncoding ?? raw : raw
        // ``DomainGuard`` has answered a host no domain names.
        guard input.isStoredCode(shown), let domain = domains.hosts.domain(authority: request.head.authority) else {
            throw APIError(.notFound, .notFound, "no link with code \(JSONWriter.quote(shown))", field: "code")
        }
        let code = domains.key(code: shown, domain: domain)
        for name in ["size"] + QRStyle.optionNames where request.uri.queryParameters.getAll(name).count > 1 {
            throw APIError.badRequest(name == "size" ? .invalidSize : .invalidQRStyle, "\(name) is given more than once", field: name)
        }
        if !png, request.uri.queryParameters["size"] != nil {
            throw APIError.badRequest(.invalidSize, "size applies to PNG only; an SVG scales to any size", field: "size")
        }
        var size = LinkService.defaultQRSize
        if png, let s = request.uri.queryParameters["size"], !s.isEmpty {
            guard let n = Int(s), LinkService.qrSizes.contains(n) else {
                throw APIError.badRequest(.invalidSize, "size must be a whole number of pixels from \(LinkService.qrSizes.lowerBound) to \(LinkService.qrSizes.upperBound)", field: "size")
            }
            size = n
        }
        var options: [String: String] = [:]
        for name in QRStyle.optionNames {
            if let value = request.uri.queryParameters[Substring(name)], !value.isEmpty { options[name] = String(value) }
        }
        let style: QRStyle
        do { style = try domains.configurations[domain].qrStyle.overriding(options) } catch {
            throw APIError.badRequest(.invalidQRStyle, error.message, field: error.option)
        }
        guard let link = try await hot.link(code) else {
            throw APIError(.notFound, .notFound, "no link with code \(shown)", field: "code")
        }
        // A use-limited link's count is the database's (the cache may be seconds behind it).
        // A protected link's code is drawn whatever its state: its page tells nothing, not even
        // that it has ended, before the password, and neither does this.
        var current = link
        if link.maxUses != nil, link.passwordHash == nil { current.clicks = try await store.link(code: code)?.clicks ?? .max }
        switch link.passwordHash == nil ? LinkEnd(current, at: now()) : nil {
        case .expired?: throw APIError(.gone, .expired, "the link with code \(shown) has expired")
        case .usedUp(let max)?: throw APIError(.gone, .usedUp, "the link with code \(shown) has been used \(max) times, its limit")
        case nil: break
        }
        let key = QRImages.key(code: code, size: png ? size : 0, png: png, style: style)
        if let bytes = qr.cached(key) { return Self.qrResponse(bytes, png: png) }
        // Only drawing costs: a client that has had its share waits; a full queue is busy.
        // By network (IPv4 /24, IPv6 /48), so rotating addresses inside one buys nothing.
        let network = VisitBudget.network(addresses.address(request, context))
        if let wait = qr.perAddress.take(network) { throw RequestLimits.tooMany(wait, "network \(network) (QR images)") }
        let url = answers.pageURL(of: link)
        switch try await qr.draw(url, png: png, pixels: size, style: style) {
        case .success(let bytes):
            qr.keep(key, bytes)
            return Self.qrResponse(bytes, png: png)
        case .failure(let error):
            throw APIError(.internalServerError, .qrFailed, "the QR code could not be drawn: \(error)")
        }
    }

    static func qrResponse(_ bytes: [UInt8], png: Bool) -> Response {
        var headers: HTTPFields = [
            .contentType: png ? "image/png" : "image/svg+xml",
            .cacheControl: "public, max-age=300",
            .contentLength: String(bytes.count),
            LandingPages.contentTypeOptions: "nosniff",
        ]
        // An SVG opened on its own is a document: it may show its embedded logo, nothing else.
        if !png { headers[HTTPField.Name("Content-Security-Policy")!] = "default-src 'none'; img-src data:; style-src 'unsafe-inline'" }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
