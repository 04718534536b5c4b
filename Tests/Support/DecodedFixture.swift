import CVips
import Foundation
import Testing
@testable import ImgCore

/// Images decoded in this process with libvips, and their pixels, for tests of what a rendering does to them.
enum DecodedFixture {
    /// The image at `path`, opened by libvips from its bytes in memory.
    static func decoded(_ path: String) throws -> DecodedImage {
        try VipsRuntime.start()
        let input = VipsInput.buffer(PinnedBytes(try Data(contentsOf: URL(fileURLWithPath: path))))
        let opened = try #require(input.open(options: ""))
        return DecodedImage(taking: opened, source: input.owner)
    }

    /// Every pixel value of `image`, computed (libvips' raw memory format: bands interleaved, row after row).
    static func pixels(_ image: DecodedImage) throws -> [UInt8] {
        var length = 0
        let block = try #require(imgf_write_to_memory(image.pointer, &length))
        defer { g_free(block) }
        return [UInt8](UnsafeRawBufferPointer(start: block, count: length))
    }
}
