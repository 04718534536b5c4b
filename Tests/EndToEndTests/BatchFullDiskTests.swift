import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// A batch into an output folder that fills up: a small tmpfs mounted over `-O DIR` in a mount namespace of the
/// command's own (`unshare -m` as root, `unshare -rm` otherwise), so nothing outside the test sees it.
@Suite("a full output folder stops a batch")
struct BatchFullDiskTests {
    /// `unshare` and `mount` run `imgfetch` with `DIR` replaced by a tmpfs of `kilobytes`.
    private func prefix(mounting kilobytes: Int, at directory: String) -> [String] {
        let namespace = geteuid() == 0 ? "-m" : "-rm"
        return [namespace, "sh", "-c", "mount -t tmpfs -o size=\(kilobytes)k,mode=700 tmpfs \"$0\" && exec \"$@\"", directory, Paths.binary]
    }

    /// `count` copies of one PNG served by a fixture server, and the list of their URLs.
    private func copies(_ count: Int) throws -> (TemporaryDirectory, [String], CacheFixture, String) {
        let root = try TemporaryDirectory()
        let names = (1...count).map { "p\($0).png" }
        for name in names { try FileManager.default.copyItem(atPath: Paths.images + "/rgba.png", toPath: root.file(name)) }
        let fixture = try CacheFixture(root: root.path)
        let list = fixture.home.file("urls.txt")
        try names.map { fixture.server.url("/img/\($0)") }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        return (root, names, fixture, list)
    }

    @Test func aFullOutputFolderStopsTheBatchRecordsTheRestAsNotDoneAndExits7() throws {
        let (root, names, fixture, list) = try copies(40)
        let out = fixture.home.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let manifest = fixture.home.file("m.jsonl")
        // Uncompressed 64 x 64 RGBA TIFFs are 16 KiB each: 64 KiB takes three, not 40.
        let result = try Imgfetch.run(["batch", list, "-O", out, "--resize", "64x64:fill", "--format", "tiff", "-j", "2",
                                       "--manifest", manifest, "--cache-dir", fixture.cache, "--no-auto-clean"],
                                      program: "/usr/bin/unshare", prefix: prefix(mounting: 64, at: out))
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("takes no more (No space left on device)") && result.stderr.contains("--resume"),
                "\(result.stderr)")
        let records = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let lines = records.filter { $0["line"] != nil }
        let ok = lines.filter { $0["status"] as? String == "ok" }.count
        let skipped = lines.filter { $0["status"] as? String == "skipped" }.count
        #expect(lines.allSatisfy { $0["status"] as? String != "failed" }, "no line is called failed: \(lines)")
        // The lines it had started are skipped; those it never started have no record, and are counted as not reached.
        let summary = try #require(records.first { $0["summary"] != nil })
        let notReached = summary["not_reached"] as? Int ?? 0
        #expect(ok > 0 && skipped > 0 && ok + skipped + notReached == names.count,
                "ok \(ok), skipped \(skipped), not reached \(notReached)")
        #expect(result.stderr.contains("\(skipped) \(skipped == 1 ? "line" : "lines") not done, \(notReached) not reached: "),
                "\(result.stderr)")
        // It stopped starting lines: far fewer than all were downloaded.
        let downloads = try names.map { try fixture.requests("/img/\($0)") }.reduce(0, +)
        #expect(downloads < names.count - 5, "\(downloads) downloads")
        #expect(summary["exit"] as? Int == 7)
        withExtendedLifetime(root) {}
    }

    /// A manifest that can't take its next record (its disk full) is left ending with its last whole record, and the
    /// batch stops: what it did next could not be recorded (it went on to the end, the manifest torn mid-record).
    @Test func aFullManifestEndsWithAWholeRecordAndStopsTheBatch() throws {
        let (root, names, fixture, list) = try copies(60)
        let folder = fixture.home.file("records")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let manifest = folder + "/m.jsonl"
        // The manifest is printed from inside the namespace, once imgfetch has ended (-q: it prints nothing else).
        let namespace = geteuid() == 0 ? "-m" : "-rm"
        let script = "mount -t tmpfs -o size=8k,mode=700 tmpfs \"$0\" || exit 99; \"$@\"; status=$?; cat \"$0/m.jsonl\"; exit $status"
        let result = try Imgfetch.run(["batch", list, "-O", fixture.home.file("out"), "--resize", "8x", "-j", "2", "-q",
                                       "--manifest", manifest, "--cache-dir", fixture.cache, "--no-auto-clean"],
                                      program: "/usr/bin/unshare", prefix: [namespace, "sh", "-c", script, folder, Paths.binary])
        #expect(result.status == 7 && result.stderr.contains("cannot write the manifest"), "\(result.stderr)")
        let text = result.stdoutText
        #expect(!text.isEmpty && text.hasSuffix("\n"), "the manifest ends with a whole record: \(text.suffix(200))")
        let records = text.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
        #expect(records.allSatisfy { $0 != nil } && records.count < names.count, "\(records.count) records")
        withExtendedLifetime(root) {}
        let downloads = try names.map { try fixture.requests("/img/\($0)") }.reduce(0, +)
        #expect(downloads < names.count - 5, "\(downloads) downloads: the batch went on")
    }

    @Test func aFullCacheIsOneWarningForTheWholeRun() throws {
        let (root, names, fixture, list) = try copies(6)
        try FileManager.default.createDirectory(atPath: fixture.cache, withIntermediateDirectories: true)
        chmod(fixture.cache, 0o700)
        // A cache with room for its folders and nothing else: every original and variant fails to be written.
        let result = try Imgfetch.run(["batch", list, "-O", fixture.home.file("out"), "--resize", "32x",
                                       "--cache-dir", fixture.cache, "--no-auto-clean"],
                                      program: "/usr/bin/unshare", prefix: prefix(mounting: 4, at: fixture.cache))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.components(separatedBy: "caching failed").count - 1 == 1, "\(result.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: fixture.home.file("out"))) ?? []).count == names.count)
        withExtendedLifetime(root) {}
    }
}
