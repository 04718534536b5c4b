import CVips
import Foundation

/// Reads pixels and statistics of encoded images: what tests check an output's visible effect with.
public enum ImageInspection {
    /// Opens the first frame, or all with `allFrames` (no limits: only for trusted, already-produced images).
    static func open(_ data: Data, allFrames: Bool = false) throws(ImgError) -> DecodedImage {
        try VipsRuntime.start()
        let bytes = PinnedBytes(data)
        let format = ImageFormat.sniff(data)
        let options = allFrames && (format == .gif || format == .webp) ? "n=-1" : ""
        guard let image = imgf_open_buffer(bytes.pointer, bytes.count, options) else {
            throw .image("cannot open image: \(VipsRuntime.takeError())")
        }
        return DecodedImage(taking: image, source: bytes)
    }

    /// The values of every band at (x, y), in the first frame or in `frame` of an animation.
    public static func pixel(_ data: Data, x: Int, y: Int, frame: Int = 0) throws(ImgError) -> [Double] {
        let image = try open(data, allFrames: frame > 0)
        let row = Int32(y + frame * image.pageHeight)
        var vector: UnsafeMutablePointer<Double>?
        var count: Int32 = 0
        guard imgf_getpoint(image.pointer, &vector, &count, Int32(x), row) == 0, let vector else {
            throw .image("getpoint failed: \(VipsRuntime.takeError())")
        }
        defer { g_free(vector) }
        return Array(UnsafeBufferPointer(start: vector, count: Int(count)))
    }

    /// Mean and standard deviation of one band.
    public static func statistics(_ data: Data, band: Int) throws(ImgError) -> (mean: Double, deviation: Double) {
        let image = try open(data)
        let single = try image.derive("band") { imgf_extract_bands($0, $1, Int32(band), 1) }
        var deviation = 0.0
        guard imgf_deviate(single.pointer, &deviation) == 0 else { throw .image("deviate failed: \(VipsRuntime.takeError())") }
        return (try single.mean(), deviation)
    }

    /// The mean absolute difference between horizontally neighbouring pixels of one band: local variation,
    /// which a blur lowers.
    public static func localVariation(_ data: Data, band: Int) throws(ImgError) -> Double {
        let image = try open(data)
        let single = try image.derive("band") { imgf_extract_bands($0, $1, Int32(band), 1) }
        let width = Int32(single.width - 1), height = Int32(single.pageHeight)
        let left = try single.derive("left") { imgf_extract_area($0, $1, 0, 0, width, height) }
        let right = try single.derive("right") { imgf_extract_area($0, $1, 1, 0, width, height) }
        let difference = try left.derive("difference") { imgf_subtract($0, right.pointer, $1) }
        return try difference.derive("absolute") { imgf_abs($0, $1) }.mean()
    }

    /// Frames, per-frame delays in milliseconds and loop count of an animation (one frame, no delays for a still).
    public static func animation(_ data: Data) throws(ImgError) -> (frames: Int, delays: [Int], loop: Int) {
        let image = try open(data, allFrames: true)
        var delays = [Int32](repeating: 0, count: 4096)
        let count = imgf_get_int_array(image.pointer, "delay", &delays, Int32(delays.count))
        let loop = imgf_get_int(image.pointer, "loop", 0)
        return (image.frameCount, count > 0 ? delays.prefix(Int(min(count, 4096))).map(Int.init) : [], Int(loop))
    }

    /// The EXIF orientation tag, 1 (upright) when there is none.
    public static func orientation(_ data: Data) throws(ImgError) -> Int {
        Int(imgf_get_int(try open(data).pointer, "orientation", 1))
    }

    /// The mean absolute difference of two equally sized images over the top `rows` rows, all bands.
    public static func difference(_ first: Data, _ second: Data, rows: Int) throws(ImgError) -> Double {
        let a = try open(first), b = try open(second)
        guard a.width == b.width, a.bands == b.bands else { throw .image("images differ in size or bands") }
        let height = Int32(min(rows, a.height, b.height)), width = Int32(a.width)
        let topA = try a.derive("top") { imgf_extract_area($0, $1, 0, 0, width, height) }
        let topB = try b.derive("top") { imgf_extract_area($0, $1, 0, 0, width, height) }
        let delta = try topA.derive("difference") { imgf_subtract($0, topB.pointer, $1) }
        return try delta.derive("absolute") { imgf_abs($0, $1) }.mean()
    }

    /// The names of the first frame's metadata fields, as `vipsheader -a` lists them after the basic ones.
    public static func fieldNames(_ data: Data) throws(ImgError) -> [String] {
        if let format = ImageFormat.sniff(data), ImageDecoder.moduleFormats.contains(format) { try VipsRuntime.loadModules() }
        let image = try open(data)
        guard let names = imgf_field_names(image.pointer) else { return [] }
        defer { g_strfreev(names) }
        var result: [String] = []
        var index = 0
        while let name = names[index] {
            result.append(String(cString: name))
            index += 1
        }
        return result
    }

    /// Number of bands, and whether the last is alpha.
    public static func bands(_ data: Data) throws(ImgError) -> (count: Int, hasAlpha: Bool) {
        let image = try open(data)
        return (image.bands, image.hasAlpha)
    }

    /// The `ImageFacts` of the first frame of encoded bytes, from the same small sample the pipeline uses.
    public static func facts(_ data: Data, blurhashComponents: (x: Int, y: Int) = BlurHash.defaultComponents)
        throws(ImgError) -> ImageFacts {
        ImageFacts(pixels: try open(data).factPixels(), blurhashComponents: blurhashComponents)
    }

    /// The sample `ImageFacts` are computed from (for tests that check the facts against reference decoders).
    public static func factPixels(_ data: Data) throws(ImgError) -> FactPixels {
        try open(data).factPixels()
    }

    /// The first frame as `MetricPixels` (alpha flattened onto white): what a Butteraugli distance is measured on.
    public static func metricPixels(_ data: Data) throws(ImgError) -> MetricPixels {
        try open(data).metricPixels()
    }
}
