import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// Cleaning, pruning, clearing and removing delete only what imgfetch itself names; a cache directory that is a
/// symbolic link is refused; a FIFO where an entry should be is a miss, not a hang.
@Suite("Cache upkeep touches only its own names")
struct CacheOwnNamesTests {
    private func write(_ path: String, _ text: String = "mine") throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func aCacheDirectoryThatIsASymbolicLinkIsRefusedAndNothingBehindItIsDeleted() throws {
        let fixture = try CacheFixture()
        let elsewhere = fixture.home.file("home-tmp")
        try write(elsewhere + "/tmp/draft.tmp")
        try write(elsewhere + "/tmp/project.removing/notes.txt")
        try FileManager.default.createDirectory(atPath: elsewhere + "/entries", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.cache, withDestinationPath: elsewhere)
        chmod(elsewhere, 0o700)
        for arguments in [["cache", "clean-expired", "--temp-age", "0"], ["cache", "clear"], ["cache", "inspect"]] {
            let result = try fixture.run(arguments)
            #expect(result.status == 7, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
        }
        let fetch = try Imgfetch.run(["fetch", fixture.server.url("/img/sample.png"), "-o", fixture.home.file("a.png"),
                                      "--cache-dir", fixture.cache + "/"])
        #expect(fetch.status == 7, "\(fetch.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.home.file("a.png")))
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/tmp/draft.tmp"))
        #expect(FileManager.default.fileExists(atPath: elsewhere + "/tmp/project.removing/notes.txt"))
    }

    @Test func cleanClearRemoveAndPruneLeaveFilesOfOtherNamesAlone() throws {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg", ["--ttl", "1s", "--resize", "20x"])
        try fixture.fetch("/img/rgba.png")
        let entryFolder = try #require(fixture.entries().first { $0.key.hasSuffix("/original") }.map { ($0.key as NSString).deletingLastPathComponent })
        let foreign = ["tmp/draft.tmp", "tmp/12-34.tmp.bak", "tmp/project.removing/notes.txt", "tmp/1-2.removing/readme",
                       "entries/notes.txt", "entries/ab/readme", "entries/\(entryFolder)/notes.txt", "locks/keep.lock"]
        for name in foreign { try write(fixture.cache + "/" + name) }
        try FileManager.default.createDirectory(atPath: fixture.cache + "/entries/project", withIntermediateDirectories: true)
        // One of imgfetch's own temporaries, of a process that has ended, to show the clean still removes those.
        let ended = try Imgfetch.endedProcessID()
        try write(fixture.cache + "/tmp/\(ended)-1.tmp", "partial")
        try fixture.passTime()
        let cleaned = try fixture.run(["cache", "clean-expired", "--temp-age", "0"])
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.cache + "/tmp/\(ended)-1.tmp"))
        #expect(try fixture.run(["cache", "prune", "--size-limit", "1"]).status == 0)
        #expect(try fixture.run(["cache", "remove", fixture.server.url("/img/rgba.png")]).status == 0)
        try fixture.fetch("/img/cogs.gif")
        let cleared = try fixture.run(["cache", "clear"])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(fixture.entries().keys.allSatisfy { !CacheNames.isEntryFile(($0 as NSString).lastPathComponent) }, "\(fixture.entries().keys)")
        for name in foreign {
            #expect(FileManager.default.fileExists(atPath: fixture.cache + "/" + name), "\(name) was deleted")
        }
        #expect(FileManager.default.fileExists(atPath: fixture.cache + "/entries/project"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.cache + "/tmp").allSatisfy { !$0.hasSuffix(".removing") || $0 == "project.removing" || $0 == "1-2.removing" })
    }

    /// A temporary whose process still runs on this machine is its work in progress: left alone whatever
    /// `--temp-age` says (a clean with `--temp-age 0s` removed a running batch's, which then failed to cache).
    @Test func aRunningProcesssTemporaryIsLeftAlone() throws {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg")
        let (running, ended) = ("tmp/\(getpid())-7.tmp", "tmp/\(try Imgfetch.endedProcessID())-7.tmp")
        for name in [running, ended] { try write(fixture.cache + "/" + name, "partial") }
        let cleaned = try fixture.run(["cache", "clean-expired", "--temp-age", "0"])
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(FileManager.default.fileExists(atPath: fixture.cache + "/" + running))
        #expect(!FileManager.default.fileExists(atPath: fixture.cache + "/" + ended))
    }

    @Test func aFIFOWhereAnEntryShouldBeIsAMissNotAHang() throws {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.png")
        let entries = fixture.entries().filter { !$0.value.isFolder }.keys.map { fixture.cache + "/entries/" + $0 }
        #expect(!entries.isEmpty)
        for path in entries {
            unlink(path)
            #expect(mkfifo(path, 0o600) == 0)
        }
        let output = fixture.home.file("again.png")
        let result = try Imgfetch.run(["fetch", fixture.server.url("/img/sample.png"), "-o", output, "--cache-dir", fixture.cache,
                                       "--no-auto-clean"], program: "/usr/bin/timeout", prefix: ["-s", "KILL", "20", Paths.binary])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try fixture.requests("/img/sample.png") == 2, "the FIFO is a miss: downloaded again")
        for path in entries {
            var info = stat()
            #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG, "the new entry replaced the FIFO")
        }
    }
}
