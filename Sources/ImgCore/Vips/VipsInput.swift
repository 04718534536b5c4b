import CVips
import Foundation

/// Where libvips reads encoded bytes from: a pinned copy in memory (small inputs, as always), or a file region
/// through a `VipsSource` that reads it with `pread` (large inputs: spooled downloads, cached originals, local
/// files), so that the encoded bytes are never held whole.
enum VipsInput {
    case buffer(PinnedBytes)
    case region(FileRegion)

    init(_ bytes: EncodedBytes) {
        switch bytes {
        case .memory(let data): self = .buffer(PinnedBytes(data))
        case .file(let region): self = .region(region)
        }
    }

    /// Runs `body` with an input over `bytes`: bytes in memory are read where they lie, not copied, so `body` must
    /// be work whose libvips images all end before it returns (a header check, a rendering not shared with other
    /// variants: `DecodedImage` and `RenderClock` hold the input while an image may read it). Anything still holding
    /// the input afterwards would read freed memory, so the process stops then. A file region is read as always.
    static func borrowing<Result>(_ bytes: EncodedBytes, _ body: (inout VipsInput) throws(ImgError) -> Result)
        throws(ImgError) -> Result {
        guard case .memory(let data) = bytes, !data.isEmpty else {
            var input = VipsInput(bytes)
            return try body(&input)
        }
        let outcome = data.withUnsafeBytes { raw -> Swift.Result<Result, ImgError> in
            var pinned = PinnedBytes(borrowing: raw)
            let outcome: Swift.Result<Result, ImgError>
            do throws(ImgError) {
                var input = VipsInput.buffer(pinned)
                outcome = .success(try body(&input))
            } catch {
                outcome = .failure(error)
            }
            precondition(isKnownUniquelyReferenced(&pinned), "a libvips image outlived the bytes it reads")
            return outcome
        }
        return try outcome.get()
    }

    var count: Int {
        switch self {
        case .buffer(let bytes): bytes.count
        case .region(let region): region.count
        }
    }

    /// What a lazily decoded image must keep alive while it reads (a region's source holds its own descriptor).
    var owner: AnyObject {
        switch self {
        case .buffer(let bytes): bytes
        case .region(let region): region
        }
    }

    /// The first bytes, for sniffing the format.
    var head: Data {
        switch self {
        case .buffer(let bytes): Data(bytes: bytes.pointer, count: min(bytes.count, 64))
        case .region(let region): region.prefix(64)
        }
    }

    /// A reader for the container checks.
    func reader() -> ByteReader {
        switch self {
        case .buffer(let bytes): ByteReader(memory: UnsafeRawBufferPointer(start: bytes.pointer, count: bytes.count))
        case .region(let region): ByteReader(region: region)
        }
    }

    /// The GType name of the loader libvips would pick (`VipsForeignLoadJpegBuffer`, `…Source`), or nil.
    func findLoader() -> String? {
        let found: UnsafePointer<CChar>? = switch self {
        case .buffer(let bytes): imgf_find_load_buffer(bytes.pointer, bytes.count)
        case .region: withSource { imgf_find_load_source($0) }
        }
        return found.map { String(cString: $0) }
    }

    /// Opens the image lazily with loader options (`n=-1`, `fail_on=error`).
    func open(options: String) -> UnsafeMutablePointer<VipsImage>? {
        switch self {
        case .buffer(let bytes): imgf_open_buffer(bytes.pointer, bytes.count, options)
        case .region: withSource { imgf_open_source($0, options) }
        }
    }

    /// libvips' thumbnail straight from the encoded bytes (shrink-on-load, sequential access); 0 on success.
    func thumbnail(_ output: inout UnsafeMutablePointer<VipsImage>?, width: Int32, height: Int32, size: Int32,
                   crop: Int32, noRotate: Int32, options: String) -> Int32 {
        switch self {
        case .buffer(let bytes):
            return imgf_thumbnail_buffer(bytes.pointer, bytes.count, &output, width, height, size, crop, noRotate, options)
        case .region:
            return withSource { imgf_thumbnail_source($0, &output, width, height, size, crop, noRotate, options) } ?? -1
        }
    }

    /// Runs `body` with a new source over the region, released afterwards (an image made from it keeps its own
    /// reference); nil when the source can't be made.
    private func withSource<T>(_ body: (UnsafeMutablePointer<VipsSource>) -> T?) -> T? {
        guard case .region(let region) = self,
              let source = imgf_source_new_region(region.descriptor, Int(region.offset), region.count) else { return nil }
        defer { imgf_source_unref(source) }
        return body(source)
    }
}
