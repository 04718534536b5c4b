import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// A folder whose files can't be removed for as long as the value lives: `chattr +i` as root (whom permission bits
/// don't stop), else mode 0555.
private final class UnremovableFolder {
    let path: String
    private let asRoot = geteuid() == 0

    init(_ path: String) throws {
        self.path = path
        if asRoot {
            let status = try Self.shell(["chattr", "+i", path])
            try #require(status == 0, "chattr +i \(path) failed: the file system must support it")
        } else {
            try #require(chmod(path, 0o555) == 0)
        }
    }

    deinit {
        if asRoot { _ = try? Self.shell(["chattr", "-i", path]) } else { chmod(path, 0o700) }
    }

    private static func shell(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite("upkeep reports what it really removed")
struct UpkeepFailureTests {
    /// The entry files (not their folders), relative to `entries/`, sorted.
    private func entryFiles(_ fixture: CacheFixture) -> [String] {
        fixture.entries().keys.filter { $0.hasSuffix("/original") || $0.hasSuffix(".variant") }.sorted()
    }

    /// A cache with one image's original and variant in one entry folder that can't be changed.
    private func lockedCache() throws -> (CacheFixture, UnremovableFolder, [String]) {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg")
        let keys = entryFiles(fixture)
        try #require(keys.count == 2)
        let folder = fixture.cache + "/entries/" + (keys[0] as NSString).deletingLastPathComponent
        return (fixture, try UnremovableFolder(folder), keys)
    }

    @Test func cacheRemoveThatCouldNotRemoveSaysSoAndExits7() throws {
        let (fixture, folder, keys) = try lockedCache()
        _ = folder
        let result = try fixture.run(["cache", "remove", fixture.server.url("/img/sample.jpg")])
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stdoutText.hasPrefix("removed 0 entries"), "\(result.stdoutText)")
        #expect(result.stderr.contains("warning: could not remove \(folder.path)"), "\(result.stderr)")
        #expect(entryFiles(fixture) == keys)
    }

    @Test func cacheClearListsEachEntryItCouldNotRemove() throws {
        let (fixture, folder, keys) = try lockedCache()
        try fixture.fetch("/img/rgba.png")
        let result = try fixture.run(["cache", "clear", "--json"])
        #expect(result.status == 7, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(document["entries"] as? Int == 2, "only rgba.png's two entries were removed: \(document)")
        let failed = document["failed"] as? [[String: String]] ?? []
        #expect(Set(failed.compactMap { $0["path"] }) == Set(keys.map { fixture.cache + "/entries/" + $0 }))
        #expect(failed.allSatisfy { ($0["error"] ?? "").isEmpty == false })
        for key in keys { #expect(result.stderr.contains("warning: could not remove \(fixture.cache)/entries/\(key)")) }
        // What could not be removed is where it was; nothing is left in tmp/.
        #expect(entryFiles(fixture) == keys)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: fixture.cache + "/tmp")) ?? []).isEmpty)
        _ = folder
    }

    @Test func cachePruneThatCouldNotRemoveExits7() throws {
        let (fixture, folder, keys) = try lockedCache()
        let result = try fixture.run(["cache", "prune", "--size-limit", "1K"])
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stdoutText.contains("removed 0 entries") && result.stdoutText.contains("2 could not be removed"),
                "\(result.stdoutText)")
        #expect(result.stderr.components(separatedBy: "warning: could not remove").count == 3, "\(result.stderr)")
        #expect(entryFiles(fixture) == keys)
        _ = folder
    }

    @Test func cleanExpiredCountsOnlyWhatItRemoved() throws {
        // Entries past their expiry (a TTL of one second, then a minute), as a cron job finds them.
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg", ["--ttl", "1s"])
        try fixture.passTime()
        let keys = entryFiles(fixture)
        let folder = try UnremovableFolder(fixture.cache + "/entries/" + (keys[0] as NSString).deletingLastPathComponent)
        let result = try fixture.run(["cache", "clean-expired", "--json"])
        #expect(result.status == 7, "\(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(document["entries"] as? Int == 0)
        #expect((document["failed"] as? [Any])?.count == 2)
        #expect(entryFiles(fixture) == keys)
        _ = folder
    }

    @Test func verifyRepairThatCouldNotRemoveExits7() throws {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg")
        let keys = entryFiles(fixture)
        let original = try #require(keys.first { $0.hasSuffix("/original") })
        let handle = try #require(FileHandle(forUpdatingAtPath: fixture.cache + "/entries/" + original))
        handle.seekToEndOfFile()
        handle.write(Data([0x00]))
        handle.closeFile()
        let folder = try UnremovableFolder(fixture.cache + "/entries/" + (original as NSString).deletingLastPathComponent)
        let result = try fixture.run(["cache", "verify", "--repair"])
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("warning: could not remove \(fixture.cache)/entries/\(original)"), "\(result.stderr)")
        #expect(result.stdoutText.contains("damaged: "), "\(result.stdoutText)")
        _ = folder
    }

