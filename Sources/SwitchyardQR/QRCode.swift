import SwitchyardCore
import CQRCode
import Foundation

/// A QR code for a piece of text, encoded by libqrencode (byte mode, at an error correction
/// level: M by default, about 15% of the symbol may be lost or covered and it still reads), drawn
/// as SVG or PNG in a ``QRStyle``.
public struct QRCode: Sendable {
    /// Modules per side (21 for version 1, 4 more per version).
    public let width: Int
    /// Row by row, `true` for a dark module.
    public let modules: [Bool]
    /// The level it was encoded at.
    public let level: QRStyle.Level
    /// Light modules around the symbol on each side in the plain style; the standard asks for four.
    public static let quietZone = 4

    /// Why a text could not be drawn: `qr-too-long` (more than a QR code holds) or `qr-failed`.
    public struct EncodingError: SwitchyardError {
        /// `qr-too-long` or `qr-failed`.
        public var code: ErrorCode
        /// What went wrong, for people.
        public let message: String
        /// The message alone, without the code.
        public var description: String { message }
    }

    /// Encodes `text` (UTF-8 bytes) at `level`. Throws when it does not fit in a QR code (about
    /// 2,300 bytes at level M, 1,270 at H) or libqrencode fails.
    public init(encoding text: String, level: QRStyle.Level = .m) throws(EncodingError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw EncodingError(code: .qrFailed, message: "nothing to encode") }
        let code = bytes.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, level.qrencode)
        }
        guard let code else {
            if errno == ERANGE { throw EncodingError(code: .qrTooLong, message: "\(bytes.count) bytes are too many for a QR code at error correction level \(level.rawValue)") }
            throw EncodingError(code: .qrFailed, message: String(cString: strerror(errno)))
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        self.width = width
        self.level = level
        // Bit 0 of each byte is the module's colour; the others are libqrencode's bookkeeping.
        modules = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module at column `x`, row `y` is dark.
    public func isDark(x: Int, y: Int) -> Bool { modules[y * width + x] }

    /// The square of modules a logo covers, centred: about a fifth of the symbol's side, odd so it
    /// sits in the middle (a symbol's side is odd too). Its modules are drawn light.
    public var logoModules: (start: Int, side: Int) {
        var side = max(3, Int((Double(width) * 0.2).rounded()))
        if side % 2 == 0 { side += 1 }
        return ((width - side) / 2, side)
    }

    /// Whether the module at (`x`, `y`) is drawn dark in `style`: dark, and not under its logo.
    func drawsDark(x: Int, y: Int, style: QRStyle) -> Bool {
        guard isDark(x: x, y: y) else { return false }
        guard style.logo != nil else { return true }
        let box = logoModules
        return !(box.start..<box.start + box.side).contains(x) || !(box.start..<box.start + box.side).contains(y)
    }

    /// An SVG document: one path of dark runs on a background square, one unit per module, with
    /// the style's margin, and the logo (its own file, as a `data:` URL) over the centre. Scales
    /// to any size without blur (`shape-rendering="crispEdges"`).
    public func svg(style: QRStyle = QRStyle()) -> String {
        let margin = style.margin
        let side = width + 2 * margin
        var path = ""
        path.reserveCapacity(width * width)
        for y in 0..<width {
            var x = 0
            while x < width {
                guard drawsDark(x: x, y: y, style: style) else { x += 1; continue }
                let start = x
                while x < width, drawsDark(x: x, y: y, style: style) { x += 1 }
                path += "M\(start + margin) \(y + margin)h\(x - start)v1h-\(x - start)z"
            }
        }
        var image = ""
        if let logo = style.logo {
            // Half a module of background between the logo and the modules around it.
            let box = logoModules
            let at = Double(box.start + margin) + 0.5
            let size = Double(box.side) - 1
            image = #"<image x="\#(at)" y="\#(at)" width="\#(size)" height="\#(size)" preserveAspectRatio="xMidYMid meet" href="\#(logo.dataURL)"/>"#
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(side * 8)" height="\(side * 8)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="\(style.background)"/><path fill="\(style.foreground)" d="\(path)"/>\(image)</svg>

            """
    }

    /// Pixels per side of a PNG drawn at `scale` pixels per module with `margin` modules around.
    public func pixels(scale: Int, margin: Int = quietZone) -> Int { (width + 2 * margin) * scale }

    /// The fewest pixels per module a fitted image gets: at one pixel per module, scanners
    /// (zbar among them) fail to read a code.
    public static let minimumScale = 2

    /// The largest scale whose image (with `margin` modules around) fits in `size` pixels, but at
    /// least ``minimumScale`` (so a small size can give a slightly larger image).
    public func scale(fitting size: Int, margin: Int = quietZone) -> Int { max(Self.minimumScale, size / (width + 2 * margin)) }

    /// A PNG, `scale` pixels per module, with the style's margin, colours and logo: grey-scale
    /// for black on white without a logo, else RGB.
    public func png(scale: Int, style: QRStyle = QRStyle()) throws(EncodingError) -> [UInt8] {
        guard (1...256).contains(scale) else { throw EncodingError(code: .qrFailed, message: "scale \(scale) is outside 1–256 pixels per module") }
        let margin = style.margin
        let side = pixels(scale: scale, margin: margin)
        let grey = style.logo == nil && style.foreground == .black && style.background == .white
        let channels = grey ? 1 : 3
        let background = grey ? [255] : [style.background.red, style.background.green, style.background.blue]
        let foreground = grey ? [0] : [style.foreground.red, style.foreground.green, style.foreground.blue]
        // Each row of modules is drawn once and repeated `scale` times.
        let blank = (0..<side).flatMap { _ in background }
        var raster: [UInt8] = []
        raster.reserveCapacity(side * side * channels)
        for _ in 0..<margin * scale { raster += blank }
        for y in 0..<width {
            var row = blank
            for x in 0..<width where drawsDark(x: x, y: y, style: style) {
                let start = (x + margin) * scale * channels
                for i in 0..<scale * channels { row[start + i] = foreground[i % channels] }
            }
            for _ in 0..<scale { raster += row }
        }
        for _ in 0..<margin * scale { raster += blank }
        if let logo = style.logo {
            let box = logoModules
            // Half a module of background between the logo and the modules around it.
            let inset = scale / 2
            let origin = (box.start + margin) * scale + inset
            let room = box.side * scale - 2 * inset
            Self.composite(logo, into: &raster, side: side, x: origin, y: origin, room: room, background: style.background)
        }
        return try Self.writePNG(raster, width: side, height: side, channels: channels)
    }

    /// A PNG of `raster`, row by row with `channels` bytes per pixel: 1 (grey), 3 (RGB) or 4 (RGBA,
    /// not premultiplied).
    package static func writePNG(_ raster: [UInt8], width: Int, height: Int, channels: Int) throws(EncodingError) -> [UInt8] {
        precondition([1, 3, 4].contains(channels) && raster.count == width * height * channels, "a raster of width × height × channels bytes")
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(width)
        image.height = UInt32(height)
        image.format = channels == 1 ? UInt32(PNG_FORMAT_GRAY) : channels == 3 ? UInt32(PNG_FORMAT_RGB) : switchyard_png_format_rgba
        var length: png_alloc_size_t = 0
        // First call: the size it needs; second: the bytes.
        guard raster.withUnsafeBytes({ png_image_write_to_memory(&image, nil, &length, 0, $0.baseAddress, 0, nil) }) != 0 else {
            throw EncodingError(code: .qrFailed, message: "libpng: " + Self.message(&image))
        }
        var output = [UInt8](repeating: 0, count: Int(length))
        let written = output.withUnsafeMutableBytes { out in
            raster.withUnsafeBytes { png_image_write_to_memory(&image, out.baseAddress, &length, 0, $0.baseAddress, 0, nil) }
        }
        png_image_free(&image)
        guard written != 0 else { throw EncodingError(code: .qrFailed, message: "libpng: " + Self.message(&image)) }
        return Array(output.prefix(Int(length)))
    }

    /// Draws `logo` over the RGB `raster` (`side` pixels wide), fitted into the square of `room`
    /// pixels at (`x`, `y`) with its aspect ratio kept and centred. Each pixel drawn is the mean of
    /// the logo's pixels it covers (alpha-weighted), blended over `background`.
    static func composite(_ logo: QRLogo, into raster: inout [UInt8], side: Int, x: Int, y: Int, room: Int, background: QRStyle.Colour) {
        guard room > 0 else { return }
        let fit = min(Double(room) / Double(logo.width), Double(room) / Double(logo.height))
        let w = max(1, Int((Double(logo.width) * fit).rounded()))
        let h = max(1, Int((Double(logo.height) * fit).rounded()))
        let left = x + (room - w) / 2, top = y + (room - h) / 2
        let bg = [Double(background.red), Double(background.green), Double(background.blue)]
        for ty in 0..<h {
            let sy0 = ty * logo.height / h, sy1 = max(sy0 + 1, (ty + 1) * logo.height / h)
            for tx in 0..<w {
                let sx0 = tx * logo.width / w, sx1 = max(sx0 + 1, (tx + 1) * logo.width / w)
                var sum = [0.0, 0.0, 0.0], alpha = 0.0
                for sy in sy0..<sy1 {
                    for sx in sx0..<sx1 {
                        let o = (sy * logo.width + sx) * 4
                        let a = Double(logo.rgba[o + 3])
                        alpha += a
                        for c in 0..<3 { sum[c] += Double(logo.rgba[o + c]) * a }
                    }
                }
                let count = Double((sy1 - sy0) * (sx1 - sx0))
                let coverage = alpha / count / 255
                let o = ((top + ty) * side + left + tx) * 3
                for c in 0..<3 {
                    let colour = alpha > 0 ? sum[c] / alpha : 0
                    raster[o + c] = UInt8((colour * coverage + bg[c] * (1 - coverage)).rounded())
                }
            }
        }
    }

    private static func message(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

extension ErrorCode {
    /// The text is longer than a QR code holds.
    public static let qrTooLong = ErrorCode("qr-too-long")
    /// The QR code or its image could not be made.
    public static let qrFailed = ErrorCode("qr-failed")
}
