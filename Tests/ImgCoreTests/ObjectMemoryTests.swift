import CVips
import Foundation
import Testing
@testable import ImgCore

/// The blocks libvips allocates for an object (`vips_malloc`: a reduce's coefficient tables) are recorded with the
/// object and freed with it (`Sources/CVips/object_memory.c`), rather than through a signal handler each. The test
/// runner exports the stand-in as imgfetch does. Serialized: a test switches the record off for a moment.
@Suite("Object memory", .serialized)
struct ObjectMemoryTests {
    /// A block is zeroed, counted in the object's memory, and freed when the object closes, here with the blocks its
    /// loader took (the loader lives as long as the image it made) when its last reference goes.
    @Test func anObjectsBlocksAreZeroedAndFreedWithIt() throws {
        try VipsRuntime.start()
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        let (given, freed) = (imgf_object_blocks_given(), imgf_object_blocks_freed())
        let image = try #require(data.withUnsafeBytes { imgf_open_buffer($0.baseAddress, $0.count, "") })
        let object = UnsafeMutableRawPointer(image).assumingMemoryBound(to: VipsObject.self)
        let (opened, memory) = (imgf_object_blocks_given(), object.pointee.local_memory)
        let blocks = (0..<3).map { _ in vips_malloc(object, 64)!.assumingMemoryBound(to: UInt8.self) }
        #expect(blocks.allSatisfy { block in (0..<64).allSatisfy { block[$0] == 0 } })
        #expect(imgf_object_blocks_given() - opened == 3 && object.pointee.local_memory - memory == 3 * 64)
        #expect(imgf_object_blocks_freed() == freed)
        g_object_unref(image)
        #expect(imgf_object_blocks_freed() - freed == imgf_object_blocks_given() - given)
    }

    /// An object closed while referenced (as libvips' rewind closes an image to build it again) frees its blocks at
    /// that close, and those it is given afterwards when it goes.
    @Test func anObjectClosedAndKeptFreesItsBlocksAtTheClose() throws {
        try VipsRuntime.start()
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        let image = try #require(data.withUnsafeBytes { imgf_open_buffer($0.baseAddress, $0.count, "") })
        let object = UnsafeMutableRawPointer(image).assumingMemoryBound(to: VipsObject.self)
        let blocks = { (count: Int) in for _ in 0..<count { _ = vips_malloc(object, 32) } }
        let freed = imgf_object_blocks_freed()
        blocks(4)
        g_object_run_dispose(UnsafeMutableRawPointer(image).assumingMemoryBound(to: GObject.self))
        #expect(imgf_object_blocks_freed() - freed >= 4)
        let closed = imgf_object_blocks_freed()
        blocks(2)
        g_object_unref(image)
        #expect(imgf_object_blocks_freed() - closed == 2)
    }

    /// A thumbnail's reduce records its 130 coefficient tables so, and writes the bytes it writes when libvips
    /// connects a handler for each block (`IMGFETCH_OBJECT_MEMORY=libvips`).
    @Test func aThumbnailsReduceRecordsItsTablesAndWritesTheSameBytes() throws {
        try VipsRuntime.start()
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        let render = { () throws(ImgError) -> EncodedImage in
            try Rendering.render(.memory(data), isRemote: true, chain: ProcessingChain.parse("resize(47x47)"),
                                 encoding: OutputEncoding(format: .jpeg), decoding: DecodeOptions(), threads: 1)
        }
        let given = imgf_object_blocks_given()
        let recorded = try render()
        #expect(imgf_object_blocks_given() - given >= 130)
        imgf_object_memory_set(0)
        defer { imgf_object_memory_set(1) }
        let counted = imgf_object_blocks_given()
        let handled = try render()
        #expect(imgf_object_blocks_given() == counted)
        #expect(handled.data == recorded.data && handled.height == 47)
    }
}
