import Foundation
import SwitchyardCore
import SwitchyardQR

/// The `qr` section of a domain: how its links' QR codes are drawn (`/i/{code}/qr.svg`,
/// `/i/{code}/qr.png`, the dashboard and `switchyard link qr`).
///
/// ```yaml
/// qr:
///   foreground: "#1a237e"   # the dark modules (default #000000)
///   background: "#ffffff"   # default; at least 3:1 contrast, lighter than the foreground
///   margin: 4               # modules of background around the code, 1–16 (default 4)
///   errorCorrection: M      # L, M (default), Q or H; a logo forces H
///   logo: brand/logo.svg    # PNG or SVG, at most 256 KiB, relative to this file
/// ```
extension ServiceConfiguration {
    /// The names `qr` takes.
    static let qrShape: DocumentShape = .object([
        "foreground": .string, "background": .string, "margin": .int, "errorCorrection": .string, "logo": .string,
    ])

    /// Reads a `qr` section into a style, with the logo file (relative to `directory`) read and
    /// decoded now, so a bad file stops the configuration rather than a request.
    static func qrStyle(_ section: JSONValue?, relativeTo directory: String?) throws(ConfigurationError) -> QRStyle {
        var style = QRStyle()
        guard let section else { return style }
        for (key, keyPath) in [("foreground", \QRStyle.foreground), ("background", \QRStyle.background)] {
            guard let text = section[key]?.stringValue else { continue }
            guard let colour = QRStyle.Colour(text) else {
                throw ConfigurationError("qr.\(key): \(JSONWriter.quote(text)) is not a colour; write it #rrggbb (or #rgb)")
            }
            style[keyPath: keyPath] = colour
        }
        if case .number(let margin, _)? = section["margin"] {
            guard QRStyle.margins.contains(Int(margin)) else {
                throw ConfigurationError("qr.margin: \(Int(margin)) is outside \(QRStyle.margins.lowerBound)–\(QRStyle.margins.upperBound) modules (the standard asks for 4)")
            }
            style.margin = Int(margin)
        }
        let levelText = section["errorCorrection"]?.stringValue
        if let text = levelText {
            guard let level = QRStyle.Level(name: text) else {
                throw ConfigurationError("qr.errorCorrection: \(JSONWriter.quote(text)) is not a level; write L, M, Q or H")
            }
            style.level = level
        }
        if let path = section["logo"]?.stringValue {
            let file = Self.file(path, relativeTo: directory)
            let read: (bytes: [UInt8], complete: Bool)
            do { read = try DurableFile.read(file, upTo: QRLogo.maximumBytes) } catch {
                throw ConfigurationError("qr.logo: \(error.message)")
            }
            guard read.complete else {
                throw ConfigurationError("qr.logo: \(file): larger than \(QRLogo.maximumBytes) bytes (256 KiB), the most a logo may have")
            }
            let bytes = read.bytes
            do { style.logo = try QRLogo(data: bytes) } catch {
                throw ConfigurationError("qr.logo: \(file): \(error.message)")
            }
            if let text = levelText, style.level != .h {
                throw ConfigurationError("qr.errorCorrection: \(text) with a logo; a code with a logo is drawn at level H, since the logo hides part of it (remove errorCorrection, or write H)")
            }
        }
        if let problem = style.problem {
            throw ConfigurationError("qr: \(problem)")
        }
        return style
    }
}
