import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// A directory, symbolic link or FIFO at an entry's name is no entry, but every fetch of its URL fails to cache
/// there: `verify` lists it as damaged and `--repair` removes it (a link, never its target; a directory only when
/// empty), `inspect` counts it, `remove` and `clear` remove it and list it.
@Suite("Cache entries that are not regular files")
struct CacheIrregularEntryTests {
    /// A cache with sample.jpg's original and one variant; their paths, original first.
    private func cache() throws -> (CacheFixture, original: String, variant: String) {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg", ["--resize", "20x"])
        let files = fixture.entries().filter { !$0.value.isFolder }.keys
        let original = try #require(files.first { $0.hasSuffix("/original") })
        let variant = try #require(files.first { $0.hasSuffix(".variant") })
        return (fixture, fixture.cache + "/entries/" + original, fixture.cache + "/entries/" + variant)
    }

    private func isPresent(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    @Test(arguments: ["directory", "full directory", "symbolic link", "FIFO"])
    func verifyListsWhatIsNotARegularFileAndRepairRemovesItSafely(kind: String) throws {
        let (fixture, original, _) = try cache()
        let target = fixture.home.file("target.txt")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: target))
        unlink(original)
        switch kind {
        case "directory": #expect(mkdir(original, 0o700) == 0)
        case "full directory":
            #expect(mkdir(original, 0o700) == 0)
            try Data("x".utf8).write(to: URL(fileURLWithPath: original + "/notes.txt"))
        case "symbolic link": #expect(symlink(target, original) == 0)
        default: #expect(mkfifo(original, 0o600) == 0)
        }
        let inspection = try fixture.inspectJSON()
        #expect(inspection["notRegular"] as? Int == 1, "\(inspection)")
        let items = inspection["items"] as? [[String: Any]] ?? []
        #expect(items.contains { $0["path"] as? String == original && $0["damaged"] as? Bool == true })
        let verify = try fixture.run(["cache", "verify"])
        #expect(verify.status == 8, "\(verify.stdoutText)")
        #expect(verify.stdoutText.contains("damaged: \(original) (not a regular file"), "\(verify.stdoutText)")
        let repair = try fixture.run(["cache", "verify", "--repair"])
        if kind == "full directory" {
            // What a directory holds is not imgfetch's to delete: it stays, and the repair says so.
            #expect(repair.status == 7 && repair.stderr.contains("could not remove \(original)"), "\(repair.stderr)")
            #expect(isPresent(original + "/notes.txt"))
        } else {
            #expect(repair.status == 0, "\(repair.stderr)")
            #expect(repair.stdoutText.contains("removed: \(original)"), "\(repair.stdoutText)")
            #expect(!isPresent(original))
            #expect(try fixture.run(["cache", "verify"]).status == 0)
        }
        #expect(FileManager.default.contents(atPath: target) == Data("keep".utf8), "a link's target is never touched")
    }

    @Test func removeAndClearRemoveAndListALinkAtAnEntrysNameButNotItsTarget() throws {
        let (fixture, original, variant) = try cache()
        let target = fixture.home.file("target.png")
        try Data("keep".utf8).write(to: URL(fileURLWithPath: target))
        unlink(variant)
        #expect(symlink(target, variant) == 0)
        let removed = try fixture.run(["cache", "remove", fixture.server.url("/img/sample.jpg"), "--json"])
        #expect(removed.status == 0, "\(removed.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: removed.stdout) as? [String: Any])
        #expect(Set(report["paths"] as? [String] ?? []) == [original, variant], "\(report)")
        #expect(report["entries"] as? Int == 2)
        #expect(!isPresent(variant) && !isPresent(original))

        let (again, secondOriginal, _) = try cache()
        unlink(secondOriginal)
        #expect(symlink(target, secondOriginal) == 0)
        let dry = try again.run(["cache", "clear", "--dry-run"])
        let cleared = try again.run(["cache", "clear", "--json"])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        let clear = try #require(try JSONSerialization.jsonObject(with: cleared.stdout) as? [String: Any])
        #expect((clear["paths"] as? [String] ?? []).contains(secondOriginal), "\(clear)")
        #expect(dry.stdoutText.hasPrefix("would remove \(clear["entries"] as? Int ?? -1) entries"), "\(dry.stdoutText)")
        #expect(!isPresent(secondOriginal))
        #expect(FileManager.default.contents(atPath: target) == Data("keep".utf8))
    }
}
