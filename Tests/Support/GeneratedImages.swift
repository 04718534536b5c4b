import CVips
import Foundation
@testable import ImgCore

/// Large test images made with libvips at test time: one colour, so they compress to little on disk.
enum GeneratedImages {
    /// Writes a `width`×`height` image of one colour with libvips' saver for `suffix` (".jpg[Q=75,interlace]",
    /// ".png[interlace]") to `path`.
    static func writeFlat(width: Int, height: Int, suffix: String, to path: String) throws {
        try VipsRuntime.start()
        var drawing = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(height)"><rect width="100%" height="100%" fill="rgb(200,120,40)"/></svg>"#.utf8)
        var rendered: UnsafeMutablePointer<VipsImage>?
        guard imgf_svg_buffer(&drawing, drawing.count, &rendered) == 0, let rendered else {
            throw TestFailure("cannot draw: \(VipsRuntime.takeError())")
        }
        let large = try DecodedImage(taking: rendered).derive("colour bands") { imgf_extract_bands($0, $1, 0, 3) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard imgf_write_to_buffer(large.pointer, suffix, &buffer, &length) == 0, let buffer else {
            throw TestFailure("cannot write \(suffix): \(VipsRuntime.takeError())")
        }
        defer { g_free(buffer) }
        try Data(bytes: buffer, count: length).write(to: URL(fileURLWithPath: path))
    }

    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }
}
