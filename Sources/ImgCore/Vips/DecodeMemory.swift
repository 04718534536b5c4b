import Foundation

/// How much memory decoding an input takes at once, estimated from its header before any pixel is decoded.
///
/// Most loaders stream: libvips asks for rows in order and the loader keeps a few of them (baseline JPEG, PNG
/// without interlace, TIFF, SVG, PDF). Some must hold the whole image first, whatever the output size:
/// - a progressive JPEG (or any JPEG in several scans): libjpeg keeps every DCT coefficient, 2 bytes a sample at
///   the components' sampling (1.5 samples a pixel for 4:2:0 colour, 3 for 4:4:4);
/// - an interlaced (Adam7) PNG: libspng decodes the whole image, at its channels and bit depth;
/// - GIF (a 4-byte canvas), WebP (4 bytes a pixel), HEIF/AVIF (the picture's planes and the RGB result) and JPEG XL.
struct DecodeMemory: Equatable {
    /// Bytes held at once, at least.
    var bytes: Int64
    /// What needs them, for the message: "progressive JPEG", "interlaced PNG", "GIF"; nil for a streaming decode.
    var what: String?

    /// Rows a streaming loader and libvips' thread pool hold at once, counted for every streaming decode.
    static let streamingRows: Int64 = 256

    /// The estimate for an input whose header is `header` (`width` × `frameHeight`, one frame at a time).
    static func estimate(_ reader: ByteReader, header: ImageDecoder.Header) -> DecodeMemory {
        let pixels = Int64(header.width) * Int64(header.frameHeight)
        let streaming = DecodeMemory(bytes: Int64(header.width) * 4 * streamingRows * 2, what: nil)
        switch header.loader {
        case "jpeg":
            guard let frame = JPEGMarkers.header(reader), needsEveryCoefficient(frame) else { return streaming }
            return DecodeMemory(bytes: coefficientBytes(frame), what: frame.progressive ? "progressive JPEG" : "JPEG in several scans")
        case "png":
            guard let png = PNGChunks.header(reader), png.interlaced else { return streaming }
            return DecodeMemory(bytes: pixels * bytesPerPixel(png), what: "interlaced PNG")
        case "gif":
            return DecodeMemory(bytes: pixels * 4, what: "GIF")
        case "webp":
            return DecodeMemory(bytes: pixels * 4, what: "WebP")
        case "heif":
            return DecodeMemory(bytes: pixels * 6, what: header.format == .avif ? "AVIF" : "HEIF")
        case "jxl":
            return DecodeMemory(bytes: pixels * 8, what: "JPEG XL")
        default:
            return streaming
        }
    }

    /// Whether libjpeg keeps every DCT coefficient of `frame`: a progressive frame, or a first scan (header read by
    /// `JPEGMarkers`) holding fewer components than the frame (several scans).
    static func needsEveryCoefficient(_ frame: JPEGMarkers.Frame) -> Bool {
        frame.progressive || (frame.firstScanComponents ?? frame.sampling.count) < frame.sampling.count
    }

    /// libjpeg's whole-image coefficient buffer: for each component, its blocks (rounded up to whole MCUs) of
    /// 64 two-byte coefficients. A sampling factor of 0 counts as 1.
    static func coefficientBytes(_ frame: JPEGMarkers.Frame) -> Int64 {
        let sampling = frame.sampling.map { (h: max(1, $0.h), v: max(1, $0.v)) }
        let maxH = sampling.map(\.h).max() ?? 1, maxV = sampling.map(\.v).max() ?? 1
        let mcuColumns = (Int64(frame.width) + Int64(8 * maxH) - 1) / Int64(8 * maxH)
        let mcuRows = (Int64(frame.height) + Int64(8 * maxV) - 1) / Int64(8 * maxV)
        return sampling.reduce(Int64(0)) { total, factor in
            total + mcuColumns * Int64(factor.h) * mcuRows * Int64(factor.v) * 64 * 2
        }
    }

    /// What libvips decodes a PNG pixel to: channels (palette expands to RGBA at most) times bytes a sample.
    static func bytesPerPixel(_ header: PNGChunks.Header) -> Int64 {
        let channels: Int64 = switch header.colorType {
        case 0: 1
        case 2: 3
        case 3: 4
        case 4: 2
        default: 4
        }
        return channels * (header.bitDepth == 16 ? 2 : 1)
    }

    /// An estimate for messages, rounded up so that one over a limit never reads as under it: "110 MiB",
    /// "3.2 GiB", "40 KiB" below 1 MiB, "600 bytes" below 1 KiB.
    static func describe(_ bytes: Int64) -> String {
        if bytes < 1024 { return bytes == 1 ? "1 byte" : "\(bytes) bytes" }
        let kibibytes = Double(bytes) / 1024
        if kibibytes < 1024 { return "\(Int(kibibytes.rounded(.up))) KiB" }
        let mebibytes = kibibytes / 1024
        if mebibytes >= 1024 { return String(format: "%.1f GiB", mebibytes / 1024) }
        return "\(Int(mebibytes.rounded(.up))) MiB"
    }
}
