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
    /// `fill`, `exact` and `pad` give the box; `cover` scales by the side that needs it most, so the other may pass
    /// the box far (a 100×1 image covering 5000×5000 is 500000×5000); `fit` scales by the side that needs it least,
    /// enlarging only with `upscale`; a size in percent scales each side by its own.
    public func outputSize(width inputWidth: Int, height inputHeight: Int) -> (width: Int, height: Int) {
        func scaled(_ side: Int, by scale: Double) -> Int {
            max(1, Int(min(Double(Int32.max), Double(side) * scale).rounded()))
        }
        if let percent {
            return (scaled(inputWidth, by: percent.horizontal / 100), scaled(inputHeight, by: percent.vertical / 100))
        }
        let horizontal = width.map { Double($0) / Double(max(1, inputWidth)) } ?? .infinity
        let vertical = height.map { Double($0) / Double(max(1, inputHeight)) } ?? .infinity
        let scale: Double
        switch mode {
        case .fill, .exact, .pad:
            // These modes always have both sides (`Resize.init`); a percent size was answered above.
            return (width ?? inputWidth, height ?? inputHeight)
        case .cover:
            scale = max(horizontal, vertical)
        case .fit:
            scale = upscale ? min(horizontal, vertical) : min(1, horizontal, vertical)
        }
        return (scaled(inputWidth, by: scale), scaled(inputHeight, by: scale))
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
