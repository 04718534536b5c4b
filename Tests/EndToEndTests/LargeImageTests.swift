import Foundation
import Testing
@testable import ImgCore

/// Bodies over `EncodedBytes.memoryLimit` are spooled to a file as they arrive, checked and decoded from the file,
/// and cached by copying the file: the process never holds them whole.
@Suite("Large images", .serialized)
struct LargeImageTests {
    let work: TemporaryDirectory
    let server: FixtureServer
    var cache: String { work.file("cache") }
    /// 6000x6000 RGB: a 108 MB file that decodes to 108 MB of pixels.
    static let side = 6000
    var pngPath: String { work.file("www/large.png") }

    init() throws {
        work = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: work.file("www"), withIntermediateDirectories: true)
        try StoredPNG.write(width: Self.side, height: Self.side, to: work.file("www/large.png"))
        server = try FixtureServer(root: work.file("www"))
    }

    /// Runs imgfetch under a Python parent and returns its exit status and peak RSS in KiB.
    func measured(_ arguments: [String]) throws -> (status: Int, peakKiB: Int) {
        let result = try Imgfetch.run(["-c", """
            import resource, subprocess, sys
            r = subprocess.run(sys.argv[1:], stderr=subprocess.PIPE)
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.returncode)
            """, Paths.binary] + arguments, program: "/usr/bin/env", prefix: ["python3"])
        let fields = result.stdoutText.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard fields.count == 2 else { throw TestFailure("no measurement: \(result.stdoutText) \(result.stderr)") }
        return (fields[1], fields[0])
    }

    /// Every file left in the cache's tmp/.
    func temporaries() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: cache + "/tmp")) ?? [] }

    @Test(arguments: [true, false])
    func peakMemoryStaysFarBelowTheImage(cached: Bool) throws {
        let fileSize = try #require(try FileManager.default.attributesOfItem(atPath: pngPath)[.size] as? Int)
        #expect(fileSize > 100_000_000)
        let caching = cached ? ["--cache-dir", cache] : ["--no-cache"]
        // The same process on a small image: what libvips and the runtime take whatever the input.
        let baseline = try measured([Paths.images + "/sample.png", "--resize", "200x200", "-o", work.file("small.jpg"), "--no-cache"])
        let large = try measured([server.url("/img/large.png"), "--resize", "200x200", "--max-bytes", "1G",
                                  "-o", work.file("out.jpg")] + caching)
        #expect(baseline.status == 0 && large.status == 0)
        // Holding the body once would add 105 MiB, and decoding it whole as much again.
        #expect(large.peakKiB - baseline.peakKiB < 50 * 1024, "peak \(large.peakKiB) KiB, baseline \(baseline.peakKiB) KiB")
        let output = try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: work.file("out.jpg"))))
        #expect(output.width == 200 && output.height == 200)
        #expect(temporaries().isEmpty)
    }

    @Test func aCachedLargeOriginalServesLaterVariantsAndStaysWhole() throws {
        let url = server.url("/img/large.png")
        let first = try Imgfetch.run([url, "--resize", "200x200", "--max-bytes", "1G", "-o", work.file("a.jpg"), "--cache-dir", cache])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try Imgfetch.run([url, "--resize", "100x100", "--max-bytes", "1G", "-o", work.file("b.png"),
                                       "--cache-dir", cache, "-v"])
        #expect(second.status == 0 && second.stderr.contains(": disk-original,"), "\(second.stderr)")
        #expect(try server.requests("/img/large.png") == 1)
        #expect(try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: work.file("b.png")))).width == 100)
        #expect(temporaries().isEmpty)

        // The entry is the ordinary self-describing format, whole and checkable by CacheEntryFile.
        let disk = try DiskCache(directory: cache)
        let key = try #require(CacheKey.original(for: URL(string: url)!))
        let path = disk.originalPath(originalKey: key)
        let original = try Data(contentsOf: URL(fileURLWithPath: pngPath))
        let (metadata, body) = try #require(CacheEntryFile.decode(try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(body == original)
        #expect(metadata.size == original.count && metadata.xxh3 == Digest.integrity(original))
        #expect(metadata.kind == .original && metadata.format == "png" && metadata.width == Self.side)

        // Read in place, it comes back as a region of the entry file, checked by streaming.
        guard case .fresh(let found, .file(let region)) = disk.lookup(at: path, key: key, inPlace: true) else {
            Issue.record("a large original should be read in place")
            return
        }
        #expect(found == metadata && region.count == original.count && region.readAll() == original)

        // A damaged body is caught by the streamed check, removed, and downloaded again.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(region.offset) + 50_000_000)
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(region.offset) + 50_000_000)
        try handle.write(contentsOf: Data([byte ^ 0x01]))
        try handle.close()
        guard case .missing = disk.lookup(at: path, key: key, inPlace: true) else {
            Issue.record("a damaged large original must not be served")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let third = try Imgfetch.run([url, "--resize", "50x50", "--max-bytes", "1G", "-o", work.file("c.jpg"), "--cache-dir", cache, "-v"])
        #expect(third.status == 0 && third.stderr.contains(": network,"), "\(third.stderr)")
        #expect(try server.requests("/img/large.png") == 2)
    }

    @Test func largeBrokenFilesAreRefusedFromTheStreamedChecks() throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: pngPath))
        try original.prefix(original.count / 2).write(to: URL(fileURLWithPath: work.file("www/cut.png")))
        var flipped = original
        flipped[original.count / 2] ^= 0x01
        try flipped.write(to: URL(fileURLWithPath: work.file("www/flipped.png")))
        for (name, complaint) in [("cut.png", "truncated"), ("flipped.png", "checksum")] {
            let result = try Imgfetch.run([server.url("/img/\(name)"), "--max-bytes", "1G", "--resize", "100x100",
                                           "-o", work.file("x.jpg"), "--cache-dir", cache])
            #expect(result.status == 5 && result.stderr.contains(complaint), "\(name): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: work.file("x.jpg")))
        }
        #expect((FileManager.default.subpaths(atPath: cache + "/entries") ?? []).filter { $0.hasSuffix("original") }.isEmpty)
        #expect(temporaries().isEmpty)
    }

    @Test func largeJPEGsShrinkOnLoadFromTheNetworkLocalFilesAndStandardInput() throws {
        // Noise at quality 100 stays large: a 3000x3000 JPEG of about 20 MB.
        let noise = try Data(contentsOf: URL(fileURLWithPath: work.file("www/large.png")))
        var options = DecodeOptions()
        options.maxPixels = .max
        let small = try Rendering.render(.memory(noise), isRemote: false, chain: try ProcessingChain.parse("crop(3000x3000)"),
                                             encoding: OutputEncoding(format: .jpeg, quality: 100), decoding: options)
        try #require(small.data.count > EncodedBytes.memoryLimit)
        try small.data.write(to: URL(fileURLWithPath: work.file("www/large.jpg")))
        for input in [server.url("/img/large.jpg"), work.file("www/large.jpg"), "-"] {
            let result = try Imgfetch.run([input, "--resize", "300x200", "--max-bytes", "1G", "-o", work.file("j.jpg"), "--no-cache"],
                                          stdin: input == "-" ? small.data : nil)
            #expect(result.status == 0, "\(input): \(result.stderr)")
            let probe = try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: work.file("j.jpg"))))
            #expect(probe.width == 200 && probe.height == 200, "\(input)")
        }
    }
}
