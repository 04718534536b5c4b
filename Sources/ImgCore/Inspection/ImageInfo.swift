import Foundation

/// What `imgfetch info` reports of one input: the image's header, where its bytes came from and, with `--facts`, its
/// facts. Encoded as the `--json` record's fields (camelCase; a field that does not apply is left out).
public struct ImageInfo: Sendable, Equatable, Encodable {
    /// The format as `--format` names it (`jpeg`, `png`, `webp`, …); nil for one imgfetch has no name for.
    public var format: String?
    /// Width and height of one frame once the EXIF orientation is applied (as `fetch` outputs it).
    public var width: Int
    public var height: Int
    /// Width and height of one frame as stored, before the orientation is applied.
    public var storedWidth: Int
    public var storedHeight: Int
    /// The EXIF orientation tag, 1 to 8; 1 (upright) when there is none.
    public var orientation: Int
    /// Frames (pages) in the file: 1 for a still image.
    public var frames: Int
    /// For an animation: how many times it plays (0: forever) and each frame's delay in milliseconds; nil otherwise.
    public var loop: Int?
    public var delays: [Int]?
    /// libvips' interpretation of the pixels (`srgb`, `b-w`, `cmyk`, `rgb16`, `grey16`, …).
    public var colorSpace: String
    /// Bits per sample as decoded (8, 16, 32 or 64).
    public var bitsPerSample: Int
    /// Bands (channels), alpha included.
    public var bands: Int
    public var hasAlpha: Bool
    /// Whether an ICC profile is embedded, and its description (nil when there is none, or it has none).
    public var hasIccProfile: Bool
    public var iccProfile: String?
    public var hasExif: Bool
    public var hasXmp: Bool
    /// The whole file's size in bytes; nil when it cannot be known (a server that sent neither a length nor a range).
    public var fileSize: Int64?
    /// A remote input's body bytes received and requests made (0 and 0 when it was read from the cache).
    public var bytesRead: Int64?
    public var requests: Int?
    /// A remote input's last HTTP status (206 for a range, 200, 304 for an expired entry found unchanged); nil when no
    /// request was made.
    public var httpStatus: Int?
    /// A remote input's Content-Type, ETag and Last-Modified, from the response or the cached entry.
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// A remote input's original in the disk cache before this command: `fresh`, `expired` or `absent`; nil (left
    /// out) when no cache was read (`--no-cache`).
    public var cacheState: String?
    /// With `--facts`: the image's facts (the same as `fetch --facts` reports for it unchanged).
    public var facts: ImageFacts?
    /// The URL a cached original that answered was recorded for, when its query differs from the input's (the cache
    /// key drops the query): it may be another image. Nil otherwise.
    public var recordedURL: String?

    private enum CodingKeys: String, CodingKey {
        case format, width, height, storedWidth, storedHeight, orientation, frames, loop, delays, colorSpace, bitsPerSample
        case bands, hasAlpha, hasIccProfile, iccProfile, hasExif, hasXmp, fileSize, bytesRead, requests, httpStatus
        case contentType, etag, lastModified, cacheState, queryDiffers, recordedURL
    }

    /// The fields, facts included (flat: `blurhash`, `thumbhash`, `dominantColor`, `phash`), nil ones left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(format, forKey: .format)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(storedWidth, forKey: .storedWidth)
        try container.encode(storedHeight, forKey: .storedHeight)
        try container.encode(orientation, forKey: .orientation)
        try container.encode(frames, forKey: .frames)
        try container.encodeIfPresent(loop, forKey: .loop)
        try container.encodeIfPresent(delays, forKey: .delays)
        try container.encode(colorSpace, forKey: .colorSpace)
        try container.encode(bitsPerSample, forKey: .bitsPerSample)
        try container.encode(bands, forKey: .bands)
        try container.encode(hasAlpha, forKey: .hasAlpha)
        try container.encode(hasIccProfile, forKey: .hasIccProfile)
        try container.encodeIfPresent(iccProfile, forKey: .iccProfile)
        try container.encode(hasExif, forKey: .hasExif)
        try container.encode(hasXmp, forKey: .hasXmp)
        try container.encodeIfPresent(fileSize, forKey: .fileSize)
        try container.encodeIfPresent(bytesRead, forKey: .bytesRead)
        try container.encodeIfPresent(requests, forKey: .requests)
        try container.encodeIfPresent(httpStatus, forKey: .httpStatus)
        try container.encodeIfPresent(contentType, forKey: .contentType)
        try container.encodeIfPresent(etag, forKey: .etag)
        try container.encodeIfPresent(lastModified, forKey: .lastModified)
        try container.encodeIfPresent(cacheState, forKey: .cacheState)
        if let recordedURL {
            try container.encode(true, forKey: .queryDiffers)
            try container.encode(recordedURL, forKey: .recordedURL)
        }
        try facts?.encode(to: encoder)
    }
}
