import Foundation

/// The one reader of a JPEG's marker segments, from the start-of-image marker to the first scan, used by every
/// caller that needs the header of a JPEG without libjpeg (the decode-memory estimate, the renderer's reply check).
///
/// Edge cases, decided as libjpeg (`jdmarker.c`, which libvips' `jpegload` uses) decides them:
/// - The file must start with SOI (FF D8); otherwise there is no header.
/// - Any number of fill bytes (FF FF …) may come before a marker's code: they are skipped (`next_marker`).
/// - Bytes that are not FF where a marker is expected are skipped up to the next FF, as libjpeg does (with its
///   "extraneous bytes before marker" warning).
/// - RST0–RST7 (D0–D7) and TEM (01) stand alone: no length follows them.
/// - A second SOI is malformed (libjpeg's "Invalid JPEG file structure: two SOI markers"); EOI (D9) before the
///   first scan ends the header without one.
/// - A segment's length counts itself, so one under 2 is malformed; a segment reaching past the end of the
///   bytes ends the walk (the header is cut short).
/// - Start-of-frame markers are C0–C3, C5–C7, C9–CB and CD–CF; C4 (DHT), C8 (JPG, reserved) and CC (DAC) are
///   not. Progressive frames are C2, C6, CA and CE. A frame segment's length must be 8 + 3 × its components
///   (libjpeg's "Bogus marker length"), with at least one component.
/// - A second frame header before the first scan is malformed (libjpeg's "Invalid JPEG file structure: two SOF
///   markers") for `header`, which reads to the scan; `frame` stops at the first frame header and looks no further.
public enum JPEGMarkers {
    /// One marker segment: its code (the byte after FF) and where its contents lie.
    struct Segment {
        /// The marker's code: C0 for SOF0, DA for SOS, …
        var code: UInt8
        /// Where the marker's FF is.
        var offset: Int
        /// Where the segment's contents start (after the two length bytes), and how many bytes they are
        /// (length − 2); 0 for a standalone marker.
        var contentOffset: Int, contentLength: Int
    }

    /// How a walk ended.
    enum End: Equatable {
        /// The callback asked to stop.
        case stopped
        /// The bytes ran out (no marker, or a segment past the end): the header is cut short.
        case cutShort
        /// Not a JPEG (no SOI), a second SOI, or a segment length under 2.
        case malformed
        /// End of image (D9) before the callback stopped.
        case endOfImage
    }

    /// The frame header (SOFn) and the first scan's component count.
    public struct Frame: Equatable, Sendable {
        /// The start-of-frame marker's code (C0 baseline, C2 progressive, …).
        public var code: UInt8
        public var width: Int, height: Int
        /// Horizontal and vertical sampling factors of each component, as written (0 stays 0).
        public var sampling: [Sampling]
        /// Components in the first scan; nil when the walk stopped at the frame (`frame(in:)`).
        public var firstScanComponents: Int?

        /// A component's horizontal and vertical sampling factors.
        public struct Sampling: Equatable, Sendable {
            public var h: Int, v: Int
        }

        /// Whether the frame is progressive (C2, C6, CA, CE).
        public var progressive: Bool { [0xC2, 0xC6, 0xCA, 0xCE].contains(code) }
    }

