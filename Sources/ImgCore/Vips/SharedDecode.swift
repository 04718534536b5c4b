import CVips
import Foundation

/// Several variants of one still image (batch `--variant`) decoded once, wherever that gives each variant the
/// very bytes it gets when made alone: what is cached under a variant's key never depends on its siblings.
///
/// A variant made alone is decoded by libvips' thumbnail, which loads the input with a shrink-on-load factor
/// chosen from that variant's size (JPEG) and then resizes the loaded image. Variants whose factor is the same
/// share one loaded image, and each resizes it with `vips_thumbnail_image`: the same steps on the same pixels.
/// Variants of inputs whose load depends on the size in other ways (WebP, HEIF, PDF, SVG, TIFF) decode one by one.
public struct SharedDecode: Sendable {
    /// How a chain's input is loaded; variants with equal plans share one loaded image.
    enum LoadPlan: Hashable, CustomStringConvertible {
        /// Loaded with libjpeg's shrink-on-load `factor` (1 for a loader without one), not yet resized, rotated
        /// or converted: the chain's first step, a resize, runs on it.
        case shrunk(factor: Int)
        /// Loaded whole, turned upright and in 8-bit sRGB: the chain does not start with a resize.
        case whole

        var description: String {
            switch self {
            case .shrunk(let factor): "shrink=\(factor)"
            case .whole: "whole"
            }
        }
    }

    /// Where a loaded image waits for the other variants.
    let cache: DecodedImageCache
    /// Names the input and the decode options (original key and orientation/frame choices).
    let key: String
    /// The chains of every variant made from this input.
    let chains: [ProcessingChain]
    /// A loaded image over this many bytes (at 4 bytes a pixel) is not kept for the siblings: each variant then
    /// decodes by itself, streaming, as it would alone. 32 MiB.
    static let memoryLimit = 32 << 20

    /// How a variant alone would load its input; nil when that depends on more than a shrink-on-load factor.
    static func plan(for chain: ProcessingChain, header: ImageDecoder.Header, autorotate: Bool) -> LoadPlan? {
        guard let resize = chain.steps.first as? ImageProcessors.Resize else { return .whole }
        return shrinkOnLoad(resize, header: header, autorotate: autorotate).map { .shrunk(factor: $0) }
    }

    /// The shrink-on-load factor libvips' thumbnail loads the input with for `resize`: JPEG's
    /// (`jpegShrink`), 1 for a loader without one (PNG, GIF); nil when the load depends on the size in other ways.
    static func shrinkOnLoad(_ resize: ImageProcessors.Resize, header: ImageDecoder.Header, autorotate: Bool) -> Int? {
        switch header.loader {
        case "jpeg": jpegShrink(resize, header: header, autorotate: autorotate)
        case "png", "gif": 1
        default: nil
        }
    }

    /// The loader option for a shrink-on-load `factor` (none at 1).
    static func shrinkOption(_ factor: Int) -> String { factor > 1 ? ",shrink=\(factor)" : "" }

    /// The JPEG shrink-on-load factor `vips_thumbnail` picks for `resize` (libvips 8.14's
    /// `vips_thumbnail_find_jpegshrink`): the shrink common to both axes, leaving at least a factor of two to the
    /// resize that follows the load.
    static func jpegShrink(_ resize: ImageProcessors.Resize, header: ImageDecoder.Header, autorotate: Bool) -> Int {
        let upright = header.orientedSize(autorotate: autorotate)
        let arguments = resize.thumbnailArguments(imageWidth: upright.width, imageHeight: upright.height)
        let swap = autorotate && (5...8).contains(header.orientation)
        let width = Double(header.width), height = Double(header.frameHeight)
        var horizontal = width / Double(swap ? arguments.height : arguments.width)
        var vertical = height / Double(swap ? arguments.width : arguments.height)
        // Fitting inside the box follows the axis that needs more shrinking; covering it (a crop), the other.
        let followsWidth = arguments.crop != Int32(VIPS_INTERESTING_NONE.rawValue) ? horizontal < vertical : horizontal >= vertical
        if arguments.size != Int32(VIPS_SIZE_FORCE.rawValue) {
            if followsWidth { vertical = horizontal } else { horizontal = vertical }
        }
        if arguments.size == Int32(VIPS_SIZE_UP.rawValue) {
            (horizontal, vertical) = (min(1, horizontal), min(1, vertical))
        } else if arguments.size == Int32(VIPS_SIZE_DOWN.rawValue) {
            (horizontal, vertical) = (max(1, horizontal), max(1, vertical))
        }
        let shrink = min(min(horizontal, width), min(vertical, height))
        return shrink >= 16 ? 8 : shrink >= 8 ? 4 : shrink >= 4 ? 2 : 1
    }

