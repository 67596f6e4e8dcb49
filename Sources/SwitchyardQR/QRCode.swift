import SwitchyardCore
import CQRCode
import Foundation

/// A QR code for a piece of text, encoded by libqrencode (byte mode, error correction level M:
/// about 15% of the symbol may be lost or covered and it still reads), drawn as SVG or PNG.
public struct QRCode: Sendable {
    /// Modules per side (21 for version 1, 4 more per version).
    public let width: Int
    /// Row by row, `true` for a dark module.
    public let modules: [Bool]
    /// Light modules around the symbol on each side; the standard asks for four.
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

    /// Encodes `text` (UTF-8 bytes). Throws when it does not fit in a QR code (about 2,300 bytes
    /// at level M) or libqrencode fails.
    public init(encoding text: String) throws(EncodingError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw EncodingError(code: .qrFailed, message: "nothing to encode") }
        let code = bytes.withUnsafeBufferPointer { buffer in
            QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, QR_ECLEVEL_M)
        }
        guard let code else {
            if errno == ERANGE { throw EncodingError(code: .qrTooLong, message: "\(bytes.count) bytes are too many for a QR code at error correction level M") }
            throw EncodingError(code: .qrFailed, message: String(cString: strerror(errno)))
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        self.width = width
        // Bit 0 of each byte is the module's colour; the others are libqrencode's bookkeeping.
        modules = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
    }

    /// Whether the module at column `x`, row `y` is dark.
    public func isDark(x: Int, y: Int) -> Bool { modules[y * width + x] }

    /// An SVG document: one path of dark runs on a white square, one unit per module, with the
    /// quiet zone. Scales to any size without blur (`shape-rendering="crispEdges"`).
    public func svg() -> String {
        let side = width + 2 * Self.quietZone
        var path = ""
        path.reserveCapacity(width * width)
        for y in 0..<width {
            var x = 0
            while x < width {
                guard isDark(x: x, y: y) else { x += 1; continue }
                let start = x
                while x < width, isDark(x: x, y: y) { x += 1 }
                path += "M\(start + Self.quietZone) \(y + Self.quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(side * 8)" height="\(side * 8)" shape-rendering="crispEdges">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path fill="#000" d="\(path)"/></svg>

            """
    }

    /// Pixels per side of a PNG drawn at `scale` pixels per module.
    public func pixels(scale: Int) -> Int { (width + 2 * Self.quietZone) * scale }

    /// The fewest pixels per module a fitted image gets: at one pixel per module, scanners
    /// (zbar among them) fail to read a code.
    public static let minimumScale = 2

    /// The largest scale whose image fits in `size` pixels, but at least ``minimumScale`` (so a
    /// small size can give a slightly larger image).
    public func scale(fitting size: Int) -> Int { max(Self.minimumScale, size / (width + 2 * Self.quietZone)) }

    /// A grey-scale PNG, `scale` pixels per module, with the quiet zone.
    public func png(scale: Int) throws(EncodingError) -> [UInt8] {
        guard (1...256).contains(scale) else { throw EncodingError(code: .qrFailed, message: "scale \(scale) is outside 1–256 pixels per module") }
        let side = pixels(scale: scale)
        var raster = [UInt8](repeating: 255, count: side * side)
        for y in 0..<width {
            for x in 0..<width where isDark(x: x, y: y) {
                for dy in 0..<scale {
                    let row = (y + Self.quietZone) * scale + dy
                    let start = row * side + (x + Self.quietZone) * scale
                    for i in start..<start + scale { raster[i] = 0 }
                }
            }
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = UInt32(side)
        image.height = UInt32(side)
        image.format = UInt32(PNG_FORMAT_GRAY)
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
