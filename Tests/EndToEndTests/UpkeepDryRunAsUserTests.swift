import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// `cache clean-expired --dry-run` and `cache prune --dry-run` run as an ordinary user (nobody, through `runuser`:
/// permission bits stop it, as they don't stop root) say what the run does: an entry folder the user may not change
/// keeps its entries (and a `tmp/` it may not change, its temporaries), named as not removed and counted by neither
/// (the dry runs promised them all, exit 0, while the run removed the others and exited 7).
@Suite("cache upkeep dry runs as an ordinary user", .serialized, .enabled(if: geteuid() == 0 && NobodyCache.canRun))
struct UpkeepDryRunAsUserTests {
    private func json(_ result: CommandResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText)")
    }

    /// A cache of nobody's with four originals and their variants, kept for `ttl`, and their entry folders.
    private func cache(ttl: String) throws -> (cache: NobodyCache, folders: [String]) {
        let cache = try NobodyCache()
        for file in ["sample.jpg", "rgba.png", "cogs.gif", "1.webp"] {
            let result = try cache.run(["fetch", cache.server.url("/img/\(file)"), "--resize", "20x", "--ttl", ttl,
                                        "-o", cache.home.file("nobody/\(UUID().uuidString).png"), "--no-auto-clean"])
            #expect(result.status == 0, "\(result.stderr)")
        }
        let files = cache.entryFiles()
        #expect(files.count == 8, "\(files)")
        let folders = Array(Set(files.map { ($0 as NSString).deletingLastPathComponent })).sorted()
        return (cache, folders)
    }

    private func failedPaths(_ report: [String: Any]) -> [String] {
        (report["failed"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }.sorted()
    }

    /// The dry run's report and the run's agree on every count, path and failure; the run's failures are the
    /// read-only folder's entries, each once.
    private func expectSame(_ dry: CommandResult, _ run: CommandResult, stuck: [String],
                            fields: [String]) throws {
        #expect(dry.status == 0 && dry.stderr.contains("warning: would not remove "), "\(dry.stderr)")
        #expect(run.status == 7 && run.stderr.contains("warning: could not remove "), "\(run.stderr)")
        let (forecast, done) = (try json(dry), try json(run))
        for field in fields {
            #expect("\(forecast[field] ?? "nil")" == "\(done[field] ?? "nil")", "\(field): \(forecast) \(done)")
        }
        #expect(Set(forecast["paths"] as? [String] ?? []) == Set(done["paths"] as? [String] ?? []), "\(forecast) \(done)")
        #expect(failedPaths(forecast) == stuck.sorted() && failedPaths(done) == stuck.sorted(), "\(forecast) \(done)")
    }

    @Test func aCleanDryRunNamesTheEntriesAReadOnlyFolderKeeps() throws {
        let (cache, folders) = try cache(ttl: "1h")
        try CacheClock.advance(cache.path, by: 7200)
        // And a temporary its writer left, in a tmp/ made read-only.
        let temporary = cache.path + "/tmp/\(try Imgfetch.endedProcessID())-1.tmp"
        try Data(count: 100).write(to: URL(fileURLWithPath: temporary))
        let stuck = cache.entryFiles().filter { $0.hasPrefix(folders[0] + "/") }.map { cache.path + "/entries/" + $0 }
            + [temporary]
        for folder in [cache.path + "/entries/" + folders[0], cache.path + "/tmp"] { #expect(chmod(folder, 0o500) == 0) }
        let text = try cache.run(["cache", "clean-expired", "--temp-age", "0s", "--dry-run"])
        #expect(text.status == 0 && text.stdoutText.hasPrefix("would remove 6 entries, ")
                && text.stdoutText.contains("; 3 would not be removed"), "\(text.stdoutText)")
        let arguments = ["cache", "clean-expired", "--temp-age", "0s", "--json"]
        let dry = try cache.run(arguments + ["--dry-run"])
        let run = try cache.run(arguments)
        try expectSame(dry, run, stuck: stuck, fields: ["entries", "bytes", "temporaries", "locks"])
        #expect(cache.entryFiles().map { cache.path + "/entries/" + $0 } + [temporary] == stuck)
        #expect(FileManager.default.fileExists(atPath: temporary))
    }

    @Test func aPruneDryRunNamesTheEntriesAReadOnlyFolderKeepsAndCountsTheTotalTheyLeave() throws {
        let (cache, folders) = try cache(ttl: "7d")
        // The read-only folder's entries the oldest, a day apart from the next: the prune's cut falls past them.
        let now = Int(Date().timeIntervalSince1970)
        for (index, folder) in folders.enumerated() {
            for file in cache.entryFiles() where file.hasPrefix(folder + "/") {
                var info = stat()
                let path = cache.path + "/entries/" + file
                #expect(lstat(path, &info) == 0)
                let times = [timespec(tv_sec: now - 86_400 * (folders.count - index), tv_nsec: 0), info.st_mtim]
                #expect(utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) == 0)
            }
        }
        let stuck = cache.entryFiles().filter { $0.hasPrefix(folders[0] + "/") }.map { cache.path + "/entries/" + $0 }
        #expect(chmod(cache.path + "/entries/" + folders[0], 0o500) == 0)
        let total = cache.entryFiles().reduce(Int64(0)) { sum, file in
            sum + ((try? FileManager.default.attributesOfItem(atPath: cache.path + "/entries/" + file)[.size] as? Int64) ?? 0)
        }
        let arguments = ["cache", "prune", "--size-limit", String(total - 1), "--json"]
        let dry = try cache.run(arguments + ["--dry-run"])
        let run = try cache.run(arguments)
        try expectSame(dry, run, stuck: stuck, fields: ["entries", "bytes", "remainingBytes", "sizeLimit"])
    }
}