    /// The input decoded for `chain` as the variant alone would decode it, from an image loaded once for every
    /// sibling with the same plan; also the steps still to apply. Nil when this variant decodes by itself: an
    /// animation, a loader whose load depends on the size, no sibling with its plan, or a loaded image over
    /// `memoryLimit`.
    func decode(_ input: VipsInput, header: ImageDecoder.Header, chain: ProcessingChain, options: DecodeOptions)
        throws(ImgError) -> (DecodedImage, remaining: ArraySlice<any ImageProcessing>)? {
        let autorotate = options.autorotate
        guard header.frames == 1, let plan = Self.plan(for: chain, header: header, autorotate: autorotate) else { return nil }
        let siblings = chains.filter { Self.plan(for: $0, header: header, autorotate: autorotate) == plan }.count
        let factor = if case .shrunk(let factor) = plan { factor } else { 1 }
        let pixels = ((header.width + factor - 1) / factor) * ((header.frameHeight + factor - 1) / factor)
        guard siblings > 1, pixels * 4 <= Self.memoryLimit else { return nil }

        let slot = "\(key)#\(plan)"
        let loaded: DecodedImage
        if let kept = cache.take(slot) {
            loaded = kept
        } else {
            loaded = try load(input, header: header, plan: plan, options: options)
            cache.store(loaded, forKey: slot, uses: siblings - 1)
        }
        guard case .shrunk = plan, let resize = chain.steps.first as? ImageProcessors.Resize else {
            return (loaded, chain.steps[...])
        }
        let upright = header.orientedSize(autorotate: autorotate)
        let arguments = resize.thumbnailArguments(imageWidth: upright.width, imageHeight: upright.height)
        let resized = try loaded.derive("resize") {
            imgf_thumbnail_image($0, $1, arguments.width, arguments.height, arguments.size, arguments.crop, autorotate ? 0 : 1)
        }
        return (try ImageDecoder.toStandardRGB(resized), chain.steps.dropFirst())
    }

    /// Loads the input as `plan` says, into memory.
    private func load(_ input: VipsInput, header: ImageDecoder.Header, plan: LoadPlan, options: DecodeOptions)
        throws(ImgError) -> DecodedImage {
        let image: DecodedImage
        switch plan {
        case .whole:
            image = try ImageDecoder.decode(input, header: header, chain: ProcessingChain(), options: options).0
        case .shrunk(let factor):
            let loadOptions = ImageDecoder.loadOptions(header, options: options) + Self.shrinkOption(factor)
            guard let opened = input.open(options: loadOptions) else {
                throw .image("corrupt or unsupported image: \(VipsRuntime.takeError())")
            }
            image = DecodedImage(taking: opened, source: input.owner)
        }
        return try image.derive("decode into memory") { imgf_copy_memory($0, $1) }
    }
}

/// Loaded images waiting for the other variants of their input; each is dropped after its last use, and the
/// least recently stored go first past `limit` images.
final class DecodedImageCache: Sendable {
    private struct Slot {
        var image: DecodedImage
        var usesLeft: Int
        var stored: UInt64
    }

    private let slots = Locked<(items: [String: Slot], clock: UInt64)>(([:], 0))
    /// The most images kept at once; default 8.
    let limit: Int
    /// How many times a kept image was used again instead of decoding (for tests and `-v`).
    private let reuses = Locked(0)

    init(limit: Int = 8) {
        self.limit = limit
    }

    var reuseCount: Int { reuses.withLock { $0 } }

    func store(_ image: DecodedImage, forKey key: String, uses: Int) {
        guard uses > 0 else { return }
        slots.withLock { state in
            state.clock += 1
            state.items[key] = Slot(image: image, usesLeft: uses, stored: state.clock)
            while state.items.count > limit, let oldest = state.items.min(by: { $0.value.stored < $1.value.stored }) {
                state.items[oldest.key] = nil
            }
        }
    }

    /// The image kept for `key`, counting one use; it is dropped after its last.
    func take(_ key: String) -> DecodedImage? {
        let image = slots.withLock { state -> DecodedImage? in
            guard var slot = state.items[key] else { return nil }
            slot.usesLeft -= 1
            state.items[key] = slot.usesLeft > 0 ? slot : nil
            return slot.image
        }
        if image != nil { reuses.withLock { $0 += 1 } }
        return image
    }
}
