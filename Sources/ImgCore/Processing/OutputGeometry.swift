/// The sizes a chain makes, worked out from the header before anything is decoded: every step's output counts
/// against `--max-pixels` as the input does, so a small input can't be made into a huge image
/// (`--resize 30000x30000:fill` on a 16×16 PNG is refused at once, not made).
enum OutputGeometry {
    /// Throws `ImgError.overLimit(.outputPixels)` when a step of `chain` would make more than `options.maxPixels`
    /// pixels (over all frames).
    static func check(_ chain: ProcessingChain, header: ImageDecoder.Header, options: DecodeOptions) throws(ImgError) {
        var (width, height) = header.orientedSize(autorotate: options.autorotate)
        let frames = Int64(max(1, header.frames))
        for step in chain.steps {
            (width, height) = step.outputSize(width: width, height: height)
            let pixels = Int64(width) * Int64(height) * frames
            if pixels > options.maxPixels {
                throw .overLimit(.outputPixels(step: step.identifier, width: width, height: height, frames: Int(frames),
                                               pixels: pixels, limit: options.maxPixels))
            }
        }
    }
}

extension ImageProcessing {
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) { (width, height) }
}

extension ImageProcessors.Resize {
    /// `fill` and `exact` give the box; `fit` scales by the side that needs it most, enlarging only with `upscale`.
    public func outputSize(width inputWidth: Int, height inputHeight: Int) -> (width: Int, height: Int) {
        if mode != .fit, let width, let height { return (width, height) }
        let horizontal = width.map { Double($0) / Double(max(1, inputWidth)) } ?? .infinity
        let vertical = height.map { Double($0) / Double(max(1, inputHeight)) } ?? .infinity
        let scale = upscale ? min(horizontal, vertical) : min(1, horizontal, vertical)
        return (max(1, Int((Double(inputWidth) * scale).rounded())), max(1, Int((Double(inputHeight) * scale).rounded())))
    }
}

extension ImageProcessors.Crop {
    /// The window, within the image.
    public func outputSize(width inputWidth: Int, height inputHeight: Int) -> (width: Int, height: Int) {
        (min(width, inputWidth), min(height, inputHeight))
    }
}

extension ImageProcessors.Rotate {
    /// A quarter turn swaps the sides.
    public func outputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        degrees % 180 == 0 ? (width, height) : (height, width)
    }
}
