import Foundation

/// The image formats imgfetch reads and writes, recognised from their first bytes.
public enum ImageFormat: String, CaseIterable, Sendable, Codable {
    case jpeg, png, gif, webp, avif, heic, tiff, jxl, svg, pdf

    /// Parses a `--format` value or a file extension (`jpg`, `jpeg`, `tif`, `heif`, …).
    public init?(name: String) {
        switch name.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png": self = .png
        case "gif": self = .gif
        case "webp": self = .webp
        case "avif": self = .avif
        case "heic", "heif": self = .heic
        case "tif", "tiff": self = .tiff
        case "jxl": self = .jxl
        default: return nil
        }
    }

    /// The formats that `--format` accepts.
    public static let writable: [ImageFormat] = [.jpeg, .png, .webp, .avif, .heic, .gif, .tiff, .jxl]

    /// The file extension written for this format.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .tiff: "tif"
        default: rawValue
        }
    }

    /// Whether the format can carry an alpha channel.
    public var supportsAlpha: Bool { self != .jpeg }

    /// Whether libvips 8.14 writes this format with several frames.
    public var supportsAnimation: Bool { self == .gif || self == .webp }

    /// Recognises a format from the magic bytes at the start of `data`; nil when none matches.
    public static func sniff(_ data: Data) -> ImageFormat? {
        let head = [UInt8](data.prefix(32))
        func starts(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20]) { return .jxl }
        if starts(Array("%PDF".utf8)) { return .pdf }
        if starts(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            return brand.hasPrefix("avi") ? .avif : .heic
        }
        let text = String(decoding: data.prefix(512), as: UTF8.self).lowercased()
        if text.contains("<svg") { return .svg }
        return nil
    }
}
