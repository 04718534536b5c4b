import Foundation

/// The one-line messages for refused inputs, in the user's terms.
enum RefusalMessage {
    /// Whole megapixels (rounded, up to Int64.max) from 10 MP, one decimal from 1 MP, else a pixel count.
    static func megapixels(_ pixels: Int64) -> String {
        if pixels >= 10_000_000 { return "\(pixels / 1_000_000 + (pixels % 1_000_000 >= 500_000 ? 1 : 0)) MP" }
        if pixels >= 1_000_000 { return String(format: "%.1f MP", Double(pixels) / 1e6) }
        return "\(pixels) pixels"
    }

    /// `not an image (text/html, 45 bytes: '<html><body>Sign in…')`: the kind of bytes, sniffed, and how they start
    /// when `quotingItsStart` (a server's answer); a local file's kind and size only (`not an image (text/plain, 12
    /// bytes)`): its contents are not the server's, and stderr, `--json` and a manifest are no place for them.
    static func notAnImage(_ input: VipsInput, quotingItsStart: Bool) -> String {
        let head = input.head
        let text = String(decoding: head, as: UTF8.self)
        let isText = !head.contains(0) && !text.contains("\u{FFFD}")
        guard isText, !text.isEmpty else { return "not an image (\(input.count) bytes of binary data)" }
        let lower = text.lowercased().drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" }
        let type = if lower.hasPrefix("<!doctype html") || lower.hasPrefix("<html") || lower.contains("<body") || lower.contains("<head") {
            "text/html"
        } else if lower.hasPrefix("<?xml") {
            "text/xml"
        } else if lower.hasPrefix("{") || lower.hasPrefix("[") {
            "application/json"
        } else {
            "text/plain"
        }
        guard quotingItsStart else { return "not an image (\(type), \(input.count) bytes)" }
        let shown = 20
        let preview = String(text.prefix(shown)).escapingControlCharacters + (input.count > shown ? "…" : "")
        return "not an image (\(type), \(input.count) bytes: '\(preview)')"
    }
}

/// The sizes an AVIF or HEIC file declares in its `ispe` boxes (image spatial extents), read from the first
/// 1 MiB without libheif.
enum HEIFSize {
    /// The largest declared size (a grid's, not its tiles'), or nil when there is none.
    static func largest(_ bytes: ByteReader) -> (width: Int, height: Int)? {
        let length = min(bytes.count, 1 << 20)
        guard length >= 20, let data = bytes.bytes(at: 0, length: min(length, 1 << 20)) else { return nil }
        var best: (width: Int, height: Int)?
        var index = 4
        let pattern: [UInt8] = Array("ispe".utf8)
        while index + 16 <= data.count {
            if data[index] == pattern[0], data[index + 1] == pattern[1], data[index + 2] == pattern[2], data[index + 3] == pattern[3] {
                let width = Int(data[index + 8]) << 24 | Int(data[index + 9]) << 16 | Int(data[index + 10]) << 8 | Int(data[index + 11])
                let height = Int(data[index + 12]) << 24 | Int(data[index + 13]) << 16 | Int(data[index + 14]) << 8 | Int(data[index + 15])
                if best.map({ $0.width.saturatingMultiplied(by: $0.height) < width.saturatingMultiplied(by: height) }) ?? true {
                    best = (width, height)
                }
                index += 16
            } else {
                index += 1
            }
        }
        return best
    }
}
