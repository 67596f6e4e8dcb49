import SwitchyardCore
import CQRCode
import Foundation

/// How a QR code is drawn: colours, quiet zone, error correction level and an optional logo.
/// ``problem`` says why a style would give a code that phones read badly; a style with a
/// problem is refused where it is given, never drawn.
public struct QRStyle: Sendable, Hashable {
    /// The dark modules' colour (default black).
    public var foreground: Colour = .black
    /// The background and light modules' colour (default white).
    public var background: Colour = .white
    /// Light modules around the symbol on each side (``margins``; the standard asks for four).
    public var margin = 4
    /// How much of the symbol may be lost and still read. A code with a logo is always drawn at
    /// ``Level/h`` (the logo hides part of it), whatever this says.
    public var level: Level = .m
    /// A picture drawn over the centre of the symbol, or nil.
    public var logo: QRLogo?

    /// The plain style: black on white, four modules of margin, level M, no logo.
    public init() {}

    /// The margins a style may have, in modules. Below one, the symbol touches whatever is
    /// around it and scanners lose its edge.
    public static let margins = 1...16
    /// The least contrast between foreground and background (WCAG's ratio, as for graphics).
    public static let minimumContrast = 3.0

    /// The level the code is encoded at: H with a logo, else ``level``.
    public var encodingLevel: Level { logo == nil ? level : .h }

    /// Why this style cannot be drawn, for people; nil when it can.
    public var problem: String? {
        guard Self.margins.contains(margin) else {
            return "margin \(margin) is outside \(Self.margins.lowerBound)–\(Self.margins.upperBound) modules (the standard asks for 4)"
        }
        let contrast = foreground.contrast(with: background)
        guard contrast >= Self.minimumContrast else {
            return "foreground \(foreground) on background \(background) has a contrast of \(Self.ratio(contrast)), below the \(Self.ratio(Self.minimumContrast)) a camera needs"
        }
        guard foreground.luminance < background.luminance else {
            return "foreground \(foreground) is lighter than background \(background); scanners (zbar, many phone cameras) look for dark modules on a light background, so an inverted code often does not read"
        }
        return nil
    }

    /// `4.48:1`: a contrast ratio as WCAG writes it, rounded down so a refused ratio never shows as
    /// the limit.
    static func ratio(_ value: Double) -> String {
        let hundredths = (value * 100).rounded(.down) / 100
        return String(format: "%.2f:1", hundredths).replacingOccurrences(of: ".00:", with: ":")
    }

    /// A short text naming everything that changes the drawing, for keys of drawn images.
    public var key: String {
        "\(foreground) \(background) \(margin) \(encodingLevel.rawValue) \(logo?.key ?? "-")"
    }

    /// An sRGB colour written `#rrggbb`.
    public struct Colour: Sendable, Hashable, CustomStringConvertible {
        /// Red, green and blue, 0–255.
        public let red: UInt8, green: UInt8, blue: UInt8

        /// Black, the default foreground.
        public static let black = Colour(red: 0, green: 0, blue: 0)
        /// White, the default background.
        public static let white = Colour(red: 255, green: 255, blue: 255)

        /// A colour from its components.
        public init(red: UInt8, green: UInt8, blue: UInt8) {
            self.red = red
            self.green = green
            self.blue = blue
        }

        /// A colour written `#rrggbb` or `#rgb` (the `#` may be left out, as in a query string);
        /// nil for anything else.
        public init?(_ text: String) {
            var hex = Substring(text)
            if hex.hasPrefix("#") { hex = hex.dropFirst() }
            guard hex.count == 3 || hex.count == 6, hex.utf8.allSatisfy(\.isHexDigit) else { return nil }
            let digits = hex.count == 3 ? hex.flatMap { [$0, $0] } : Array(hex)
            func component(_ i: Int) -> UInt8 { UInt8(String(digits[i...i + 1]), radix: 16)! }
            self.init(red: component(0), green: component(2), blue: component(4))
        }

        /// `#rrggbb`, lower case.
        public var description: String { String(format: "#%02x%02x%02x", red, green, blue) }

        /// WCAG 2's relative luminance: 0 for black, 1 for white.
        public var luminance: Double {
            func linear(_ c: UInt8) -> Double {
                let v = Double(c) / 255
                return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        }

        /// WCAG 2's contrast ratio with `other`, from 1 (the same) to 21 (black on white).
        public func contrast(with other: Colour) -> Double {
            let (a, b) = (luminance, other.luminance)
            return (max(a, b) + 0.05) / (min(a, b) + 0.05)
        }
    }

    /// An error correction level: about 7% (L), 15% (M), 25% (Q) or 30% (H) of the symbol may be
    /// lost or covered and it still reads; each costs more modules than the one before.
    public enum Level: String, Sendable, CaseIterable {
        case l = "L", m = "M", q = "Q", h = "H"

        /// `L`, `M`, `Q` or `H`, in either case; nil for anything else.
        public init?(name: String) { self.init(rawValue: name.uppercased()) }

        var qrencode: QRecLevel {
            switch self {
            case .l: QR_ECLEVEL_L
            case .m: QR_ECLEVEL_M
            case .q: QR_ECLEVEL_Q
            case .h: QR_ECLEVEL_H
            }
        }
    }
}

private extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20)
    }
}

extension QRStyle {
    /// Why options given for one drawing were refused: the option at fault and the reason.
    public struct OptionError: Error, Sendable {
        /// `foreground`, `background`, `margin`, `errorCorrection` or `logo`.
        public let option: String
        /// Why, for people.
        public let message: String
    }

    /// This style with the options one request or command gives: `foreground` and `background`
    /// colours, `margin` (modules), `errorCorrection` (L, M, Q, H) and `logo` (`none` draws without
    /// this style's logo). Refused, naming the option, when a value is not one, or when the result
    /// has a ``problem``.
    public func overriding(_ options: [String: String]) throws(OptionError) -> QRStyle {
        var style = self
        for key in ["foreground", "background"] {
            guard let text = options[key] else { continue }
            guard let colour = Colour(text) else {
                throw OptionError(option: key, message: "\(key) \"\(text)\" is not a colour; write it rrggbb or #rrggbb (#rgb works too)")
            }
            if key == "foreground" { style.foreground = colour } else { style.background = colour }
        }
        if let text = options["margin"] {
            guard let margin = Int(text), Self.margins.contains(margin) else {
                throw OptionError(option: "margin", message: "margin must be a whole number of modules from \(Self.margins.lowerBound) to \(Self.margins.upperBound)")
            }
            style.margin = margin
        }
        if let text = options["logo"] {
            guard text == "none" else {
                throw OptionError(option: "logo", message: "logo takes only none (draw without the configured logo); the logo itself is the configuration's qr.logo")
            }
            style.logo = nil
        }
        if let text = options["errorCorrection"] {
            guard let level = Level(name: text) else {
                throw OptionError(option: "errorCorrection", message: "errorCorrection must be L, M, Q or H")
            }
            if style.logo != nil, level != .h {
                throw OptionError(option: "errorCorrection", message: "a code with a logo is drawn at level H, since the logo hides part of it; ask for logo=none to draw it at level \(level.rawValue)")
            }
            style.level = level
        }
        if let problem = style.problem {
            throw OptionError(option: options["background"] != nil && options["foreground"] == nil ? "background" : "foreground", message: problem)
        }
        return style
    }

    /// The option names ``overriding(_:)`` reads.
    public static let optionNames = ["foreground", "background", "margin", "errorCorrection", "logo"]
}
