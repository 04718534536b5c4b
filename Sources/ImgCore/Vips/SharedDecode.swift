import CVips
import Foundation

/// Several variants of one input decoded once (batch `--variant`): the input is decoded at the largest scale any
/// of their chains needs, with shrink-on-load, kept in memory, and each chain then starts from that image.
public struct SharedDecode: Sendable {
    /// Where the decoded image waits for the other variants.
    let cache: DecodedImageCache
    /// Names the input and the decode options (original key and orientation/frame choices).
    let key: String
    /// The chains of every variant made from this input.
    let chains: [ProcessingChain]

    /// The scale (at most 1) a chain needs of an input of `width`×`height`: its first resize's, else 1.
    static func scale(of chain: ProcessingChain, width: Int, height: Int) -> Double {
        guard let resize = chain.steps.first as? ImageProcessors.Resize, width > 0, height > 0 else { return 1 }
        let horizontal = resize.width.map { Double($0) / Double(width) }
        let vertical = resize.height.map { Double($0) / Double(height) }
        let scale = switch resize.mode {
        case .fit: min(horizontal ?? .infinity, vertical ?? .infinity)
        case .fill, .exact: max(horizontal ?? 0, vertical ?? 0)
        }
        return min(1, scale)
    }

    /// The input as decoded for an earlier variant, with its header (checked then), counting one use.
    func cached() -> (DecodedImage, ImageDecoder.Header)? { cache.take(key) }

    /// Decodes the input for every variant and leaves it in the cache for the others.
    func decode(_ input: VipsInput, header: ImageDecoder.Header, options: DecodeOptions) throws(ImgError) -> DecodedImage {
        let (width, height) = header.orientedSize(autorotate: options.autorotate)
        let scale = chains.map { SharedDecode.scale(of: $0, width: width, height: height) }.max() ?? 1
        var decoded: DecodedImage
        if scale < 1 {
            // One pixel of margin, so that every variant still shrinks from it.
            let box = ProcessingChain([try ImageProcessors.Resize(width: Int((Double(width) * scale).rounded(.up)) + 1,
                                                                  height: Int((Double(height) * scale).rounded(.up)) + 1)])
            decoded = try ImageDecoder.decode(input, header: header, chain: box, options: options).0
        } else {
            decoded = try ImageDecoder.decode(input, header: header, chain: ProcessingChain(), options: options).0
        }
        decoded = try decoded.derive("decode into memory") { imgf_copy_memory($0, $1) }
        cache.store((decoded, header), forKey: key, uses: chains.count - 1)
        return decoded
    }
}

/// Decoded images waiting for the other variants of their input; each is dropped after its last use, and the
/// least recently stored go first past `limit` images.
final class DecodedImageCache: Sendable {
    private struct Slot {
        var image: (DecodedImage, ImageDecoder.Header)
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

    func store(_ image: (DecodedImage, ImageDecoder.Header), forKey key: String, uses: Int) {
        guard uses > 0 else { return }
        slots.withLock { state in
            state.clock += 1
            state.items[key] = Slot(image: image, usesLeft: uses, stored: state.clock)
            while state.items.count > limit, let oldest = state.items.min(by: { $0.value.stored < $1.value.stored }) {
                state.items[oldest.key] = nil
            }
        }
    }

    /// The image kept for `key` and its header, counting one use; it is dropped after its last.
    func take(_ key: String) -> (DecodedImage, ImageDecoder.Header)? {
        let image = slots.withLock { state -> (DecodedImage, ImageDecoder.Header)? in
            guard var slot = state.items[key] else { return nil }
            slot.usesLeft -= 1
            state.items[key] = slot.usesLeft > 0 ? slot : nil
            return slot.image
        }
        if image != nil { reuses.withLock { $0 += 1 } }
        return image
    }
}
