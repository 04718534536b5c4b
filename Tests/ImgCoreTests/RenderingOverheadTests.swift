import CVips
import Foundation
import Testing
@testable import ImgCore

/// What a rendering costs beside its pixels: libvips' operation cache, which keeps nothing, is skipped
/// (`Sources/CVips/operation_build.c`), libvips' vector programs reuse the code compiled for a program of the
/// same content (`Sources/CVips/orc_code_cache.c`), a rendering on one thread is written by one libvips thread
/// rather than libvips' thread pool (`Sources/CVips/sink_disc.c`), and the loader and saver searches are answered
/// again for the same bytes and name (`Sources/CVips/loader_search.c`, `saver_search.c`), and an object's arguments
/// are read without libvips' global lock (`Sources/CVips/argument_lookup.c`), with the same bytes out. The test
/// runner exports the stand-ins as imgfetch does. Serialized: tests switch the one-thread sink off for a moment.
@Suite("Rendering overhead", .serialized)
struct RenderingOverheadTests {
    static func render(_ data: Data, size: Int, format: ImageFormat = .png, threads: Int? = nil,
                       chain: String? = nil, decoding: DecodeOptions = DecodeOptions(),
                       stop: RenderStop? = nil) throws(ImgError) -> EncodedImage {
        try Rendering.render(.memory(data), isRemote: true,
                             chain: ProcessingChain.parse(chain ?? "resize(\(size)x\(size))"),
                             encoding: OutputEncoding(format: format), decoding: decoding, stop: stop, threads: threads)
    }

