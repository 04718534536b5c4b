import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// `cache clear` run as an ordinary user (nobody, through `runuser`: permission bits stop it, as they don't stop
/// root): an entry folder it may not change stays where it was, named by its real path, and seen by `inspect` and
/// the next `clear`; a cache directory it may not write to is cleared one entry folder at a time.
@Suite("cache clear as an ordinary user", .serialized, .enabled(if: geteuid() == 0 && NobodyCache.canRun))
struct CacheClearAsUserTests {
    @Test func anEntryFolderThatCannotBeEmptiedStaysVisibleAndIsNamedWhereItIs() throws {
        let cache = try NobodyCache()
        try cache.fetch("/img/sample.jpg")
        try cache.fetch("/img/rgba.png")
        let keys = cache.entryFiles()
        let stuck = try #require(keys.first { $0.hasSuffix("/original") })
        let folder = (stuck as NSString).deletingLastPathComponent
        let inFolder = keys.filter { $0.hasPrefix(folder + "/") }
        // The entry folder and its XX/ folder read-only: nothing in it can be removed, nor the folder moved.
        for path in [folder, (folder as NSString).deletingLastPathComponent] { #expect(chmod(cache.path + "/entries/" + path, 0o500) == 0) }
        let cleared = try cache.run(["cache", "clear", "--json"])
        #expect(cleared.status == 7, "\(cleared.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: cleared.stdout) as? [String: Any])
        let failed = (document["failed"] as? [[String: String]] ?? []).compactMap { $0["path"] }
        #expect(Set(failed) == Set(inFolder.map { cache.path + "/entries/" + $0 }), "\(failed)")
        #expect(document["entries"] as? Int == keys.count - inFolder.count)
        #expect(cache.entryFiles() == inFolder, "what could not be removed is where it was")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache.path + "/tmp")) ?? []).isEmpty)
        let inspection = try cache.run(["cache", "inspect", "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: inspection.stdout) as? [String: Any])
        #expect(summary["entries"] as? Int == inFolder.count, "\(summary)")
        let again = try cache.run(["cache", "clear"])
        #expect(again.status == 7 && again.stdoutText.contains("\(inFolder.count) could not be removed"), "\(again.stdoutText)")
        let cleaned = try cache.run(["cache", "clean-expired", "--temp-age", "0s", "--json"])
        let counts = try #require(try JSONSerialization.jsonObject(with: cleaned.stdout) as? [String: Any])
        #expect(counts["temporaries"] as? Int == 0, "\(counts)")
    }

    @Test func aReadOnlyCacheDirectoryIsClearedAsItsDryRunSaid() throws {
        let cache = try NobodyCache()
        for path in ["/img/sample.jpg", "/img/rgba.png", "/img/cogs.gif"] { try cache.fetch(path) }
        let count = cache.entryFiles().count
        #expect(chmod(cache.path, 0o500) == 0)
        defer { chmod(cache.path, 0o700) }
        let dry = try cache.run(["cache", "clear", "--dry-run"])
        #expect(dry.status == 0 && dry.stdoutText.hasPrefix("would remove \(count) entries"), "\(dry.stdoutText)")
        let cleared = try cache.run(["cache", "clear"])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(cleared.stdoutText.hasPrefix("removed \(count) entries"), "\(cleared.stdoutText)")
        #expect(cache.entryFiles().isEmpty)
    }
}

/// A cache directory of the user nobody, and imgfetch run as nobody (`runuser`) against it and a fixture server.
final class NobodyCache: @unchecked Sendable { // paths only; used by one test at a time
    static let user = "nobody"
    let server: FixtureServer
    let home: TemporaryDirectory
    var path: String { home.file("nobody/cache") }

    /// Whether `runuser` can run the built binary as nobody (it must reach the binary and its libraries).
    static let canRun: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/runuser"),
              let result = try? Imgfetch.run(["--version"], program: "/usr/sbin/runuser", prefix: ["-u", user, "--", Paths.binary]) else {
            return false
        }
        return result.status == 0
    }()

    init() throws {
        server = try FixtureServer()
        home = try TemporaryDirectory()
        let own = home.file("nobody")
        try FileManager.default.createDirectory(atPath: own, withIntermediateDirectories: true)
        try #require(chown(own, 65534, 65534) == 0 && chmod(own, 0o700) == 0)
    }

    /// Runs `imgfetch ARGUMENTS --cache-dir CACHE` as nobody.
    func run(_ arguments: [String]) throws -> CommandResult {
        try Imgfetch.run(arguments + ["--cache-dir", path], program: "/usr/sbin/runuser",
                         prefix: ["-u", Self.user, "--", Paths.binary])
    }

    /// Fetches `/img/PATH`, resized (an original and a variant), to a file of nobody's, without auto clean.
    func fetch(_ file: String) throws {
        let result = try run(["fetch", server.url(file), "--resize", "20x", "-o", home.file("nobody/\(UUID().uuidString).png"),
                              "--no-auto-clean"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// The entry files, relative to `entries/`, sorted.
    func entryFiles() -> [String] {
        FileState.listing(path + "/entries").filter { !$0.value.isFolder }.keys
            .filter { $0.hasSuffix("/original") || $0.hasSuffix(".variant") }.sorted()
    }
}
