import Foundation
import Testing
@testable import ImgCore

/// `batch LIST LIST...`: several lists of one format run as one, lines numbered on through them, each record naming
/// its list and line there; what can't be run together is refused before anything is fetched.
@Suite("Batch: several lists")
struct BatchSeveralListsTests {
    private func run(_ fixture: BatchFixture, _ lists: [String], _ extra: [String]) throws -> CommandResult {
        try Imgfetch.run(["batch"] + lists + ["-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress"] + extra)
    }

    @Test func twoCSVListsMakeOneDatasetWithUniqueKeysAndResumeAsOne() throws {
        let fixture = try BatchFixture(count: 4)
        let url = { (n: Int) in fixture.server.url("/img/img\(n).jpg") }
        let first = try fixture.write("url,caption\n\(url(1)),one\n\(url(2)),two\n\n", to: "a.csv")
        let second = try fixture.write("url,caption\n\(url(3)),three\n,none\n\(url(4)),four\n", to: "b.csv")
        let manifest = fixture.root.file("m.jsonl")
        let options = ["--output-format", "webdataset", "--caption-column", "caption", "--resize", "16x",
                       "--manifest", manifest, "--resume", manifest]
        let result = try run(fixture, [first, second], options + ["--json"])
        let json = try BatchFixture.records(result).filter { $0["summary"] == nil }
        #expect(json.map { $0["line"] as? Int } == [2, 3, 6, 7, 8], "--json names each record's line as the manifest does")
        #expect(json.map { $0["list"] as? String } == [first, first, second, second, second])
        #expect(json.map { $0["listLine"] as? Int } == [2, 3, 2, 3, 4])
        let summary = try #require(try BatchFixture.records(result).last)
        #expect(result.status == 1 && summary["ok"] as? Int == 4 && summary["failed"] as? Int == 1, "\(result.stderr)")
        #expect(result.stderr.contains("line 7 ('\(second)' line 3): no URL in column 'url'"), "\(result.stderr)")
        let records = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }
        #expect(records.map { $0["line"] as? Int } == [2, 3, 6, 7, 8])
        #expect(records.map { $0["list"] as? String } == [first, first, second, second, second])
        #expect(records.map { $0["list_line"] as? Int } == [2, 3, 2, 3, 4])
        let members = try WebDatasetTests.members(fixture.output + "/00000.tar").filter { $0.hasSuffix(".jpg") }
        #expect(members == ["000000002.jpg", "000000003.jpg", "000000006.jpg", "000000008.jpg"])
        let caption = try WebDatasetTests.member("000000006.txt", of: fixture.output + "/00000.tar")
        #expect(String(decoding: caption, as: UTF8.self) == "three")
        // Resumed as one list: nothing requested again, every ok line done earlier.
        let before = try (1...4).map { try fixture.server.requests("/img/img\($0).jpg") }
        let again = try run(fixture, [first, second], options)
        #expect(again.status == 1 && again.stderr.contains("4 done earlier"), "\(again.stderr)")
        #expect(try (1...4).map { try fixture.server.requests("/img/img\($0).jpg") } == before)
    }

    /// A line that fails (not a malformed one) is named on stderr by its list and its line there too.
    @Test func aFailedLineOfSeveralListsNamesItsList() throws {
        let fixture = try BatchFixture(count: 1)
        let first = try fixture.write("url\n\(fixture.server.url("/img/img1.jpg"))\n", to: "a.csv")
        let gone = fixture.server.url("/status/404/gone.jpg")
        let second = try fixture.write("url\n\(gone)\n", to: "b.csv")
        let result = try run(fixture, [first, second], ["--resize", "16x", "--retry", "0"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(gone), line 4 ('\(second)' line 2): HTTP 404"), "\(result.stderr)")
    }

    /// A dataset in Parquet parts built by two array tasks into one folder (`--shard K/2`): each task reads every
    /// part, the tars carry the shard, and the two tasks' samples are every row once, keyed on through the parts.
    @Test(.enabled(if: BatchParquetListTests.enabled, "IMGFETCH_PYREF_PYTHON lacks pyarrow: run through `make test`"))
    func parquetPartsSplitOverTasksMakeOneDatasetWithEveryRowOnce() throws {
        let fixture = try BatchFixture(count: 4)
        let parts = [fixture.root.file("part-00000.parquet"), fixture.root.file("part-00001.parquet")]
        for (index, part) in parts.enumerated() {
            let rows: [[String: Any]] = (1...2).map {
                let number = index * 2 + $0
                return ["URL": fixture.server.url("/img/img\(number).jpg"), "TEXT": "photo \(number)"]
            }
            try BatchParquetListTests.writeParquet(rows, to: part)
        }
        var keys: [String] = []
        for task in 0..<2 {
            let result = try run(fixture, parts, ["--output-format", "webdataset", "--url-column", "URL",
                                                  "--caption-column", "TEXT", "--resize", "16x", "--shard", "\(task)/2"])
            #expect(result.status == 0, "\(result.stderr)")
            let tars = WebDatasetTests.tars(fixture.output).filter { $0.hasPrefix("s000\(task)-") }
            for tar in tars {
                keys += try WebDatasetTests.members(fixture.output + "/" + tar).filter { $0.hasSuffix(".txt") }
            }
        }
        #expect(keys.sorted() == ["000000001.txt", "000000002.txt", "000000003.txt", "000000004.txt"], "\(keys)")
        let tar = try #require(WebDatasetTests.tars(fixture.output).first { tar in
            (try? WebDatasetTests.members(fixture.output + "/" + tar).contains("000000003.txt")) == true
        })
        let caption = try WebDatasetTests.member("000000003.txt", of: fixture.output + "/" + tar)
        #expect(String(decoding: caption, as: UTF8.self) == "photo 3", "the second part's first row")
    }

    /// A folder is the lists in it in name order (`parts/` as `parts/*` sorted), without its subfolders, the files
    /// whose names start with `.` or `_` (Spark's `_SUCCESS`, Hadoop's `.crc` files) and, the format decided by
    /// extension, files of no list's extension (a README); with `--input-format`, every file; none is refused.
    @Test func aFolderIsItsListsInNameOrder() throws {
        let fixture = try BatchFixture(count: 3)
        let url = { (n: Int) in fixture.server.url("/img/img\(n).jpg") }
        let parts = fixture.root.file("parts")
        try FileManager.default.createDirectory(atPath: parts + "/sub", withIntermediateDirectories: true)
        let second = try fixture.write("url\n\(url(3))\n", to: "parts/part-00001.csv")
        let first = try fixture.write("url\n\(url(1))\n\(url(2))\n", to: "parts/part-00000.csv")
        for skipped in ["parts/_SUCCESS", "parts/.part-00000.csv.crc", "parts/sub/part-00002.csv", "parts/README.md"] {
            _ = try fixture.write("not a list\n", to: skipped)
        }
        let result = try run(fixture, [parts], ["--resize", "16x", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try BatchFixture.records(result).filter { $0["summary"] == nil }
        #expect(records.map { $0["list"] as? String } == [first, first, second])
        #expect(records.map { $0["line"] as? Int } == [2, 3, 5])
        let empty = fixture.root.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        _ = try fixture.write("", to: "empty/_SUCCESS")
        // Plain lists as `split` names them, without an extension: read with the format given.
        let split = fixture.root.file("split")
        try FileManager.default.createDirectory(atPath: split, withIntermediateDirectories: true)
        _ = try fixture.write("\(url(1))\n", to: "split/xaa")
        _ = try fixture.write("\(url(2))\n", to: "split/xab")
        let lines = try run(fixture, [split], ["--resize", "16x", "--json", "--input-format", "lines"])
        #expect(try BatchFixture.records(lines).compactMap { $0["list"] as? String } == [split + "/xaa", split + "/xab"])
        let refusals: [([String], String)] = [
            ([empty, "--input-format", "csv"], "list folder '\(empty)' holds no list (names starting with '.' or '_' are skipped)"),
            ([split], "list folder '\(split)' holds no list (no file ending .txt, .csv, .tsv, .jsonl, .ndjson, .parquet; "
                + "names starting with '.' or '_' are skipped)"),
            ([parts, first], "list '\(first)' is given twice"),
        ]
        for (lists, message) in refusals {
            let refused = try Imgfetch.run(["batch"] + lists + ["-O", fixture.root.file("other"), "--no-progress"])
            #expect(refused.status == 2 && refused.stderr.contains(message), "\(lists): \(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.root.file("other")))
    }

    @Test func whatCannotRunTogetherIsExit2BeforeAnyRequest() throws {
        let fixture = try BatchFixture(count: 1)
        let one = fixture.server.url("/img/img1.jpg")
        let csv = try fixture.write("url,caption\n\(one),a\n", to: "a.csv")
        let other = try fixture.write("url\n\(one)\n", to: "b.csv")
        let jsonl = try fixture.write("{\"url\":\"\(one)\"}\n", to: "c.jsonl")
        // The same list under other names: each of its lines would be done twice.
        let dotted = fixture.root.path + "/./a.csv", link = fixture.root.file("link.csv")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: csv)
        let cases: [([String], [String], String)] = [
            ([csv, dotted], [], "list '\(dotted)' is given twice: it is the file '\(csv)' names"),
            ([csv, link], [], "list '\(link)' is given twice: it is the file '\(csv)' names"),
            ([csv, jsonl], [], "lists of different formats: '\(csv)' is csv, '\(jsonl)' is jsonl"),
            ([csv, "-"], [], "standard input (-) can only be batch's one list, not one of 2"),
            ([csv, csv], [], "list '\(csv)' is given twice"),
            ([csv, other], ["--keep-columns", "caption"], "list '\(other)' has no column 'caption' (--keep-columns)"),
            ([csv, fixture.root.file("gone.csv")], [], "cannot read list '\(fixture.root.file("gone.csv"))'"),
        ]
        for (lists, extra, message) in cases {
            let result = try run(fixture, lists, extra)
            #expect(result.status == 2, "\(lists): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(lists): \(result.stderr)")
        }
        #expect(try fixture.server.requests("/img/img1.jpg") == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.output))
    }
}
