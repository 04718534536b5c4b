import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

@Suite("one cache entry for one result, and hits that say whose entry served them")
struct TrueKeyTests {
    private func variantFiles(_ fixture: CacheFixture) -> [String] {
        fixture.entries().keys.filter { $0.hasSuffix(".variant") }.sorted()
    }

    @Test func aResultInTheSourceFormatSharesItsEntryWithTheSameFormatNamed() throws {
        let fixture = try CacheFixture()
        let folder = fixture.home.file("thumbs")
        // -O keeps the source format (JPEG): its variant is stored under the key of the encoding it has.
        let first = try fixture.run(["fetch", fixture.server.url("/img/sample.jpg"), "-O", folder, "--resize", "20x",
                                     "--no-auto-clean", "-v"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("@jpeg(q=85,bg=#ffffff)"), "\(first.stderr)")
        let named = try fixture.run(["fetch", fixture.server.url("/img/sample.jpg"), "-o", fixture.home.file("x.jpg"),
                                     "--resize", "20x", "--no-auto-clean", "-v"])
        #expect(named.status == 0, "\(named.stderr)")
        #expect(named.stderr.contains(": disk, jpeg"), "served from the entry -O made: \(named.stderr)")
        #expect(named.stderr.contains("libvips: not started"), "\(named.stderr)")
        #expect(variantFiles(fixture).count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.home.file("x.jpg")))
                == Data(contentsOf: URL(fileURLWithPath: folder + "/sample.jpg")))
        #expect(try fixture.requests("/img/sample.jpg") == 1)
    }

    @Test func aBatchServesAFetchThatNamedTheFormatAndBackAgain() throws {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/rgba.png", ["--resize", "16x", "--format", "png"])
        let list = fixture.home.file("urls.txt")
        try (fixture.server.url("/img/rgba.png") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try fixture.run(["batch", list, "-O", fixture.home.file("out"), "--resize", "16x", "--json",
                                     "--no-auto-clean"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(batch.stdoutText.contains("\"source\":\"disk\""), "\(batch.stdoutText)")
        #expect(variantFiles(fixture).count == 1)
    }

    @Test func aHitRecordedForAnotherQueryWarnsOnceAndSaysSo() throws {
        let fixture = try CacheFixture()
        let first = try fixture.run(["fetch", fixture.server.url("/img/sample.jpg?img=a.jpg"), "-o", fixture.home.file("a.jpg"),
                                     "--no-auto-clean"])
        #expect(first.status == 0, "\(first.stderr)")
        let output = fixture.home.file("b.jpg")
        let second = try fixture.run(["fetch", fixture.server.url("/img/sample.jpg?img=b.jpg"), "-o", output, "-q", "--json",
                                      "--no-auto-clean"])
        #expect(second.status == 0, "\(second.stderr)")
        let warnings = second.stderr.components(separatedBy: "is served from the cache entry of").count - 1
        #expect(warnings == 1, "one warning, with -q too: \(second.stderr)")
        #expect(second.stderr.contains("--keep-query"), "\(second.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: second.stdout) as? [String: Any])
        #expect(record["queryDiffers"] as? Bool == true)
        #expect(record["recordedURL"] as? String == fixture.server.url("/img/sample.jpg?img=a.jpg"))
        // -v says it too; the same query is no warning; --keep-query is another key, so no hit and no warning.
        let verbose = try fixture.run(["fetch", fixture.server.url("/img/sample.jpg?img=c.jpg"), "-o", output, "-v",
                                       "--no-auto-clean"])
        #expect(verbose.stderr.contains("note: served from the cache entry of"), "\(verbose.stderr)")
        let same = try fixture.run(["fetch", fixture.server.url("/img/sample.jpg?img=a.jpg"), "-o", output, "--no-auto-clean"])
        #expect(!same.stderr.contains("served from"), "\(same.stderr)")
        let kept = try fixture.run(["fetch", fixture.server.url("/img/sample.jpg?img=b.jpg"), "-o", output, "--keep-query",
                                    "--no-auto-clean"])
        #expect(kept.status == 0 && !kept.stderr.contains("served from"), "\(kept.stderr)")
    }

    @Test func aBatchWarnsOncePerKeyForEntriesRecordedWithAnotherQuery() throws {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg?v=1", ["--resize", "20x"])
        let list = fixture.home.file("urls.txt")
        let lines = ["?v=2", "?v=3"].map { fixture.server.url("/img/sample.jpg" + $0) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try fixture.run(["batch", list, "-O", fixture.home.file("out"), "--resize", "20x", "-q",
                                     "--manifest", fixture.home.file("m.jsonl"), "--no-auto-clean"])
        // One warning for the key: the two lines of this run differ in the query too, which the run's own watch names.
        #expect(batch.stderr.components(separatedBy: "warning:").count - 1 == 1, "\(batch.stderr)")
        #expect(batch.stderr.contains("--keep-query"), "\(batch.stderr)")
        let manifest = try String(contentsOfFile: fixture.home.file("m.jsonl"), encoding: .utf8)
        #expect(manifest.components(separatedBy: "\"query_differs\":true").count - 1 == 2, "\(manifest)")
    }

    /// Two lines whose URLs differ in the query only share one download (their key drops it): the line that did
    /// not make the download says whose it was (it said it came from the network, from its own URL).
    @Test func aLineServedByAnotherQuerysDownloadSaysSo() throws {
        let fixture = try CacheFixture()
        let list = fixture.home.file("urls.txt")
        let lines = ["?delay=0.02", "?delay=0.03"].map { fixture.server.url("/slow/sample.jpg" + $0) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try fixture.run(["batch", list, "-O", fixture.home.file("out"), "--resize", "20x", "-j", "2", "--json",
                                     "--no-auto-clean"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(try fixture.server.requests("/slow/sample.jpg") == 1)
        let records = try BatchFixture.records(batch).filter { $0["summary"] == nil }
        let served = records.filter { $0["queryDiffers"] as? Bool == true }
        #expect(served.count == 1, "\(records)")
        let other = lines.first { $0 != served.first?["url"] as? String }
        #expect(served.first?["recordedURL"] as? String == other, "\(records)")
    }
}
