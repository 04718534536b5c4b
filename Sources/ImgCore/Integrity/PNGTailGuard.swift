import CVips
import Foundation

/// The bound on a PNG's image data that the decode keeps itself (`Sources/CVips/png_tail_guard.c`): libpng's reads of
/// IDAT bytes after its last row are counted, and past 64 KiB (which inflate to at most 64 MiB) the decode fails,
/// where libpng would inflate whatever data is left in one loop that nothing stops. Where it bounds the decode, the
/// integrity check need not inflate a complete PNG's data beforehand for that bound (`PNGCheck`), which cost every
/// PNG photo its inflating twice; a decode that fails, or that ran while the guard stopped one, is checked again in
/// full, to refuse a bomb as the check did.
enum PNGTailGuard {
    /// Whether this process's PNG decodes are bounded: libvips has read a PNG through the guard (it does once the
    /// program exports the guard's stand-ins and libvips reads PNG with libpng). Until then, the check inflates.
    static var boundsDecodes: Bool { imgf_png_guard_seen() != 0 }

    /// How many decodes the guard has stopped in this process so far; a rendering compares it before and after.
    static var stops: Int { imgf_png_guard_trips() }

    /// The refusal of a PNG decoded while the guard stopped a decode (this one, or another at the same time): the
    /// integrity check inflates its image data whole and finds whether it is a decompression bomb; nil when not.
    static func refusal(input: VipsInput, format: ImageFormat?, options: DecodeOptions) -> ImgError? {
        guard format == .png, boundsDecodes else { return nil }
        let limit = options.maxRenderTime
        let damage = try? PNGCheck.damage(in: input.reader(), timeLimit: limit, deadline: Date() + limit)
        guard let damage = damage ?? nil, damage.undecodable else { return nil }
        return .image(damage.message)
    }
}
