import Foundation
import Testing
@testable import ImgCore

/// `imgfetch info`: header facts read from a range of a remote image (widened when the header is longer, the whole
/// body when the server ignores ranges), from the cache with no request, and `--facts` as `fetch --facts` has them.
@Suite("imgfetch info", .serialized)
struct InfoCommandTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

    func info(_ arguments: [String]) throws -> CommandResult {
        try fetch(["info"] + arguments)
    }

    /// The one `--json` record of `info ARGUMENTS --json`, which must succeed.
    func record(_ arguments: [String]) throws -> [String: Any] {
        let run = try info(arguments + ["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], "\(run.stdoutText)")
    }

    static func size(_ relative: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: Paths.images + "/" + relative)[.size] as? Int)
    }

    @Test func aRemoteHeaderIsReadFromOneRangeNotTheWholeFile() throws {
        let size = try Self.size("photos/grass.jpg")
        #expect(size > 65_536)
        let found = try record([server.url("/img/photos/grass.jpg")])
        #expect(found["width"] as? Int == 1024 && found["height"] as? Int == 768)
        #expect(found["format"] as? String == "jpeg")
        #expect(found["httpStatus"] as? Int == 206)
        #expect(found["fileSize"] as? Int == size, "the size comes from Content-Range")
        #expect(found["requests"] as? Int == 1 && found["bytesRead"] as? Int == 65_536)
        #expect(found["cacheState"] as? String == "absent")
        #expect(try server.bytesServed("/img/photos/grass.jpg") == 65_536)
        #expect(try server.bytesServed("/img/photos/grass.jpg") < size)
        #expect(try server.recordedRequests().map { $0.header("Range") } == ["bytes=0-65535"])
        // Nothing is written: no cache entry for what info read.
        #expect(!FileManager.default.fileExists(atPath: cache + "/entries"))
    }

    /// A TIFF whose directory is at its end (at 769,088 of 769,526 bytes): once the first range shows a TIFF without
    /// its directory, the rest is asked for in one request, not in doublings (64, 128, 256, 512 KiB, then the rest).
    @Test func aFormatWhoseHeaderNeedsTheWholeFileAsksForTheRestOnce() throws {
        let found = try record([server.url("/img/sample.tif")])
        #expect(found["format"] as? String == "tiff" && found["requests"] as? Int == 2, "\(found)")
        #expect(try server.recordedRequests().map { $0.header("Range") } == ["bytes=0-65535", "bytes=65536-769525"])
    }

    @Test func aHeaderAfterALargeAppSegmentWidensTheRange() throws {
        // 120 KB of APP11 segments between the EXIF and the frame header (SOF): past the first 64 KiB.
        let size = try Self.size("generated/big-app-segment.jpg")
        let found = try record([server.url("/img/generated/big-app-segment.jpg")])
        #expect(found["width"] as? Int == 800 && found["height"] as? Int == 531)
        #expect(found["requests"] as? Int == 2 && found["httpStatus"] as? Int == 206)
        #expect(try server.recordedRequests().map { $0.header("Range") } == ["bytes=0-65535", "bytes=65536-131071"])
        #expect(try server.bytesServed("/img/generated/big-app-segment.jpg") == 131_072)
        #expect(try server.bytesServed("/img/generated/big-app-segment.jpg") < size)
        // Bounded by --max-bytes: refused as a network error, in one line.
        let bounded = try info([server.url("/img/generated/big-app-segment.jpg"), "--max-bytes", "100K"])
        #expect(bounded.status == 3, "\(bounded.stderr)")
        #expect(bounded.stderr.split(separator: "\n").count == 1 && bounded.stderr.contains("--max-bytes"), "\(bounded.stderr)")
    }

    @Test func aServerThatIgnoresRangesGivesTheWholeBody() throws {
        let size = try Self.size("photos/grass.jpg")
        let found = try record([server.url("/norange/photos/grass.jpg")])
        #expect(found["width"] as? Int == 1024 && found["height"] as? Int == 768)
        #expect(found["httpStatus"] as? Int == 200 && found["requests"] as? Int == 1)
        #expect(found["fileSize"] as? Int == size && found["bytesRead"] as? Int == size)
        #expect(try server.bytesServed("/norange/photos/grass.jpg") == size)
    }

    @Test func aFreshCachedInputIsReadFromTheCacheWithNoRequest() throws {
        let url = server.url("/img/photos/plane.jpg")
        let fetched = try fetch([url, "--resize", "20x", "-o", work.file("plane.jpg")])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let before = try server.requests("/img/photos/plane.jpg")
        let found = try record([url, "-v"])
        #expect(try server.requests("/img/photos/plane.jpg") == before, "info made a request for a cached image")
        #expect(found["cacheState"] as? String == "fresh")
        #expect(found["requests"] as? Int == 0 && found["httpStatus"] == nil)
        #expect(found["width"] as? Int == 800 && found["height"] as? Int == 531)
        #expect(found["fileSize"] as? Int == (try Self.size("photos/plane.jpg")))
        #expect((found["etag"] as? String)?.isEmpty == false && found["contentType"] as? String == "image/jpeg")
        // With --no-cache no cache is read: its state is not known, and left out (it said "absent").
        let uncached = try record([url, "--no-cache"])
        #expect(uncached["cacheState"] == nil && uncached["requests"] as? Int == 1, "\(uncached)")
        let text = try info([url, "--no-cache"])
        #expect(text.status == 0 && text.stdoutText.contains("cache: not read (--no-cache); "), "\(text.stdoutText)")
    }

    @Test func anExpiredCachedInputIsRevalidatedWithoutItsBody() throws {
        let url = server.url("/img/sample.jpg")
        #expect(try fetch([url, "--ttl", "1s", "-o", work.file("s.jpg")]).status == 0)
        try CacheClock.advance(cache, by: 60)
        let served = try server.bytesServed("/img/sample.jpg")
        let found = try record([url])
        #expect(found["cacheState"] as? String == "expired")
        #expect(found["httpStatus"] as? Int == 304 && found["requests"] as? Int == 1)
        #expect(try server.bytesServed("/img/sample.jpg") == served)
        #expect(found["width"] as? Int == 290 && found["height"] as? Int == 442)
    }

    /// A body info had to read whole (a server that ignores Range, a file that ends within the first range) is
    /// cached as fetch caches it, so a later fetch makes no request; a prefix read by ranges is not, nor anything
    /// with --no-cache, and no cache directory is made when nothing is kept.
    @Test func aBodyReadWholeIsCachedAsFetchCachesIt() throws {
        let partial = try info([server.url("/img/photos/grass.jpg")])
        #expect(partial.status == 0, "\(partial.stderr)")
        let uncached = try info([server.url("/norange/photos/plane.jpg"), "--no-cache"])
        #expect(uncached.status == 0, "\(uncached.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cache), "info made the cache directory and kept nothing")

        let whole = try info([server.url("/norange/photos/grass.jpg"), "-v"])
        #expect(whole.status == 0 && whole.stderr.contains("cached the original (read whole)"), "\(whole.stderr)")
        let small = try record([server.url("/img/sample.jpg")]), smallSize = try Self.size("sample.jpg")
        #expect(small["httpStatus"] as? Int == 206 && small["bytesRead"] as? Int == smallSize)
        let before = try server.stats().paths
        for path in ["/norange/photos/grass.jpg", "/img/sample.jpg"] {
            let fetched = try fetch([server.url(path), "--resize", "40x", "-o", work.file("f.jpg")])
            #expect(fetched.status == 0, "\(path): \(fetched.stderr)")
            #expect(try server.requests(path) == before[path], "\(path): fetch made a request for what info read whole")
        }
        let again = try record([server.url("/norange/photos/grass.jpg")])
        #expect(again["cacheState"] as? String == "fresh" && again["requests"] as? Int == 0)
        // What info read by ranges, or with --no-cache, was not kept: fetch downloads it.
        for path in ["/img/photos/grass.jpg", "/norange/photos/plane.jpg"] {
            #expect(try fetch([server.url(path), "--resize", "40x", "-o", work.file("g.jpg")]).status == 0)
            #expect(try server.requests(path) == (before[path] ?? 0) + 1, "\(path) was cached")
        }
        // The entries are whole and in fetch's format.
        let verified = try fetch(["cache", "verify"])
        #expect(verified.status == 0, "\(verified.stdoutText) \(verified.stderr)")
    }

    /// An original read whole is kept only when the cache's size limit allows such an entry, as by every command;
    /// none is made for one it doesn't.
    @Test func anOriginalLargerThanTheLimitAllowsIsNotKept() throws {
        let url = server.url("/norange/sample.jpg")
        let run = try Imgfetch.run(["info", url, "--cache-dir", cache, "-v"], environment: ["IMGFETCH_SIZE_LIMIT": "10K"])
        #expect(run.status == 0 && run.stderr.contains("not cached: an entry of") && run.stderr.contains("larger than the "
                                                                                                       + "cache's size limit"),
                "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cache), "no cache directory made")
        let kept = try info([url, "-v"])
        #expect(kept.status == 0 && kept.stderr.contains("cached the original (read whole)"), "\(kept.stderr)")
    }

    /// A cached original recorded for the same URL with another query (the key drops it) may be another image:
    /// info answers from it as fetch does, and says so as fetch does (a warning, `queryDiffers` and `recordedURL`).
    @Test func anAnswerFromAnotherQuerysEntrySaysSo() throws {
        let recorded = server.url("/by-query/x?img=rgba.png")
        #expect(try fetch([recorded, "-o", work.file("q1.png")]).status == 0)
        let other = server.url("/by-query/x?img=photos/plane.jpg")
        let run = try info([other, "--json"])
        #expect(run.status == 0 && run.stderr.contains("warning: \(other) is served from the cache entry of \(recorded)"),
                "\(run.stderr)")
        let found = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        #expect(found["queryDiffers"] as? Bool == true && found["recordedURL"] as? String == recorded, "\(found)")
        let own = try record([recorded])
        #expect(own["queryDiffers"] == nil && own["recordedURL"] == nil, "\(own)")
    }

    /// info --only-from-cache answers from a cached original, fresh or expired, with no request at all, and fails
    /// with exit 6 in one line for a URL that is not cached (making no cache directory).
    @Test func onlyFromCacheMakesNoRequest() throws {
        let url = server.url("/img/photos/plane.jpg")
        let missing = try info([url, "--only-from-cache"])
        #expect(missing.status == 6, "\(missing.stderr)")
        #expect(missing.stderr.split(separator: "\n").count == 1 && missing.stderr.contains("not in the cache"), "\(missing.stderr)")
        #expect(try server.stats().total == 0, "--only-from-cache made a request")
        #expect(!FileManager.default.fileExists(atPath: cache))

        #expect(try fetch([url, "--ttl", "1s", "-o", work.file("p.jpg")]).status == 0)
        let requests = try server.stats().total
        let fresh = try record([url, "--only-from-cache"])
        #expect(fresh["cacheState"] as? String == "fresh" && fresh["requests"] as? Int == 0)
        try CacheClock.advance(cache, by: 60)
        let expired = try record([url, "--only-from-cache", "-v"])
        #expect(expired["cacheState"] as? String == "expired" && expired["requests"] as? Int == 0)
        #expect(expired["width"] as? Int == 800 && expired["height"] as? Int == 531)
        #expect(try server.stats().total == requests, "--only-from-cache made a request")
        // fetch serves only a fresh entry without the network, and says why it can't here.
        let stale = try fetch([url, "--only-from-cache", "-o", work.file("q.jpg")])
        #expect(stale.status == 6 && stale.stderr.contains("expired in the cache: only a fresh entry is served without the "
                                                            + "network (--only-from-cache)"), "\(stale.stderr)")
        let contradiction = try info([url, "--only-from-cache", "--no-cache"])
        #expect(contradiction.status == 2 && contradiction.stderr.contains("contradict"), "\(contradiction.stderr)")
    }

    @Test func aPrefixTellsWhatTheWholeFileTells() throws {
        // Every format imgfetch writes, larger than the first range, with metadata kept; and a tiled TIFF and an
        // AVIF with a rotation from the fixtures. Read by ranges (/img) and whole (/norange): the same report.
        let root = work.file("served")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for format in ["png", "webp", "tiff", "avif", "heic", "jxl", "gif", "jpeg"] {
            let made = try fetch([Paths.images + "/photos/grass.jpg", "--keep-metadata", "--format", format,
                                  "-o", root + "/big." + format])
            #expect(made.status == 0, "\(format): \(made.stderr)")
        }
        for name in ["sample.tif", "avif-orientation-6.avif"] {
            try FileManager.default.copyItem(atPath: Paths.images + "/" + name, toPath: root + "/" + name)
        }
        let served = try FixtureServer(root: root)
        let perRequest: Set<String> = ["input", "httpStatus", "bytesRead", "requests"]
        for name in try FileManager.default.contentsOfDirectory(atPath: root).sorted() {
            let ranged = try record([served.url("/img/" + name)])
            let whole = try record([served.url("/norange/" + name)])
            #expect(NSDictionary(dictionary: ranged.filter { !perRequest.contains($0.key) })
                    == NSDictionary(dictionary: whole.filter { !perRequest.contains($0.key) }), "\(name): \(ranged) \(whole)")
            let size = try #require(whole["fileSize"] as? Int)
            #expect(size > 65_536, "\(name) fits in the first range")
            // libvips 8.14 reads WebP, HEIF/AVIF, GIF and (its directory at the end) TIFF only whole.
            if ["big.png", "big.jpeg"].contains(name) {
                #expect((ranged["bytesRead"] as? Int ?? .max) < size, "\(name) was read whole")
            }
        }
    }

    @Test func redirectsAreReadToo() throws {
        let redirected = try record([server.url("/redirect/2/photos/grass.jpg")])
        #expect(redirected["httpStatus"] as? Int == 206 && redirected["width"] as? Int == 1024)
        #expect(try server.bytesServed("/redirect/0/photos/grass.jpg") == 65_536, "the range goes to the last hop too")
    }

    @Test func anAnimatedGIFReportsItsFramesLoopAndDelays() throws {
        // moving-square.gif: three frames, -delay 10 (100 ms), -loop 0 (forever); see Tests/Fixtures/README.md.
        let found = try record([server.url("/img/generated/moving-square.gif")])
        #expect(found["frames"] as? Int == 3)
        #expect(found["delays"] as? [Int] == [100, 100, 100])
        #expect(found["loop"] as? Int == 0)
        #expect(found["width"] as? Int == 90 && found["height"] as? Int == 30, "the size is one frame's")
        let text = try info([server.url("/img/generated/moving-square.gif")])
        #expect(text.stdoutText.contains("frames: 3, loop forever, delays 100 100 100 ms"), "\(text.stdoutText)")
        let still = try record([Paths.images + "/sample.png"])
        #expect(still["frames"] as? Int == 1 && still["delays"] == nil && still["loop"] == nil)
    }

    @Test func anOrientationTaggedJPEGReportsBothSizes() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/rotation/6.jpg"))
        let stored = try Rendering.probe(data)
        let found = try record([server.url("/img/rotation/6.jpg")])
        #expect(found["orientation"] as? Int == 6)
        #expect(found["storedWidth"] as? Int == stored.width && found["storedHeight"] as? Int == stored.height)
        #expect(found["width"] as? Int == stored.height && found["height"] as? Int == stored.width)
        let upright = try record([server.url("/img/rotation/1.jpg")])
        #expect(upright["orientation"] as? Int == 1 && upright["width"] as? Int == upright["storedWidth"] as? Int)
    }

    @Test func jsonHasTheDocumentedCamelCaseFields() throws {
        let remote = try record([server.url("/img/sample.jpg")])
        let expected: Set<String> = ["input", "status", "format", "width", "height", "storedWidth", "storedHeight",
                                     "orientation", "frames", "colorSpace", "bitsPerSample", "bands", "hasAlpha",
                                     "hasIccProfile", "iccProfile", "hasExif", "hasXmp", "fileSize", "bytesRead",
                                     "requests", "httpStatus", "contentType", "etag", "lastModified", "cacheState"]
        #expect(Set(remote.keys) == expected)
        #expect(remote["colorSpace"] as? String == "srgb" && remote["bitsPerSample"] as? Int == 8)
        #expect(remote["bands"] as? Int == 3 && remote["hasAlpha"] as? Bool == false)
        #expect(remote["hasExif"] as? Bool == true && remote["hasIccProfile"] as? Bool == true)
        let alpha = try record([Paths.images + "/rgba.png"])
        #expect(alpha["hasAlpha"] as? Bool == true && alpha["format"] as? String == "png")
        #expect(alpha["cacheState"] == nil && alpha["httpStatus"] == nil, "a local file has no HTTP fields")
        let facts = try record([Paths.images + "/sample.png", "--facts"])
        let factFields: Set<String> = ["blurhash", "thumbhash", "dominantColor", "phash"]
        #expect(factFields.isSubset(of: Set(facts.keys)))
        // Every field is listed in the man page's JSON OUTPUT section.
        let man = try String(contentsOfFile: Paths.packageRoot + "/man/imgfetch.1", encoding: .utf8)
        let section = try #require(man.components(separatedBy: ".SH JSON OUTPUT").dropFirst().first?
            .components(separatedBy: "\n.SH ").first)
        for field in expected.union(factFields).union(["loop", "delays"]) {
            #expect(section.contains(field), "\(field) is not in the man page's JSON OUTPUT")
        }
    }

    @Test func factsOnInfoMatchFactsOnFetchOfTheSameImage() throws {
        for name in ["sample.jpg", "rotation/6.jpg", "cogs.gif"] {
            let url = server.url("/img/" + name)
            let facts = ["blurhash", "thumbhash", "dominantColor", "phash"]
            let found = try record([url, "--facts"])
            #expect(found["httpStatus"] as? Int == 200, "--facts reads the whole image")
            let unchanged = try fetch([url, "--facts", "--json", "-o", work.file("unchanged-" + (name as NSString).lastPathComponent)])
            let converted = try fetch([url, "--facts", "--json", "--format", "png", "-o", work.file("c.png")])
            for run in [unchanged, converted] {
                #expect(run.status == 0, "\(run.stderr)")
                let fetched = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
                #expect(facts.map { fetched[$0] as? String } == facts.map { found[$0] as? String }, "\(name)")
                #expect(facts.allSatisfy { fetched[$0] is String })
            }
        }
    }
}