    static func sample() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
    }

    /// A thumbnail builds a dozen or more libvips operations (its loaders, the resize and its reducers, the saver),
    /// each without the cache's look-up, insertion and trim.
    @Test func libvipsBuildsARenderingsOperationsWithoutItsCache() throws {
        try VipsRuntime.start()
        let data = try Self.sample()
        let before = imgf_operations_built_directly()
        let image = try Self.render(data, size: 41, format: .jpeg)
        #expect(image.height == 41)
        #expect(imgf_operations_built_directly() - before >= 10)
    }

    /// A rendering reads its operations' arguments (hundreds of look-ups) from their tables without libvips' global
    /// lock, and renderings on four threads at once write the bytes one rendering alone writes, as does one whose
    /// look-ups all take the lock (`IMGFETCH_ARGUMENT_LOOKUP=libvips`).
    @Test func renderingsReadTheirArgumentsWithoutTheGlobalLockAndWriteTheSameBytes() async throws {
        try VipsRuntime.start()
        let data = try Self.sample()
        let before = imgf_arguments_read_directly()
        let alone = try Self.render(data, size: 45, format: .jpeg, threads: 1)
        #expect(imgf_arguments_read_directly() - before >= 100)
        let together = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try (0..<5).map { _ in try Self.render(data, size: 45, format: .jpeg, threads: 1).data }.last!
                }
            }
            return try await group.reduce(into: [Data]()) { $0.append($1) }
        }
        #expect(together.count == 4 && together.allSatisfy { $0 == alone.data })
        imgf_arguments_read_directly_set(0)
        let counted = imgf_arguments_read_directly()
        let locked = try Self.render(data, size: 45, format: .jpeg, threads: 1)
        imgf_arguments_read_directly_set(1)
        #expect(imgf_arguments_read_directly() == counted && locked.data == alone.data)
    }

    /// A second rendering at one size is given the vector code compiled for the first, and writes the same bytes,
    /// with a rendering at another size (other programs) between them.
    @Test func aRenderingAgainReusesItsVectorCodeAndWritesTheSameBytes() throws {
        try VipsRuntime.start()
        #expect(VipsRuntime.vectorPath == .serialised)
        let data = try Self.sample()
        let first = try Self.render(data, size: 37)
        let other = try Self.render(data, size: 53)
        let before = imgf_orc_reused_compiles()
        let again = try Self.render(data, size: 37)
        #expect(imgf_orc_reused_compiles() > before)
        #expect(again.data == first.data)
        #expect(other.height == 53 && other.data != first.data)
    }

    /// A rendering on one thread (each of a batch's) is computed and written by one libvips thread, with the bytes
    /// libvips' thread pool writes, in each format and with a processor that reads around each pixel.
    @Test(arguments: [(ImageFormat.jpeg, "resize(77x77)"), (.png, "resize(90x60,fill)|>blur(1.5)"),
                      (.webp, "resize(64x64)|>round(9)")])
    func aRenderingOnOneThreadIsWrittenByOneThreadWithTheSameBytes(format: ImageFormat, chain: String) throws {
        try VipsRuntime.start()
        let data = try Self.sample()
        let before = imgf_sinks_in_one_thread()
        let here = try Self.render(data, size: 0, format: format, threads: 1, chain: chain)
        #expect(imgf_sinks_in_one_thread() > before)
        imgf_sink_in_one_thread_set(0)
        let pooled = try Self.render(data, size: 0, format: format, threads: 1, chain: chain)
        imgf_sink_in_one_thread_set(1)
        #expect(!here.data.isEmpty && here.data == pooled.data)
    }

    /// Renderings on one thread each, four at a time, write the bytes libvips' pool writes. Computed in the calling
    /// thread (not a libvips one), a blurred GIF with alpha lost pixels of its first row in 3 to 16 of them.
    @Test(arguments: ["dispose-background.gif", "cogs.gif"])
    func renderingsOnOneThreadEachFourAtATimeWriteThePoolsBytes(input: String) async throws {
        try VipsRuntime.start()
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/" + input))
        imgf_sink_in_one_thread_set(0)
        let pooled = try Self.render(data, size: 0, threads: 1, chain: "blur(1)")
        imgf_sink_in_one_thread_set(1)
        let before = imgf_sinks_in_one_thread()
        let together = try await withThrowingTaskGroup(of: [Data].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    try (0..<8).map { _ in try Self.render(data, size: 0, threads: 1, chain: "blur(1)").data }
                }
            }
            return try await group.reduce(into: [Data]()) { $0 += $1 }
        }
        #expect(imgf_sinks_in_one_thread() - before >= 32)
        #expect(together.count == 32)
        #expect(together.filter { $0 != pooled.data }.count == 0)
    }

    /// A rendering written by one libvips thread stops past `--max-render-time`, and when its `RenderStop` is
    /// stopped from another thread, as one in libvips' pool does (each computes for minutes otherwise).
    @Test func aRenderingOnOneThreadStopsWhenKilled() throws {
        try VipsRuntime.start()
        let data = try Self.sample()
        let slow = "resize(6000x6000,fit,upscale)|>blur(40)"
        var short = DecodeOptions()
        short.maxRenderTime = 0.3
        let before = imgf_sinks_in_one_thread()
        var started = Date()
        #expect(throws: RenderClock(seconds: 0.3).expiredError) {
            try Self.render(data, size: 0, threads: 1, chain: slow, decoding: short)
        }
        #expect(imgf_sinks_in_one_thread() > before)
        #expect(Date().timeIntervalSince(started) < 20)

        let stop = RenderStop()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { stop.stop() }
        started = Date()
        #expect(throws: ImgError.self) { try Self.render(data, size: 0, threads: 1, chain: slow, stop: stop) }
        #expect(Date().timeIntervalSince(started) < 20)
    }

    /// A rendering's loader searches after its first are answered from it (the header check's open, the thumbnail's
    /// load: a JPEG's thumbnail of fewer objects searches once, `vips_thumbnail_buffer` twice), and other bytes get
    /// their own answer.
    @Test func aRenderingsLoaderSearchesAreAnsweredAgainForTheSameBytes() throws {
        try VipsRuntime.start()
        let data = try Self.sample()
        let jpeg = PinnedBytes(data)
        let png = PinnedBytes(try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.png")))
        let before = imgf_loader_searches_answered_again()
        let image = try Self.render(data, size: 47, threads: 1)
        #expect(image.height == 47)
        #expect(imgf_loader_searches_answered_again() - before >= 2)
        func loader(_ bytes: PinnedBytes) -> String? { imgf_find_load_buffer(bytes.pointer, bytes.count).map { String(cString: $0) } }
        #expect(loader(jpeg) == "VipsForeignLoadJpegBuffer")
        #expect(loader(png) == "VipsForeignLoadPngBuffer")
        #expect(loader(jpeg) == "VipsForeignLoadJpegBuffer")
    }

    /// The loader search made of the loaders' own checks in libvips' order answers as libvips' own search, for every
    /// fixture (every format imgfetch reads, PngSuite's and Pillow's odd and broken files, text that is no image).
    @Test func theLoaderSearchInOrderAnswersAsLibvips() throws {
        try VipsRuntime.start()
        let names = FileManager.default.enumerator(atPath: Paths.fixtures)?.compactMap { $0 as? String } ?? []
        let before = imgf_loader_searches_in_order()
        var searched = 0, found = 0
        for name in names.sorted() {
            guard let data = FileManager.default.contents(atPath: Paths.fixtures + "/" + name), !data.isEmpty else { continue }
            let bytes = PinnedBytes(data)
            // In a scope of its own, as a rendering's libvips work is: a search that fails sets libvips' error, which
            // must not reach the messages of renderings other tests run at the same time.
            let (theirs, ours) = try VipsErrorScope.run({ () throws(ImgError) in
                (imgf_libvips_find_load_buffer(bytes.pointer, bytes.count).map { String(cString: $0) },
                 imgf_find_load_buffer(bytes.pointer, bytes.count).map { String(cString: $0) })
            }, rerunnable: { _ in false })
            #expect(ours == theirs, "\(name)")
            searched += 1
            if theirs != nil { found += 1 }
        }
        #expect(searched > 600 && found > 550, "\(searched) searched, \(found) found")
        // Files of the same bytes one after the other are answered again from the first.
        #expect(imgf_loader_searches_in_order() - before > searched * 9 / 10)
    }

    /// A rendering's saver search for a name searched before on its thread is answered from it, and every name gets
    /// libvips' own answer.
    @Test func aSaverSearchIsAnsweredAgainForTheSameName() throws {
        try VipsRuntime.start()
        let data = try Self.sample()
        _ = try Self.render(data, size: 31, format: .webp, threads: 1)
        let before = imgf_saver_searches_answered_again()
        #expect(try Self.render(data, size: 33, format: .webp, threads: 1).height == 33)
        #expect(imgf_saver_searches_answered_again() > before)
        let libvips = try #require(imgf_vips().pointee.vips_foreign_find_save_target)
        for name in [".jpg[Q=80,strip]", ".png", ".webp[Q=70]", ".jpg[Q=80,strip]", ".gif", ".png"] {
            let answer = vips_foreign_find_save_target(name).map { String(cString: $0) }
            #expect(answer != nil && answer == libvips(name).map { String(cString: $0) }, "\(name)")
        }
    }
}
