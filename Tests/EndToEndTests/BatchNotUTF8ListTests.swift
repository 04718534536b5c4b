import Foundation
import Testing
@testable import ImgCore

/// A list line whose bytes are not UTF-8 (a list saved in Latin-1). Before: each such byte became U+FFFD, so
/// `caf\xE9` was requested as `caf%EF%BF%BD`, reported ok, and two lines that differed only in such bytes were one
/// URL and one cache key. Now an http(s) URL carries those bytes as `%XX` escapes (requested, recorded and reported
/// so), a path or file URL that is not UTF-8 fails its line, a JSON Lines line that is not UTF-8 is no JSON, and the
/// other columns read such bytes as U+FFFD.
@Suite("Batch: list lines that are not UTF-8")
struct BatchNotUTF8ListTests {
    /// `imgfetch batch LIST -O out-NAME --keep-query --json --manifest m.jsonl EXTRA`, the list `name` written as
    /// `bytes`: its result and its manifest's records.
    private func run(_ fixture: BatchFixture, _ bytes: [UInt8], name: String,
                     _ extra: [String] = []) throws -> (CommandResult, [[String: Any]]) {
        let list = fixture.root.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: list))
        let manifest = fixture.root.file("m-\(UUID().uuidString).jsonl")
        let result = try Imgfetch.run(["batch", list, "-O", fixture.root.file("out-" + name), "--cache-dir", fixture.cache,
                                       "--no-progress", "--keep-query", "--json", "--manifest", manifest] + extra)
        return (result, try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil })
    }

    /// The bytes of `parts`: strings as UTF-8, arrays of integers as those bytes.
    private func bytes(_ parts: [Any]) -> [UInt8] {
        parts.flatMap { part -> [UInt8] in (part as? String).map { Array($0.utf8) } ?? (part as? [Int] ?? []).map(UInt8.init) }
    }

    @Test func aPlainListsURLKeepsItsBytesAsEscapes() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg?q=caf")
        let list = bytes([url, [0xE9], " a.jpg\n", url, [0xE8], " b.jpg\n", fixture.root.file("caf"), [0xE9], ".jpg\n",
                          url, "%E9 c.jpg\n"])
        let (result, records) = try run(fixture, list, name: "list.txt")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(records.map { $0["status"] as? String } == ["ok", "ok", "failed", "ok"], "\(records)")
        #expect(records.map { $0["url"] as? String } == [url + "%E9", url + "%E8", nil, url + "%E9"])
        let json = try BatchFixture.records(result).filter { $0["summary"] == nil }
        #expect(json.map { $0["url"] as? String } == [url + "%E9", url + "%E8", nil, url + "%E9"])
        // Each line asked for its own bytes: two URLs, two keys (the fourth line's escape is the first line's URL).
        let asked = try fixture.server.recordedRequests().map(\.path).sorted()
        #expect(asked == ["/img/img1.jpg?q=caf%E8", "/img/img1.jpg?q=caf%E9"], "\(asked)")
        let keys = records.map { (($0["outputs"] as? [[String: Any]])?.first?["key"] as? String) }
        #expect(keys[0] != nil && keys[0] != keys[1] && keys[0] == keys[3], "\(keys)")
        // A path names a file by its bytes, which an escape would not: the line fails.
        let message = "the URL is not UTF-8 (only an http or https URL may hold bytes that are not: they are sent as %XX escapes)"
        #expect(result.stderr.contains("line 3: " + message), "\(result.stderr)")
        #expect((records[2]["error"] as? [String: Any])?["message"] as? String == message)
        let written = try FileManager.default.contentsOfDirectory(atPath: fixture.root.file("out-list.txt")).sorted()
        #expect(written == ["a.jpg", "b.jpg", "c.jpg"])
    }

    /// prefetch's `--from` list is read as batch's.
    @Test func prefetchFromAListLikewise() throws {
        let fixture = try BatchFixture(count: 1)
        let list = fixture.root.file("from.txt")
        try Data(bytes([fixture.server.url("/img/img1.jpg?q=caf"), [0xE9], "\n"])).write(to: URL(fileURLWithPath: list))
        let result = try Imgfetch.run(["prefetch", "--from", list, "--cache-dir", fixture.cache, "--keep-query", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try BatchFixture.records(result).first?["url"] as? String == fixture.server.url("/img/img1.jpg?q=caf%E9"))
        #expect(try fixture.server.recordedRequests().map(\.path) == ["/img/img1.jpg?q=caf%E9"])
    }

    @Test func csvAndTSVFieldsAndJSONLines() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg?q=caf")
        let csv = bytes(["url,caption\n\"", url, [0xE9], "\",caf", [0xE9], "\n", url, [0xE8], ",plain\n",
                         "caf", [0xE9], ".jpg,path\n"])
        let (result, records) = try run(fixture, csv, name: "list.csv", ["--keep-columns", "caption"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(records.map { $0["url"] as? String } == [url + "%E9", url + "%E8", nil], "\(records)")
        // A column other than the URL's reads such a byte as U+FFFD, as before.
        #expect((records[0]["columns"] as? [String: String]) == ["caption": "caf\u{FFFD}"])
        #expect(result.stderr.contains("line 4: the URL is not UTF-8"), "\(result.stderr)")
        let tsv = bytes(["url\tcaption\n", url, [0xE7], "\tt\n"])
        let (tabs, tabRecords) = try run(fixture, tsv, name: "list.tsv")
        #expect(tabs.status == 0 && tabRecords.first?["url"] as? String == url + "%E7", "\(tabs.stderr)")
        // JSON text is UTF-8: a line that is not is no JSON, whichever value holds the byte.
        let jsonl = bytes(["{\"url\":\"", url, "\",\"c\":\"", [0xE9], "\"}\n{\"url\":\"", url, "e\"}\n"])
        let (lines, lineRecords) = try run(fixture, jsonl, name: "list.jsonl")
        #expect(lines.status == 1, "\(lines.stderr)")
        #expect(lineRecords.map { $0["status"] as? String } == ["failed", "ok"])
        #expect(lines.stderr.contains("line 1: cannot be read as JSON: it is not UTF-8"), "\(lines.stderr)")
        let asked = try fixture.server.recordedRequests().map(\.path).sorted()
        #expect(asked == ["/img/img1.jpg?q=caf%E7", "/img/img1.jpg?q=caf%E8", "/img/img1.jpg?q=caf%E9",
                          "/img/img1.jpg?q=cafe"], "\(asked)")
    }
}
