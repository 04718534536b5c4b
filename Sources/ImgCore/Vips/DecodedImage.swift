import CVips
import Foundation

/// One reference to a libvips image: immutable, possibly lazy; several frames stack vertically, `pageHeight` apart.
public final class DecodedImage: @unchecked Sendable { // owns a refcounted C VipsImage pointer that libvips never mutates after creation
    let pointer: UnsafeMutablePointer<VipsImage>
    /// The encoded bytes a lazily loaded image still reads from (`PinnedBytes`, `FileRegion`): libvips does not
    /// copy them.
    private let source: AnyObject?
    /// The clock of the rendering this image belongs to (`--max-render-time`): images derived from it join it too.
    let clock: RenderClock?

    init(taking pointer: UnsafeMutablePointer<VipsImage>, source: AnyObject? = nil, clock: RenderClock? = nil) {
        self.pointer = pointer
        self.source = source
        self.clock = clock
        clock?.watch(self)
    }

    /// The same image as part of the rendering that `clock` times (an image decoded once for several variants
    /// joins each variant's rendering in turn).
    func timed(by clock: RenderClock?) -> DecodedImage {
        guard let clock, clock !== self.clock else { return self }
        return DecodedImage(taking: imgf_ref(pointer), source: source, clock: clock)
    }

    deinit { g_object_unref(pointer) }

    public var width: Int { Int(imgf_width(pointer)) }
    /// The embedded ICC profile; nil when there is none.
    var iccProfile: Data? {
        var length = 0
        guard let blob = imgf_get_blob(pointer, "icc-profile-data", &length), length > 0 else { return nil }
        return Data(bytes: blob, count: length)
    }
    /// The height of all frames together.
    public var height: Int { Int(imgf_height(pointer)) }
    public var bands: Int { Int(imgf_bands(pointer)) }
    public var hasAlpha: Bool { imgf_hasalpha(pointer) != 0 }
    /// The height of one frame: the full height for a still image.
    public var pageHeight: Int {
        let page = Int(imgf_page_height(pointer))
        return page > 0 && height % page == 0 ? page : height
    }
    public var frameCount: Int { max(1, height / pageHeight) }
    public var interpretation: VipsInterpretation { imgf_interpretation(pointer) }

    /// Runs one libvips operation that writes a new image, wrapping the result or throwing libvips' message.
    func derive(_ what: String,
                _ operation: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32)
        throws(ImgError) -> DecodedImage {
        try derive(failure: { "\(what) failed: \($0)" }, operation)
    }

    /// As `derive(_:_:)`, its failure said by `failure` from libvips' error text.
    func derive(failure: (String) -> String,
                _ operation: (UnsafeMutablePointer<VipsImage>, UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32)
        throws(ImgError) -> DecodedImage {
        var output: UnsafeMutablePointer<VipsImage>?
        guard operation(pointer, &output) == 0, let output else {
            throw .image(failure(VipsRuntime.takeError()))
        }
        return DecodedImage(taking: output, source: source, clock: clock)
    }

    /// The same pixels, computed by libvips on at most `threads` threads in any sink of this image or of an image
    /// made from it (its `concurrency` field, which libvips' thread pool reads instead of `VIPS_CONCURRENCY`).
    /// A copy: an image shared with other renderings is left as it is.
    func limitingThreads(_ threads: Int) throws(ImgError) -> DecodedImage {
        try derive("threads per rendering") { imgf_copy_setting_int($0, $1, "concurrency", Int32(clamping: max(1, threads))) }
    }

    /// `limitingThreads` made on this very image, for an image that no one else holds (a rendering's own decode):
    /// no copy is built.
    func limitThreads(_ threads: Int) {
        imgf_set_int(pointer, "concurrency", Int32(clamping: max(1, threads)))
    }

    /// The threads libvips' thread pool gives a sink of this image: `limitingThreads`' number, else `fallback`.
    func threadLimit(or fallback: Int) -> Int { Int(imgf_image_concurrency(pointer, Int32(clamping: fallback))) }

    /// Applies `transform` to each frame and stacks the results again; a still image is transformed once.
    func mapFrames(_ transform: (DecodedImage) throws(ImgError) -> DecodedImage) throws(ImgError) -> DecodedImage {
        let count = frameCount
        guard count > 1 else { return try transform(self) }
        let page = pageHeight
        var frames: [DecodedImage] = []
        for index in 0..<count {
            let frame = try derive("frame") { imgf_extract_area($0, $1, 0, Int32(index * page), Int32(width), Int32(page)) }
            frames.append(try transform(frame))
        }
        var pointers: [UnsafeMutablePointer<VipsImage>?] = frames.map(\.pointer)
        var joined: UnsafeMutablePointer<VipsImage>?
        guard imgf_arrayjoin_vertical(&pointers, &joined, Int32(count)) == 0, let joined else {
            throw .image("joining frames failed: \(VipsRuntime.takeError())")
        }
        let stacked = DecodedImage(taking: joined, source: source, clock: clock)
        let newPage = frames[0].height
        return try stacked.derive("frame metadata") { imgf_copy_page_height($0, $1, Int32(newPage)) }
    }

    /// The mean of every band: used by tests and by nothing on the hot path.
    public func mean() throws(ImgError) -> Double {
        var value = 0.0
        guard imgf_avg(pointer, &value) == 0 else { throw .image("average failed: \(VipsRuntime.takeError())") }
        return value
    }
}
