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
            guard let frame = JPEGFrame(reader), frame.needsEveryCoefficient else { return streaming }
            return DecodeMemory(bytes: frame.coefficientBytes, what: frame.progressive ? "progressive JPEG" : "JPEG in several scans")
        case "png":
            guard let png = PNGHeader(reader), png.interlaced else { return streaming }
            return DecodeMemory(bytes: pixels * png.bytesPerPixel, what: "interlaced PNG")
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

    /// The frame header (SOFn) of a JPEG and whether its first scan holds every component.
    struct JPEGFrame {
        var width: Int, height: Int
        /// Horizontal and vertical sampling factors of each component.
        var sampling: [(h: Int, v: Int)]
        var progressive: Bool
        /// Components in the first scan; fewer than the frame's means several scans (libjpeg then buffers all).
        var firstScanComponents: Int

        /// Parses the markers from the start of the file to the first scan; nil when they are malformed.
        init?(_ reader: ByteReader) {
            guard reader.byte(at: 0) == 0xFF, reader.byte(at: 1) == 0xD8 else { return nil }
            var offset = 2
            var frame: (width: Int, height: Int, sampling: [(h: Int, v: Int)], progressive: Bool)?
            while let marker = reader.bytes(at: offset, length: 4) {
                guard marker[0] == 0xFF else { return nil }
                let type = marker[1]
                if type == 0xFF { offset += 1; continue }                       // fill byte
                if type == 0x01 || (0xD0...0xD7).contains(type) { offset += 2; continue }
                let length = Int(marker[2]) << 8 | Int(marker[3])
                guard length >= 2 else { return nil }
                if (0xC0...0xCF).contains(type), type != 0xC4, type != 0xC8, type != 0xCC {
                    guard let body = reader.bytes(at: offset + 4, length: 6) else { return nil }
                    let height = Int(body[1]) << 8 | Int(body[2]), width = Int(body[3]) << 8 | Int(body[4])
                    let count = Int(body[5])
                    guard count > 0, let components = reader.bytes(at: offset + 10, length: 3 * count) else { return nil }
                    var sampling: [(h: Int, v: Int)] = []
                    for index in 0..<count {
                        let factors = components[3 * index + 1]
                        sampling.append((h: max(1, Int(factors >> 4)), v: max(1, Int(factors & 0x0F))))
                    }
                    frame = (width, height, sampling, [0xC2, 0xC6, 0xCA, 0xCE].contains(type))
                } else if type == 0xDA {
                    guard let frame, let scanCount = reader.byte(at: offset + 4) else { return nil }
                    (width, height, sampling, progressive) = frame
                    firstScanComponents = Int(scanCount)
                    return
                }
                offset += 2 + length
            }
            return nil
        }

        var needsEveryCoefficient: Bool { progressive || firstScanComponents < sampling.count }

        /// libjpeg's whole-image coefficient buffer: for each component, its blocks (rounded up to whole MCUs) of
        /// 64 two-byte coefficients.
        var coefficientBytes: Int64 {
            let maxH = sampling.map(\.h).max() ?? 1, maxV = sampling.map(\.v).max() ?? 1
            let mcuColumns = (Int64(width) + Int64(8 * maxH) - 1) / Int64(8 * maxH)
            let mcuRows = (Int64(height) + Int64(8 * maxV) - 1) / Int64(8 * maxV)
            return sampling.reduce(Int64(0)) { total, factor in
                total + mcuColumns * Int64(factor.h) * mcuRows * Int64(factor.v) * 64 * 2
            }
        }
    }

    /// The IHDR chunk of a PNG.
    struct PNGHeader {
        var interlaced: Bool
        /// What libvips decodes a pixel to: channels (palette expands to RGBA at most) times bytes a sample.
        var bytesPerPixel: Int64

        init?(_ reader: ByteReader) {
            guard let ihdr = reader.bytes(at: 16, length: 13) else { return nil }
            let depth = Int64(ihdr[8]), colourType = ihdr[9]
            let channels: Int64 = switch colourType {
            case 0: 1
            case 2: 3
            case 3: 4
            case 4: 2
            default: 4
            }
            bytesPerPixel = channels * (depth == 16 ? 2 : 1)
            interlaced = ihdr[12] != 0
        }
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
