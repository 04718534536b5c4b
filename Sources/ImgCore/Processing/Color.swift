import Foundation

/// An sRGB colour with alpha, each channel 0...255.
public struct Color: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    /// White, the default background.
    public static let white = Color(red: 255, green: 255, blue: 255)

    private static let names: [String: UInt32] = [
        "black": 0x000000, "white": 0xFFFFFF, "red": 0xFF0000, "lime": 0x00FF00, "green": 0x008000,
        "blue": 0x0000FF, "yellow": 0xFFFF00, "cyan": 0x00FFFF, "aqua": 0x00FFFF, "magenta": 0xFF00FF,
        "fuchsia": 0xFF00FF, "gray": 0x808080, "grey": 0x808080, "silver": 0xC0C0C0, "maroon": 0x800000,
        "olive": 0x808000, "navy": 0x000080, "purple": 0x800080, "teal": 0x008080, "orange": 0xFFA500,
        "pink": 0xFFC0CB, "brown": 0xA52A2A, "gold": 0xFFD700, "indigo": 0x4B0082, "violet": 0xEE82EE,
        "darkgray": 0xA9A9A9, "lightgray": 0xD3D3D3, "crimson": 0xDC143C, "coral": 0xFF7F50,
    ]

    /// Parses `#rgb`, `#rrggbb`, `#rrggbbaa` or a CSS colour name (`transparent` included).
    public init?(parsing text: String) {
        let lowered = text.lowercased()
        if lowered == "transparent" {
            self.init(red: 0, green: 0, blue: 0, alpha: 0)
            return
        }
        if let rgb = Color.names[lowered] {
            self.init(red: UInt8(rgb >> 16 & 0xFF), green: UInt8(rgb >> 8 & 0xFF), blue: UInt8(rgb & 0xFF))
            return
        }
        guard lowered.hasPrefix("#") else { return nil }
        var hex = String(lowered.dropFirst())
        guard hex.allSatisfy(\.isHexDigit) else { return nil }
        if hex.count == 3 { hex = hex.map { "\($0)\($0)" }.joined() }
        if hex.count == 6 { hex += "ff" }
        guard hex.count == 8, let value = UInt32(hex, radix: 16) else { return nil }
        self.init(red: UInt8(value >> 24), green: UInt8(value >> 16 & 0xFF), blue: UInt8(value >> 8 & 0xFF),
                  alpha: UInt8(value & 0xFF))
    }

    /// `#rrggbb`, or `#rrggbbaa` when not opaque.
    public var description: String {
        var text: [UInt8] = [UInt8(ascii: "#")]
        for channel in alpha == 255 ? [red, green, blue] : [red, green, blue, alpha] {
            ASCIIBytes.appendHex(channel, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
