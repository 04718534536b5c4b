import Foundation
import Testing
@testable import ImgCore

/// A rendering of a fresh download does not open its header again: it uses the header the fetch stage's check read
/// (`ImageDecoder.checkHeader(earlier:)`), judged against the rendering's own limits.
@Suite("Header read once")
struct HeaderReuseTests {
    /// Rendering with the header the fetch stage read does not open the header again: what it read is used (a
    /// header made up here shows through), judged against the rendering's own limits.
    @Test func aRenderingUsesTheHeaderReadBeforeAndJudgesItsLimits() throws {
        try VipsRuntime.start()
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        var input = VipsInput.buffer(PinnedBytes(data))
        var earlier = try ImageDecoder.checkHeader(&input, isRemote: false, options: DecodeOptions())
        #expect(earlier.width == 290 && earlier.frameHeight == 442)
        // The fetch stage's check hands the rendering the whole header.
        let inspected = try InProcessRendering().inspect(.memory(data), for: ImageRequest(source: .file(path: Paths.images + "/sample.jpg")))
        #expect(inspected?.decoded == earlier)
        earlier.width = 291
        let reused = try ImageDecoder.checkHeader(&input, isRemote: false, options: DecodeOptions(), earlier: earlier)
        #expect(reused.width == 291)
        var small = DecodeOptions()
        small.maxPixels = 1000
        #expect(throws: ImgError.self) {
            try ImageDecoder.checkHeader(&input, isRemote: false, options: small, earlier: earlier)
        }
        // A header opened with all frames is opened again for a rendering of the first frame only.
        let gif = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/trans-x.gif"))
        var gifInput = VipsInput.buffer(PinnedBytes(gif))
        var allFrames = try ImageDecoder.checkHeader(&gifInput, isRemote: false, options: DecodeOptions())
        #expect(allFrames.allFramesOpened && allFrames.width == 100)
        allFrames.width = 101
        var firstFrame = DecodeOptions()
        firstFrame.firstFrame = true
        #expect(try ImageDecoder.checkHeader(&gifInput, isRemote: false, options: firstFrame, earlier: allFrames).width == 100)
        #expect(try ImageDecoder.checkHeader(&gifInput, isRemote: false, options: DecodeOptions(), earlier: allFrames).width == 101)
    }
}
