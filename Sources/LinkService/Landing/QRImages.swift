import SwitchyardCore
import Foundation
import NIOCore
import NIOPosix
import SwitchyardQR

/// Where QR images are drawn and kept. Drawing a large PNG takes tens of milliseconds of CPU, so
/// it runs on one thread of its own (never the storage threads or an event loop), at most
/// `waiting` requests queue for it (more are turned away at once), each client network (IPv4 /24,
/// IPv6 /48) may have `perAddress` images drawn for it, and drawn images are kept by link, size and format, so a
/// repeated request costs a lookup.
final class QRImages: Sendable {
    /// The drawing thread.
    private let pool: NIOThreadPool
    /// Requests drawing or waiting to draw; past the limit a request gets 503 `qr-busy`.
    let admission: AdmissionGate
    /// Images drawn per client network (cached images are free).
    let perAddress: RateLimiter
    private let cache = Locked<(images: [String: [UInt8]], bytes: Int)>((images: [:], bytes: 0))
    /// Bytes of images kept; when a new one would not fit, the oldest half is dropped.
    let maximumBytes: Int

    init(waiting: Int = 8, perAddress: ServiceConfiguration.RateLimit = .init(perMinute: 30, burst: 10), maximumBytes: Int = 32 << 20,
         clock: @escaping @Sendable () -> Double) {
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        admission = AdmissionGate(limit: waiting)
        self.perAddress = RateLimiter(perAddress, now: clock)
        self.maximumBytes = maximumBytes
    }

    deinit { pool.shutdownGracefully { _ in } }

    static func key(code: String, size: Int, png: Bool) -> String { "\(code) \(png ? "png" : "svg") \(size)" }

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

    /// Draws the QR code of `url` on the drawing thread: a PNG `pixels` wide, or SVG.
    func draw(_ url: String, png: Bool, pixels: Int) async throws -> Result<[UInt8], QRCode.EncodingError> {
        try await pool.runIfActive { () -> Result<[UInt8], QRCode.EncodingError> in
            Result { () throws(QRCode.EncodingError) -> [UInt8] in
                let qr = try QRCode(encoding: url)
                return png ? try qr.png(scale: qr.scale(fitting: pixels)) : Array(qr.svg().utf8)
            }
        }
    }
}
