import Foundation
import Testing
@testable import ImgCore

/// `--sha256-column`: each row's original must have the SHA-256 its list gives (DataComp's lists give one, for
/// img2dataset's `--verify_hash`); a row whose original differs fails and nothing of it is written.
@Suite("Batch: the SHA-256 column")
struct BatchSHA256ColumnTests {
    /// The SHA-256 of the fixture server's images (each a copy of sample.jpg).
    static func sampleDigest() throws -> String {
        Digest.sha256(try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg")))
    }

    /// A matching digest (in either case) is made; another, or a value that is no SHA-256, fails its row, named by
    /// its line; a failed download fails as it would. With `--no-cache` too, the check's download is the one the
    /// outputs are made from: each image is requested once.
    @Test(arguments: [false, true])
    func aRowWhoseOriginalDiffersFailsAndNothingOfItIsWritten(noCache: Bool) throws {
        let fixture = try BatchFixture(count: 4)
        let digest = try Self.sampleDigest()
        let rows = [("img1", digest), ("img2", digest.uppercased()), ("img3", String(repeating: "0", count: 64)),
                    ("img4", "not-a-digest"), ("missing", digest)]
        let csv = "url,sha256\n" + rows.map { "\(fixture.server.url("/img/\($0.0).jpg")),\($0.1)" }.joined(separator: "\n") + "\n"
        let list = fixture.root.file("list.csv")
        try csv.write(toFile: list, atomically: true, encoding: .utf8)
        let manifest = fixture.root.file("m.jsonl")
        let result = try Imgfetch.run(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress",
                                       "--sha256-column", "sha256", "--resize", "24x", "--retry", "0", "--manifest", manifest]
                                      + (noCache ? ["--no-cache"] : []))
        #expect(result.status == 1 && result.stderr.contains("2 ok, 3 failed, 2 files written"), "\(result.stderr)")
        #expect(fixture.outputs() == ["img1.jpg", "img2.jpg"])
        let records = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }
        let messages = records.map { ($0["error"] as? [String: Any])?["message"] as? String ?? "" }
        #expect(records.map { $0["status"] as? String } == ["ok", "ok", "failed", "failed", "failed"])
        #expect(messages[2] == "its SHA-256 is \(digest), not the list's \(String(repeating: "0", count: 64))")
        #expect((records[2]["error"] as? [String: Any])?["class"] as? String == "image")
        #expect(messages[3] == "column 'sha256' holds no SHA-256 (64 hexadecimal digits)" && records[3]["line"] as? Int == 5)
        #expect(messages[4].contains("404"), "\(messages[4])")
        for image in ["img1", "img2", "img3"] {
            #expect(try fixture.server.requests("/img/\(image).jpg") == 1, "\(image) downloaded once")
        }
        #expect(try fixture.server.requests("/img/img4.jpg") == 0, "a row without a digest is not fetched")
    }

    /// The column must be in the list (exit 2 naming the option), the list must have columns, and `prefetch`
    /// makes nothing to check: each is refused before anything is fetched.
    @Test func theColumnIsCheckedBeforeAnythingIsFetched() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg")
        let csv = fixture.root.file("list.csv")
        try "url,hash\n\(url),\(try Self.sampleDigest())\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let base = ["-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress"]
        let missing = try Imgfetch.run(["batch", csv, "--sha256-column", "sha256"] + base)
        #expect(missing.status == 2 && missing.stderr.contains("has no column 'sha256' (--sha256-column); its header has 'url', 'hash'"),
                "\(missing.stderr)")
        let plain = try Imgfetch.run(["batch", try fixture.list([url]), "--sha256-column", "hash"] + base)
        #expect(plain.status == 2 && plain.stderr.contains("--sha256-column needs a list with columns"), "\(plain.stderr)")
        let prefetch = try Imgfetch.run(["prefetch", "--from", csv, "--sha256-column", "hash", "--cache-dir", fixture.cache])
        #expect(prefetch.status == 2 && prefetch.stderr.contains("--sha256-column does not apply to 'prefetch'"), "\(prefetch.stderr)")
        #expect(try fixture.server.stats().paths.isEmpty && fixture.outputs().isEmpty)
        let matching = try Imgfetch.run(["batch", csv, "--sha256-column", "hash"] + base)
        #expect(matching.status == 0 && fixture.outputs() == ["img1.jpg"], "\(matching.stderr)")
    }
}
