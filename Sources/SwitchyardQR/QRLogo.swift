import SwitchyardCore
import CQRCode
import CSVG
import Foundation

/// An operator's logo for the centre of QR codes: a PNG or SVG file, checked and decoded once.
/// SVG codes embed the file itself; PNG codes draw its pixels (an SVG drawn by librsvg into
/// ``svgPixels`` square pixels, without loading anything it refers to).
public struct QRLogo: Sendable, Hashable {
    /// What the file is.
    public enum Format: String, Sendable {
        case png, svg
        /// The file's media type, for a `data:` URL.
        var mediaType: String { self == .png ? "image/png" : "image/svg+xml" }
    }

    /// PNG or SVG.
    public let format: Format
    /// The file's bytes, as given.
    public let data: [UInt8]
    /// The picture's size in pixels (an SVG: the square it was drawn into).
    public let width: Int, height: Int
    /// Row by row, red, green, blue and alpha (not premultiplied).
    let rgba: [UInt8]
    /// Names the file's content, for keys of drawn images.
    public let key: String

    /// The largest logo file, in bytes.
    public static let maximumBytes = 256 << 10
    /// The largest PNG logo, in pixels per side.
    public static let maximumSide = 1024
    /// The square an SVG logo is drawn into for PNG codes, in pixels per side.
    public static let svgPixels = 512

    /// Reads a logo from a PNG or SVG file's bytes; refused (`qr-logo-invalid`) with the reason
    /// when it is neither, larger than ``maximumBytes`` or ``maximumSide``, or does not decode.
    public init(data: [UInt8]) throws(QRCode.EncodingError) {
        guard !data.isEmpty else { throw Self.refusal("the file is empty") }
        guard data.count <= Self.maximumBytes else {
            throw Self.refusal("the file has \(data.count) bytes; a logo may have at most \(Self.maximumBytes) (256 KiB)")
        }
        self.data = data
        key = Self.digest(data)
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            format = .png
            (width, height, rgba) = try Raster.decodePNG(data, maximumSide: Self.maximumSide)
        } else {
            format = .svg
            (width, height, rgba) = (Self.svgPixels, Self.svgPixels, try Raster.drawSVG(data, side: Self.svgPixels))
        }
        // Alpha is every fourth byte: a logo that covers no pixel would hide modules for nothing.
        guard stride(from: 3, to: rgba.count, by: 4).contains(where: { rgba[$0] != 0 }) else {
            throw Self.refusal(format == .svg ? "the SVG draws nothing (give it a width and height or a viewBox, and something to see)"
                                              : "the PNG is wholly transparent: it would hide the modules under it and show nothing")
        }
    }

    public static func == (a: QRLogo, b: QRLogo) -> Bool { a.data == b.data }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    /// A `data:` URL of the file, for an SVG code's `<image>`.
    var dataURL: String { "data:\(format.mediaType);base64," + Data(data).base64EncodedString() }

    static func refusal(_ message: String) -> QRCode.EncodingError { QRCode.EncodingError(code: .qrLogoInvalid, message: message) }

    /// FNV-1a, 64 bits, in hex: enough to tell logos apart in one process's image cache.
    private static func digest(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}

/// Pictures read into pixels: PNG by libpng, SVG drawn by librsvg.
package enum Raster {
    static func refusal(_ message: String) -> QRCode.EncodingError { QRLogo.refusal(message) }

    /// Decodes a PNG into straight RGBA; refused when it does not decode or is wider or taller
    /// than `maximumSide` (checked before its pixels are decoded: a small file may claim a huge image).
    package static func decodePNG(_ data: [UInt8], maximumSide: Int) throws(QRCode.EncodingError) -> (width: Int, height: Int, rgba: [UInt8]) {
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        guard data.withUnsafeBytes({ png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }) != 0 else {
            throw refusal("the PNG does not decode (libpng: \(message(&image)))")
        }
        let (width, height) = (Int(image.width), Int(image.height))
        guard width <= maximumSide, height <= maximumSide else {
            throw refusal("the PNG is \(width)×\(height) pixels; a logo may be at most \(maximumSide)×\(maximumSide)")
        }
        image.format = switchyard_png_format_rgba
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        guard pixels.withUnsafeMutableBytes({ png_image_finish_read(&image, nil, $0.baseAddress, 0, nil) }) != 0 else {
            throw refusal("the PNG does not decode (libpng: \(message(&image)))")
        }
        return (width, height, pixels)
    }

    private static func message(_ image: inout png_image) -> String {
        withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    /// Draws an SVG with librsvg into a transparent square of `side` pixels, fitted as its
    /// `preserveAspectRatio` says: straight RGBA. Nothing outside the file is loaded (no base
    /// URL is set, so librsvg follows only `data:` references).
    package static func drawSVG(_ data: [UInt8], side: Int) throws(QRCode.EncodingError) -> [UInt8] {
        var error: UnsafeMutablePointer<GError>?
        func failure(_ what: String) -> QRCode.EncodingError {
            let detail = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            let text = String(decoding: data.prefix(256), as: UTF8.self)
            if !text.contains("<svg") && !text.contains("<?xml") {
                return refusal("the file is neither a PNG nor an SVG")
            }
            return refusal("the SVG \(what) (librsvg: \(detail))")
        }
        guard let handle = data.withUnsafeBufferPointer({ rsvg_handle_new_from_data($0.baseAddress, $0.count, &error) }) else {
            throw failure("does not parse")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(handle)) }
        guard let surface = cairo_image_surface_create(SWITCHYARD_CAIRO_FORMAT_ARGB32, Int32(side), Int32(side)) else { throw refusal("cairo could not make a surface") }
        defer { cairo_surface_destroy(surface) }
        guard let cr = cairo_create(surface) else { throw refusal("cairo could not draw") }
        defer { cairo_destroy(cr) }
        var viewport = RsvgRectangle(x: 0, y: 0, width: Double(side), height: Double(side))
        guard rsvg_handle_render_document(handle, cr, &viewport, &error) != 0 else { throw failure("could not be drawn") }
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let base = cairo_image_surface_get_data(surface) else { throw refusal("cairo gave no pixels") }
        // Cairo's ARGB32: one native-endian 32-bit word per pixel, alpha premultiplied.
        var pixels = [UInt8](repeating: 0, count: side * side * 4)
        for y in 0..<side {
            let row = UnsafeRawPointer(base + y * stride)
            for x in 0..<side {
                let word = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                let a = Int(word >> 24)
                guard a > 0 else { continue }
                let o = (y * side + x) * 4
                pixels[o] = UInt8(min(255, Int((word >> 16) & 0xFF) * 255 / a))
                pixels[o + 1] = UInt8(min(255, Int((word >> 8) & 0xFF) * 255 / a))
                pixels[o + 2] = UInt8(min(255, Int(word & 0xFF) * 255 / a))
                pixels[o + 3] = UInt8(a)
            }
        }
        return pixels
    }
}

extension ErrorCode {
    /// A QR logo file is not a PNG or SVG that can be used.
    public static let qrLogoInvalid = ErrorCode("qr-logo-invalid")
}
