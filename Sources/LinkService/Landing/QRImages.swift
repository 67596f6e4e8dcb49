import LinkRequests
import LinkConfiguration
import LinkStorage
import SwitchyardCore
import Foundation
import SwitchyardQR

/// Where QR images are drawn and kept. Drawing a large PNG takes tens of milliseconds of CPU, so
/// it runs on one thread of its own (never the storage threads or an event loop), at most
/// `waiting` requests queue for it (more are turned away at once), each client network (IPv4 /24,
/// IPv6 /48) may have `perAddress` images drawn for it, and drawn images are kept by link, size,
/// format and style, so a repeated request costs a lookup.
final class QRImages: Sendable {
    /// The drawing thread; past `waiting` requests drawing or waiting, 503 `qr-busy`.
    let thread: WorkThread
    /// Images drawn per client network (cached images are free).
    let perAddress: RateLimiter
    private let cache = Locked<(images: [String: [UInt8]], bytes: Int)>((images: [:], bytes: 0))
    /// Bytes of images kept. When a new one would not fit, about half of the kept images are
    /// dropped (in dictionary order, not by age); an image over a quarter of this is not kept.
    let maximumBytes: Int

    init(waiting: Int = 8, perAddress: ServiceConfiguration.RateLimit = .init(perMinute: 30, burst: 10), maximumBytes: Int = 32 << 20,
         clock: @escaping @Sendable () -> Double) {
        thread = WorkThread(waiting: waiting, busy: .qrBusy, running: "QR images are already being drawn")
        self.perAddress = RateLimiter(perAddress, now: clock)
        self.maximumBytes = maximumBytes
    }

    static func key(code: String, size: Int, png: Bool, style: QRStyle) -> String { "\(code) \(png ? "png" : "svg") \(size) \(style.key)" }

    /// The image kept for `key`, if any.
    func cached(_ key: String) -> [UInt8]? { cache.withLock { $0.images[key] } }

    /// Keeps `bytes` under `key`.
    func keep(_ key: String, _ bytes: [UInt8]) {
        guard bytes.count <= maximumBytes / 4 else { return }
        cache.withLock { cache in
            if cache.bytes + bytes.count > maximumBytes {
                for (k, v) in cache.images.prefix(cache.images.count / 2 + 1) {
                    cache.images[k] = nil
                    cache.bytes -= v.count
                }
            }
            if let old = cache.images.updateValue(bytes, forKey: key) { cache.bytes -= old.count }
            cache.bytes += bytes.count
        }
    }

    /// Draws the QR code of `url` in `style` on the drawing thread: a PNG `pixels` wide, or SVG;
    /// 503 (``WorkThread/run(_:)``) when too many are drawing or waiting, or the service stops.
    func draw(_ url: String, png: Bool, pixels: Int, style: QRStyle) async throws -> Result<[UInt8], QRCode.EncodingError> {
        try await thread.run { () -> Result<[UInt8], QRCode.EncodingError> in
            Result { () throws(QRCode.EncodingError) -> [UInt8] in try Self.image(of: url, png: png, pixels: pixels, style: style).bytes }
        }
    }

    /// The QR code of `url` in `style` (by default error correction M, a quiet zone of four
    /// modules, black on white): a PNG of the largest whole number of pixels per module that fits
    /// `pixels`, or SVG; with the PNG's width.
    static func image(of url: String, png: Bool, pixels: Int, style: QRStyle) throws(QRCode.EncodingError) -> (bytes: [UInt8], width: Int?) {
        let qr = try QRCode(encoding: url, level: style.encodingLevel)
        guard png else { return (Array(qr.svg(style: style).utf8), nil) }
        let scale = qr.scale(fitting: pixels, margin: style.margin)
        return (try qr.png(scale: scale, style: style), qr.pixels(scale: scale, margin: style.margin))
    }
}

extension LinkService {

    /// The QR code of a stored link's page as the service draws it, in `style` (nil: its
    /// domain's `qr` style): SVG, or a PNG fitting `pixels`; with the page URL it encodes and the
    /// PNG's width.
    package static func qrImage(of link: StoredLink, configuration: ServiceConfiguration, png: Bool, pixels: Int = defaultQRSize, style: QRStyle? = nil)
        throws(QRCode.EncodingError) -> (bytes: [UInt8], url: String, width: Int?) {
        // The page URL the API gives the link: on its own domain, an imported one at its old path.
        let domains = LinkDomains(configuration)
        let url = LinkAnswers(configuration: configuration, input: domains.inputs[0], domains: domains).pageURL(of: link)
        let drawn = style ?? domains.configurations[domains.index(ofKey: link.code) ?? 0].qrStyle
        let image = try QRImages.image(of: url, png: png, pixels: pixels, style: drawn)
        return (image.bytes, url, image.width)
    }

