import Foundation
import ImgCore

/// Checks a renderer's reply before the client takes it (and the pipeline caches it): the body's magic bytes are
/// the format the reply names (and the one asked for), and the size written in the body's header is the size the
/// reply names. Read from the header bytes here, without libvips (the point of the renderer is that the client
/// doesn't load it): JPEG (by ImgCore's `JPEGMarkers`), PNG (by `PNGChunks`), GIF, WebP and TIFF; for AVIF, HEIF
/// and JPEG XL only the format is checked.
enum ReplyCheck {
    /// What is wrong with the reply, worded for `-v` ("a PNG labelled jpeg"); nil when it holds.
    static func problem(_ body: Data, reply: RendererReply, job: WireJob) -> String? {
        guard let format = reply.format else { return "no format" }
        if let asked = job.encoding.format, asked != format { return "\(format.rawValue) where \(asked.rawValue) was asked for" }
        if let listed = job.encoding.candidateFormats, !listed.contains(format) {
            return "\(format.rawValue) where one of \(listed.map(\.rawValue).joined(separator: ", ")) was asked for"
        }
        guard let found = ImageFormat.sniff(body), found == format else {
            return "\(ImageFormat.sniff(body).map { "a \($0.rawValue) file" } ?? "bytes that are no image") labelled \(format.rawValue)"
        }
        guard reply.width > 0, reply.height > 0, reply.frames > 0 else { return "an image of no size" }
        guard let size = headerSize(body, format: format) else {
            return [.avif, .heic, .jxl].contains(format) ? nil : "a \(format.rawValue) file whose header can't be read"
        }
        if size != (reply.width, reply.height) {
            return "a \(size.width)x\(size.height) \(format.rawValue) labelled \(reply.width)x\(reply.height)"
        }
        return nil
    }

    /// The width and (frame) height the header of `data` gives; nil when it can't be read.
    static func headerSize(_ data: Data, format: ImageFormat) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data.prefix(1 << 16))
        func big(_ offset: Int, _ count: Int) -> Int? {
            guard offset >= 0, offset + count <= bytes.count else { return nil }
            return bytes[offset..<offset + count].reduce(0) { ($0 << 8) | Int($1) }
        }
        func little(_ offset: Int, _ count: Int) -> Int? {
            guard offset >= 0, offset + count <= bytes.count else { return nil }
            return bytes[offset..<offset + count].reversed().reduce(0) { ($0 << 8) | Int($1) }
        }
        switch format {
        case .png:
            return PNGChunks.header(in: data).map { ($0.width, $0.height) }
        case .gif:
            guard let width = little(6, 2), let height = little(8, 2) else { return nil }
            return (width, height)
        case .webp:
            let chunk = String(decoding: bytes.dropFirst(12).prefix(4), as: UTF8.self)
            switch chunk {
            case "VP8X":
                guard let width = little(24, 3), let height = little(27, 3) else { return nil }
                return (width + 1, height + 1)
            case "VP8L":
                guard bytes.count > 24, bytes[20] == 0x2F, let packed = little(21, 4) else { return nil }
                return ((packed & 0x3FFF) + 1, ((packed >> 14) & 0x3FFF) + 1)
            case "VP8 ":
                guard let width = little(26, 2), let height = little(28, 2) else { return nil }
                return (width & 0x3FFF, height & 0x3FFF)
            default:
                return nil
            }
        case .jpeg:
            return JPEGMarkers.frame(in: data).map { ($0.width, $0.height) }
        case .tiff:
            let read = bytes.first == 0x49 ? little : big
            guard var entry = read(4, 4), let count = read(entry, 2) else { return nil }
            var width: Int?, height: Int?
            entry += 2
            for _ in 0..<count {
                guard let tag = read(entry, 2), let type = read(entry + 2, 2) else { return nil }
                let value = type == 3 ? read(entry + 8, 2) : read(entry + 8, 4)
                if tag == 256 { width = value } else if tag == 257 { height = value }
                entry += 12
            }
            guard let width, let height else { return nil }
            return (width, height)
        default:
            return nil
        }
    }
}