    /// A lock file of an earlier version (`locks/<hash>.lock`) left a minute ago by a killed process.
    private func staleLock(_ fixture: CacheFixture, _ name: String) throws -> String {
        let path = fixture.cache + "/locks/" + Digest.sha256(name) + ".lock"
        try Data().write(to: URL(fileURLWithPath: path))
        let old = EntryIO.timespecOf(Date().timeIntervalSince1970 - 60)
        #expect(utimensat(AT_FDCWD, path, [old, old], 0) == 0)
        return path
    }

    /// The stale lock files clean removes are among its paths (`--json`, `-v`), in a dry run too: `"locks":1` came
    /// with `"paths":[]`, though the man page says `paths` has every path removed.
    @Test func cleanExpiredListsTheLockFilesItRemoved() throws {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg")
        let locks = [try staleLock(fixture, "one"), try staleLock(fixture, "two")].sorted()
        let arguments = ["cache", "clean-expired", "--temp-age", "1s"]
        for dryRun in [true, false] {
            let json = try fixture.run(arguments + ["--json"] + (dryRun ? ["--dry-run"] : []))
            let document = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
            #expect(document["locks"] as? Int == 2 && (document["paths"] as? [String])?.sorted() == locks, "\(document)")
            #expect(FileManager.default.fileExists(atPath: locks[0]) == dryRun)
        }
        let again = try staleLock(fixture, "three")
        for dryRun in [true, false] {
            let verbose = try fixture.run(arguments + ["-v"] + (dryRun ? ["--dry-run"] : []))
            #expect(verbose.status == 0 && verbose.stdoutText.split(separator: "\n").first.map(String.init) == again
                    && verbose.stdoutText.contains("; 1 stale lock file"), "\(verbose.stdoutText)")
        }
        #expect(!FileManager.default.fileExists(atPath: again))
    }

    /// A stale lock file whose folder can't be changed stays, and is named as not removed (exit 7), in the dry run
    /// as in the run: the run counted it as removed.
    @Test func cleanExpiredCountsOnlyTheLockFilesItRemoved() throws {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg")
        let lock = try staleLock(fixture, "one")
        let folder = try UnremovableFolder(fixture.cache + "/locks")
        for dryRun in [true, false] {
            let result = try fixture.run(["cache", "clean-expired", "--temp-age", "1s", "--json"] + (dryRun ? ["--dry-run"] : []))
            #expect(result.status == (dryRun ? 0 : 7), "\(result.stderr)")
            #expect(result.stderr.contains("warning: \(dryRun ? "would not" : "could not") remove \(lock)"), "\(result.stderr)")
            let document = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
            #expect(document["locks"] as? Int == 0 && (document["paths"] as? [String]) == [], "\(document)")
            #expect((document["failed"] as? [[String: String]])?.compactMap { $0["path"] } == [lock], "\(document)")
        }
        #expect(FileManager.default.fileExists(atPath: lock))
        _ = folder
    }
}