    /// The QR code of the stored link `code` in `store`, as ``qrImage(of:configuration:png:pixels:style:)``
    /// draws it; refused, with the reason, for a link that is not there or whose page answers
    /// 410 (expired, used up), as `GET /i/{code}/qr.png` refuses it.
    /// `domain`: the name of the link's domain (nil: the first); `style`: how to draw it (nil: the
    /// domain's `qr` style).
    package static func qrImage(code: String, domain: String? = nil, in store: LinkStore, configuration: ServiceConfiguration, png: Bool,
                                pixels: Int = defaultQRSize, style: QRStyle? = nil,
                                now: Date = Date()) async throws(QRRefusal) -> (bytes: [UInt8], url: String, width: Int?) {
        let domains = LinkDomains(configuration)
        let index = try domainIndex(domain, in: domains)
        guard !code.contains("/") else { throw QRRefusal(.notFound, "no link with code '\(code)'") }
        let found: StoredLink?
        do { found = try await store.link(code: domains.key(code: code, domain: index)) } catch { throw QRRefusal(error.code, error.message) }
        guard let link = found else {
            let hint = domain == nil && domains.configurations.count > 1 ? " on \(domains.configurations[0].domainName) (give --domain for another domain's)" : ""
            throw QRRefusal(.notFound, "no link with code '\(code)'\(hint)")
        }
        switch LinkEnd(link, at: now) {
        case .expired(let expiry)?:
            throw QRRefusal(.expired, "the link '\(code)' expired at \(Timestamp.format(expiry)); an ended link gets no QR code")
        case .usedUp(let max)?:
            throw QRRefusal(.usedUp, "the link '\(code)' has been used \(max) time\(max == 1 ? "" : "s"), its limit; an ended link gets no QR code")
        case nil: break
        }
        do { return try qrImage(of: link, configuration: configuration, png: png, pixels: pixels, style: style) } catch { throw QRRefusal(error.code, "\(error)") }
    }

    /// The style `link qr` draws a code of `domain` (nil: the first) in: the domain's `qr` style,
    /// with `logo` in place of its own (when given) and `options` over it, as
    /// ``QRStyle/overriding(_:)`` reads them; refused naming the command's option at fault.
    package static func qrStyle(domain: String?, configuration: ServiceConfiguration, logo: QRLogo?, options: [String: String]) throws(QRRefusal) -> QRStyle {
        let domains = LinkDomains(configuration)
        var base = domains.configurations[try domainIndex(domain, in: domains)].qrStyle
        if let logo { base.logo = logo }
        do { return try base.overriding(options) } catch {
            let flag = "--" + error.option.replacingOccurrences(of: "errorCorrection", with: "error-correction")
            throw QRRefusal(.invalidQRStyle, "\(flag): " + error.message.replacingOccurrences(of: "logo=none", with: "--logo none"))
        }
    }

    private static func domainIndex(_ domain: String?, in domains: LinkDomains) throws(QRRefusal) -> Int {
        guard let index = domain.map({ domains.indexes[$0] }) ?? 0 else {
            throw QRRefusal(.invalidDomain, "no domain is named '\(domain ?? "")' (domains: \(domains.configurations.map(\.domainName).joined(separator: ", ")); give --config the configuration that lists it)")
        }
        return index
    }
}

extension LinkService {
    /// How `link qr` draws a code written to `output`: PNG or SVG (as `format` says, else as the
    /// file's extension does) and the PNG's size (`size`, else ``defaultQRSize``); or why the
    /// options cannot be used.
    package static func qrFormat(output: String, format: String?, size: Int?) -> Result<(png: Bool, pixels: Int), QRRefusal> {
        let ext = (output as NSString).pathExtension.lowercased()
        guard let chosen = format ?? (["svg", "png"].contains(ext) ? ext : nil) else { return .failure(QRRefusal(.invalidValue, "say --format svg or --format png (the file's extension names neither)")) }
        guard ["svg", "png"].contains(chosen) else { return .failure(QRRefusal(.invalidValue, "--format must be svg or png")) }
        if let size {
            guard chosen == "png" else { return .failure(QRRefusal(.invalidValue, "--size applies to PNG only; an SVG scales to any size")) }
            guard qrSizes.contains(size) else {
                return .failure(QRRefusal(.invalidValue, "--size must be from \(qrSizes.lowerBound) to \(qrSizes.upperBound) pixels"))
            }
        }
        return .success((chosen == "png", size ?? defaultQRSize))
    }
}

/// Why a stored link's QR code was not made.
package typealias QRRefusal = DomainError<QRRefusals>

/// The domain of ``QRRefusal``.
package enum QRRefusals: ErrorDomain {}
