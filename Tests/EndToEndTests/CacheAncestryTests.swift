import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// A cache directory that another local user could swap (issue #38, item 1). She made a symbolic link to her own
/// 0777 folder, and renamed the folders mid-batch: later lookups read the entries she forged, later entries went
/// into her folder. The directory is opened once, checked from `/` down (sshd's StrictModes), and used through its
/// descriptor only. The tests run as root: "another user" is nobody (uid 65534), by `chown`.
@Suite("The cache directory can't be swapped by another user")
struct CacheAncestryTests {
    static let nobody: uid_t = 65534

    /// Makes a folder (0700 unless told) owned by `owner`.
    private func folder(_ path: String, mode: mode_t = 0o700, owner: uid_t = 0) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(chown(path, owner, owner) == 0)
        #expect(chmod(path, mode) == 0)
    }

    private func fetch(_ fixture: CacheFixture, cache: String, output: String) throws -> CommandResult {
        try Imgfetch.run(["fetch", fixture.server.url("/img/sample.png"), "-o", output, "--cache-dir", cache,
                          "--no-auto-clean"])
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to act as another user"))
    func aCacheDirectoryUnderAFolderAnotherUserCanWriteIsRefusedBeforeAnyFetch() throws {
        let fixture = try CacheFixture()
        let shared = fixture.home.file("shared")
        try folder(shared, mode: 0o777, owner: Self.nobody)
        let output = fixture.home.file("a.png")
        let result = try fetch(fixture, cache: shared + "/cache", output: output)
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("refusing cache directory \(shared)/cache: \(shared) belongs to uid 65534"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(try fixture.requests("/img/sample.png") == 0, "nothing is fetched")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(!FileManager.default.fileExists(atPath: shared + "/cache"), "nothing is made there")
        // The same folder owned by root but writable by everyone, and not sticky.
        #expect(chown(shared, 0, 0) == 0)
        let writable = try fetch(fixture, cache: shared + "/cache", output: output)
        #expect(writable.status == 7, "\(writable.stderr)")
        #expect(writable.stderr.contains("\(shared) is writable by others (mode 777) and not sticky"), "\(writable.stderr)")
        // Cache commands and info are refused alike.
        for arguments in [["cache", "inspect"], ["cache", "clean-expired"], ["cache", "config", "ttl=1d"],
                          ["info", fixture.server.url("/img/sample.png")]] {
            let refused = try Imgfetch.run(arguments + ["--cache-dir", shared + "/cache"])
            #expect(refused.status == 7, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("refusing cache directory"), "\(arguments): \(refused.stderr)")
        }
        #expect(try fixture.requests("/img/sample.png") == 0)
        #expect(!FileManager.default.fileExists(atPath: shared + "/cache"))
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to act as another user"))
    func aSymbolicLinkToAnotherUsersFolderIsRefusedAndSoIsHerLink() throws {
        let fixture = try CacheFixture()
        let hers = fixture.home.file("hers")
        try folder(hers, mode: 0o777, owner: Self.nobody)
        // A link this user made, to her folder: her folder is on the way.
        let link = fixture.home.file("link")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: hers)
        let viaLink = try fetch(fixture, cache: link + "/cache", output: fixture.home.file("a.png"))
        #expect(viaLink.status == 7, "\(viaLink.stderr)")
        #expect(viaLink.stderr.contains("\(hers) belongs to uid 65534"), "\(viaLink.stderr)")
        // Her own link in a sticky folder, to a folder of ours: she may point it elsewhere at any time.
        let sticky = fixture.home.file("sticky")
        try folder(sticky, mode: 0o1777)
        let mine = fixture.home.file("mine")
        try folder(mine)
        try FileManager.default.createSymbolicLink(atPath: sticky + "/link", withDestinationPath: mine)
        #expect(lchown(sticky + "/link", Self.nobody, Self.nobody) == 0)
        let herLink = try fetch(fixture, cache: sticky + "/link/cache", output: fixture.home.file("b.png"))
        #expect(herLink.status == 7, "\(herLink.stderr)")
        #expect(herLink.stderr.contains("\(sticky)/link is a symbolic link owned by uid 65534"), "\(herLink.stderr)")
        #expect(try fixture.requests("/img/sample.png") == 0)
        #expect(!FileManager.default.fileExists(atPath: mine + "/cache"))
    }

    @Test(.enabled(if: geteuid() == 0, "needs root to act as another user"))
    func aStickyFolderAsTmpIsIsAcceptedUnlessAnotherUserOwnsIt() throws {
        let fixture = try CacheFixture()
        let sticky = fixture.home.file("sticky")
        try folder(sticky, mode: 0o1777)
        let accepted = try fetch(fixture, cache: sticky + "/cache", output: fixture.home.file("a.png"))
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(FileManager.default.fileExists(atPath: sticky + "/cache/CACHEDIR.TAG"))
        // Her own sticky folder: as its owner she may still rename what is in it.
        #expect(chown(sticky, Self.nobody, Self.nobody) == 0)
        let refused = try fetch(fixture, cache: sticky + "/cache", output: fixture.home.file("b.png"))
        #expect(refused.status == 7, "\(refused.stderr)")
        #expect(refused.stderr.contains("\(sticky) belongs to uid 65534"), "\(refused.stderr)")
    }

    @Test func aSymbolicLinkOfThisUserOnTheWayIsFollowed() throws {
        let fixture = try CacheFixture()
        let real = fixture.home.file("real")
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.home.file("link"), withDestinationPath: "real")
        let result = try fetch(fixture, cache: fixture.home.file("link/cache"), output: fixture.home.file("a.png"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: real + "/cache/CACHEDIR.TAG"))
    }

    /// The batch's later inputs are in the cache; someone swaps the cache directory's path for a folder of forged
    /// entries (under the same keys, as `--cache-key` makes them) while the first input downloads. The run goes on
    /// in the directory it opened: every output is the real image, and nothing is written into the replacement.
    @Test func swappingTheCacheDirectoryMidRunRedirectsNothing() throws {
        let fixture = try CacheFixture()
        let targets = ["/img/sample.png", "/img/rgba.png", "/img/indexed.png"]
        let forgedImage = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/trans-x.png"))
        for target in targets { try fixture.fetch(target) }
        // The replacement, with an entry for each target's key holding another image.
        let forged = fixture.home.file("forged")
        for target in targets {
            let key = try CacheInspector.originalKey(forInput: fixture.server.url(target), query: .none, cacheKey: nil)
            let made = try Imgfetch.run(["fetch", fixture.server.url("/img/trans-x.png"), "--cache-key", key, "-o",
                                         fixture.home.file("forged-\(UUID().uuidString).png"), "--cache-dir", forged,
                                         "--no-auto-clean"])
            #expect(made.status == 0, "\(made.stderr)")
        }
        let planted = FileState.listing(forged)
        let slow = "/delay/3/cogs.gif"
        let out = fixture.home.file("out")
        let errors = try CapturedOutput()
        defer { errors.remove() }
        let process = try Imgfetch.launch(["fetch", fixture.server.url(slow)] + targets.map(fixture.server.url)
                                          + ["-O", out, "--cache-dir", fixture.cache, "--no-auto-clean"], errors: errors)
        let deadline = Date().addingTimeInterval(20)
        while try fixture.requests(slow) == 0, Date() < deadline { usleep(50_000) }
        #expect(rename(fixture.cache, fixture.home.file("cache.moved")) == 0)
        #expect(rename(forged, fixture.cache) == 0)
        process.waitUntilExit()
        let stderr = String(decoding: try errors.collect(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(stderr)")
        for target in targets {
            let name = (target as NSString).lastPathComponent
            let written = try Data(contentsOf: URL(fileURLWithPath: out + "/" + name))
            let real = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/" + name))
            #expect(written == real, "\(name) is the real image")
            #expect(written != forgedImage, "\(name) is not the forged one")
        }
        #expect(FileState.listing(fixture.cache) == planted, "nothing was written into the replacement")
        let moved = FileState.listing(fixture.home.file("cache.moved")).keys
        #expect(moved.filter { $0.hasSuffix("/original") }.count == targets.count + 1, "the slow input's entry went to the real cache")
    }
}
