import CVips
import Foundation
import Glibc
import Testing
@testable import ImgCore

/// glibc's malloc as `VipsRuntime.prepareProcess` sets it: blocks of `mallocMappedBlockBytes` or more get a mapping
/// of their own every time, also after such a block was freed (glibc's default raises the threshold to the largest
/// block freed, and the next one of that size would stay in an arena, kept after its `free`).
/// Whether a block is mapped is read from its chunk header (glibc's `IS_MMAPPED` bit in the size word before the
/// block), which other tests' threads cannot disturb.
@Suite("Malloc tuning")
struct MallocTuningTests {
    static func isMapped(_ block: UnsafeMutableRawPointer) -> Bool {
        let sizeWord = block.load(fromByteOffset: -MemoryLayout<Int>.size, as: UInt.self)
        return sizeWord & 0x2 != 0
    }

    @Test func largeBlocksStayMappedAfterOneIsFreed() throws {
        imgf_tune_malloc(Int32(VipsRuntime.mallocArenas), Int32(VipsRuntime.mallocMappedBlockBytes))
        for round in 0..<3 {
            let large = try #require(malloc(4 << 20))
            #expect(Self.isMapped(large), "round \(round): a 4 MiB block comes from an arena")
            free(large)
        }
        let atThreshold = try #require(malloc(VipsRuntime.mallocMappedBlockBytes))
        #expect(Self.isMapped(atThreshold))
        free(atThreshold)
        let belowThreshold = try #require(malloc(VipsRuntime.mallocMappedBlockBytes / 4))
        #expect(!Self.isMapped(belowThreshold))
        free(belowThreshold)
    }
}
