import Foundation
import Testing

/// A local input that no image can be read from (missing, a folder) fails as it always did (the system's reason,
/// exit 7) without making a cache for it: `IMGFETCH_CACHE_DIR=NEW imgfetch missing.jpg -o out.jpg` left NEW behind,
/// with its folders and tag (an existing empty directory got them too).
@Suite("An unreadable local input makes no cache")
struct UnreadableInputCacheTests {
    let work: TemporaryDirectory

    init() throws { work = try TemporaryDirectory() }

    /// What is in `path` (nil: it does not exist).
    func contents(_ path: String) -> [String]? {
        (try? FileManager.default.contentsOfDirectory(atPath: path))?.sorted()
    }

    @Test func aMissingFileOrAFolderMakesNoCacheDirectory() throws {
        let missing = work.file("missing.jpg")
        let environment = ["IMGFETCH_CACHE_DIR": work.file("x/newcache")]
        let viaVariable = try Imgfetch.run([missing, "-o", work.file("out.jpg")], environment: environment)
        #expect(viaVariable.status == 7 && viaVariable.stdout.isEmpty, "\(viaVariable.stderr)")
        #expect(viaVariable.stderr == "imgfetch: \(missing): No such file or directory [io, exit 7]\n", "\(viaVariable.stderr)")
        #expect(contents(work.file("x")) == nil, "the cache directory was made")

        try FileManager.default.createDirectory(atPath: work.file("folder"), withIntermediateDirectories: false)
        let folder = try Imgfetch.run([work.file("folder"), "-o", work.file("out.jpg"), "--cache-dir", work.file("cache")])
        #expect(folder.status == 7, "\(folder.stderr)")
        #expect(folder.stderr == "imgfetch: \(work.file("folder")): Is a directory [io, exit 7]\n", "\(folder.stderr)")
        #expect(contents(work.file("cache")) == nil, "the cache directory was made")

        // Two of them: each said, exit 1, still no cache; an existing empty directory gets no folders or tag.
        try FileManager.default.createDirectory(atPath: work.file("empty"), withIntermediateDirectories: false)
        let two = try Imgfetch.run([missing, work.file("folder"), "-O", work.file("out"), "--cache-dir", work.file("empty")])
        #expect(two.status == 1 && two.stderr.split(separator: "\n").count == 2, "\(two.stderr)")
        #expect(contents(work.file("empty")) == [], "the cache's folders were made")
        #expect(!FileManager.default.fileExists(atPath: work.file("out.jpg")))
    }

    /// `info` of a missing file and `batch` of a missing list make none either; a readable input beside a missing
    /// one still uses the cache.
    @Test func infoAndBatchMakeNoneAndAReadableInputStillCaches() throws {
        let cache = work.file("cache")
        let info = try Imgfetch.run(["info", work.file("missing.jpg"), "--cache-dir", cache])
        #expect(info.status == 7 && info.stderr.contains("No such file or directory"), "\(info.stderr)")
        let batch = try Imgfetch.run(["batch", work.file("missing.txt"), "-O", work.file("out"), "--cache-dir", cache])
        #expect(batch.status == 2 && batch.stderr.split(separator: "\n").count == 1, "\(batch.stderr)")
        #expect(contents(cache) == nil, "the cache directory was made")

        let mixed = try Imgfetch.run([work.file("missing.jpg"), Paths.images + "/sample.png", "-O", work.file("out"),
                                      "--cache-dir", cache, "--no-auto-clean"])
        #expect(mixed.status == 1 && mixed.stderr.contains("missing.jpg: No such file or directory"), "\(mixed.stderr)")
        #expect(contents(cache)?.contains("entries") == true, "the readable input's cache is there")
    }

    /// A file its user may not read (run as nobody: root reads any file) makes no cache either.
    @Test(.enabled(if: NobodyCache.canRun)) func aFileTheUserMayNotReadMakesNoCache() throws {
        let nobody = try NobodyCache()
        let secret = nobody.home.file("nobody/secret.png")
        try #require(FileManager.default.copyItem(atPath: Paths.images + "/sample.png", toPath: secret) as Void?)
        #expect(chown(secret, 65534, 65534) == 0 && chmod(secret, 0o000) == 0)
        let result = try nobody.run([secret, "-o", nobody.home.file("nobody/out.png")])
        #expect(result.status == 7 && result.stderr.contains("Permission denied"), "\(result.stderr)")
        #expect(contents(nobody.path) == nil, "the cache directory was made")
    }
}