    /// Whether `code` is a start-of-frame marker (C0–CF but C4, C8 and CC).
    public static func isStartOfFrame(_ code: UInt8) -> Bool {
        (0xC0...0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC
    }

    /// Whether `code` stands alone, with no length after it (RST0–RST7, TEM; SOI and EOI are handled apart).
    static func isStandalone(_ code: UInt8) -> Bool { code == 0x01 || (0xD0...0xD7).contains(code) }

    /// Walks the segments after SOI, calling `body` on each until it returns false.
    @discardableResult
    static func walk(_ reader: ByteReader, _ body: (Segment) -> Bool) -> End {
        guard reader.byte(at: 0) == 0xFF, reader.byte(at: 1) == 0xD8 else { return .malformed }
        var offset = 2
        while true {
            // Skip extraneous bytes up to an FF, then fill bytes up to the code.
            while let byte = reader.byte(at: offset), byte != 0xFF { offset += 1 }
            var codeAt = offset + 1
            while reader.byte(at: codeAt) == 0xFF { codeAt += 1 }
            guard let code = reader.byte(at: codeAt) else { return .cutShort }
            let markerAt = codeAt - 1
            if code == 0x00 { offset = codeAt + 1; continue }          // a stuffed FF 00 is no marker
            if code == 0xD8 { return .malformed }
            if code == 0xD9 { return .endOfImage }
            if isStandalone(code) {
                guard body(Segment(code: code, offset: markerAt, contentOffset: codeAt + 1, contentLength: 0)) else { return .stopped }
                offset = codeAt + 1
                continue
            }
            guard let high = reader.byte(at: codeAt + 1), let low = reader.byte(at: codeAt + 2) else { return .cutShort }
            let length = Int(high) << 8 | Int(low)
            guard length >= 2 else { return .malformed }
            guard codeAt + 1 + length <= reader.count else { return .cutShort }
            guard body(Segment(code: code, offset: markerAt, contentOffset: codeAt + 3, contentLength: length - 2)) else {
                return .stopped
            }
            offset = codeAt + 1 + length
        }
    }

    /// The frame header before the first scan, with that scan's component count; nil when the header is
    /// malformed (two frame headers included), cut short, or has no frame before its first scan.
    static func header(_ reader: ByteReader) -> Frame? {
        var frame: Frame?, scan: Int?, bad = false
        walk(reader) { segment in
            if isStartOfFrame(segment.code) {
                guard frame == nil, let parsed = parseFrame(reader, segment) else { bad = true; return false }
                frame = parsed
            } else if segment.code == 0xDA {
                scan = segment.contentLength >= 1 ? reader.byte(at: segment.contentOffset).map(Int.init) : nil
                return false
            }
            return true
        }
        guard !bad, var frame, let scan else { return nil }
        frame.firstScanComponents = scan
        return frame
    }

    /// The first frame header; nil when none can be read before the first scan or the end of the bytes.
    static func frame(_ reader: ByteReader) -> Frame? {
        var frame: Frame?
        walk(reader) { segment in
            if isStartOfFrame(segment.code) { frame = parseFrame(reader, segment); return false }
            return segment.code != 0xDA
        }
        return frame
    }

    /// The first frame header of the JPEG in `data`; nil when none can be read (see the type's rules).
    public static func frame(in data: Data) -> Frame? {
        data.withUnsafeBytes { frame(ByteReader(memory: $0)) }
    }

    /// The frame header before the first scan of the JPEG in `data`, with that scan's component count.
    public static func header(in data: Data) -> Frame? {
        data.withUnsafeBytes { header(ByteReader(memory: $0)) }
    }

    /// A frame segment's contents: precision, height, width, component count, then 3 bytes a component.
    private static func parseFrame(_ reader: ByteReader, _ segment: Segment) -> Frame? {
        guard segment.contentLength >= 6, let body = reader.bytes(at: segment.contentOffset, length: 6) else { return nil }
        let count = Int(body[5])
        guard count > 0, segment.contentLength == 6 + 3 * count else { return nil }
        var sampling: [Frame.Sampling] = []
        for index in 0..<count {
            // A byte at a time: the reader's window may be smaller than the component table.
            guard let factors = reader.byte(at: segment.contentOffset + 6 + 3 * index + 1) else { return nil }
            sampling.append(Frame.Sampling(h: Int(factors >> 4), v: Int(factors & 0x0F)))
        }
        return Frame(code: segment.code, width: Int(body[3]) << 8 | Int(body[4]), height: Int(body[1]) << 8 | Int(body[2]),
                     sampling: sampling, firstScanComponents: nil)
    }
}
