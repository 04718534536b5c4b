import Foundation
import Testing
@testable import ImgCore

/// Lists with columns: CSV (RFC 4180), TSV and JSON Lines, read by `--url-column`, `--name-column` and
/// `--keep-columns`; bad rows fail naming their line, a column no row has is exit 2 before any request.
@Suite("Batch: lists with columns")
struct BatchColumnListTests {
    private func run(_ fixture: BatchFixture, _ list: String, _ extra: [String], stdin: Data? = nil) throws -> CommandResult {
        try Imgfetch.run(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress"] + extra,
                         stdin: stdin)
    }

    @Test func csvFieldsAreReadAsRFC4180SaysAndKeptColumnsReachTheRecords() throws {
        let fixture = try BatchFixture(count: 3)
        let (one, two) = (fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/img2.jpg"))
        let csv = "url,caption,key\r\n\"\(one)\",\"a, \"\"quoted\"\"\r\nsecond line\",first\r\n\r\n\(two),plain,second\r\n"
        let list = try fixture.write(csv, to: "list.csv")
        let manifest = fixture.root.file("m.jsonl")
        let result = try run(fixture, list, ["--name-column", "key", "--keep-columns", "caption", "--manifest", manifest, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.outputs() == ["first.jpg", "second.jpg"])
        let records = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }
        #expect(records.map { $0["line"] as? Int } == [2, 5])
        // The line break inside the quoted field is kept as written (CR LF), as Python's csv module reads it.
        #expect((records[0]["columns"] as? [String: String]) == ["caption": "a, \"quoted\"\r\nsecond line"])
        #expect((records[1]["columns"] as? [String: String]) == ["caption": "plain"])
        #expect(records[0]["url"] as? String == one)
        let json = try BatchFixture.records(result).filter { $0["summary"] == nil }
        #expect((json[1]["columns"] as? [String: String]) == ["caption": "plain"])
        #expect(json.map { $0["line"] as? Int } == [2, 5], "--json names each record's line as the manifest does")
    }

    @Test func badRowsFailNamingTheirLineAndTheBatchGoesOn() throws {
        let fixture = try BatchFixture(count: 2)
        let one = fixture.server.url("/img/img1.jpg")
        let csv = "url,caption\n,no url\n\"\(one)\"x,after quote\n\(one),a,b\n\"unclosed,z\n\(fixture.server.url("/img/img2.jpg")),last\n"
        let manifest = fixture.root.file("m.jsonl")
        let result = try run(fixture, try fixture.write(csv, to: "bad.csv"),
                             ["--keep-columns", "caption", "--manifest", manifest, "--json"])
        #expect(result.status == 1, "\(result.stderr)")
        for expected in ["line 2: no URL in column 'url'", "line 3: text after the closing quote of field 1",
                         "line 4: 3 fields where the header has 2", "line 5: a quoted field is not closed"] {
            #expect(result.stderr.contains(expected), "\(expected): \(result.stderr)")
        }
        let records = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }
        #expect(records.map { $0["status"] as? String } == ["failed", "failed", "failed", "failed", "ok"])
        #expect(records.map { $0["line"] as? Int } == [2, 3, 4, 5, 6])
        #expect(try BatchFixture.records(result).compactMap { $0["line"] as? Int } == [2, 3, 4, 5, 6])
        #expect(records[0]["raw"] as? String == ",no url" && records[0]["url"] == nil)
        #expect(fixture.outputs() == ["img2.jpg"])
    }

    @Test func jsonLinesKeepTheirValuesAsGiven() throws {
        let fixture = try BatchFixture(count: 1)
        let one = fixture.server.url("/img/img1.jpg")
        let jsonl = "{\"url\":\"\(one)\",\"meta\":{\"n\":3,\"r\":2.5,\"ok\":true,\"tags\":[\"a\",null]}}\n[1]\n{\"link\":\"x\"}\n"
            + "{\"url\":\"\(one)\",\"meta\":1e400}\n{\"url\":\"\(one)\",\"meta\":\"\\ud800\"}\n"
        let manifest = fixture.root.file("m.jsonl")
        let result = try run(fixture, try fixture.write(jsonl, to: "list.ndjson"), ["--keep-columns", "meta", "--manifest", manifest])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("line 2: not a JSON object: an array"), "\(result.stderr)")
        #expect(result.stderr.contains("line 3: no column 'url'"), "\(result.stderr)")
        // An object whose value can't be read says why, not that it is no object.
        #expect(result.stderr.contains("line 4: cannot be read as JSON: Number 1e400 is not representable"), "\(result.stderr)")
        #expect(result.stderr.contains("line 5: cannot be read as JSON: "), "\(result.stderr)")
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        #expect(text.contains(#""columns":{"meta":{"n":3,"ok":true,"r":2.5,"tags":["a",null]}}"#), "\(text)")
    }

    @Test func tsvOnStandardInputReadsOnAfterItsHeader() throws {
        let fixture = try BatchFixture(count: 1)
        let tsv = "\nurl\tcaption\n\(fixture.server.url("/img/img1.jpg"))\thello\tworld\n"
        let manifest = fixture.root.file("m.jsonl")
        let result = try run(fixture, "-", ["--input-format", "tsv", "--keep-columns", "caption", "--manifest", manifest],
                             stdin: Data(tsv.utf8))
        // A row with three fields where the header has two, on line 3 (the blank line and the header count).
        #expect(result.stderr.contains("line 3: 3 fields where the header has 2"), "\(result.stderr)")
        let good = "url\tcaption\n\(fixture.server.url("/img/img1.jpg"))\thello world\n"
        let again = try run(fixture, "-", ["--input-format", "tsv", "--keep-columns", "caption", "--manifest", manifest],
                            stdin: Data(good.utf8))
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try String(contentsOfFile: manifest, encoding: .utf8).contains(#""columns":{"caption":"hello world"},"line":2"#))
    }

    @Test func aColumnNoRowHasIsExit2BeforeAnyRequest() throws {
        let fixture = try BatchFixture(count: 1)
        let one = fixture.server.url("/img/img1.jpg")
        let manifest = fixture.root.file("m.jsonl")
        let csv = try fixture.write("url,caption\n\(one),a\n", to: "list.csv")
        let jsonl = try fixture.write("{\"url\":\"\(one)\"}\n{\"url\":\"\(one)\",\"other\":\"caption\"}\n", to: "list.jsonl")
        let cases: [(String, [String], String, Data?)] = [
            (csv, ["--keep-columns", "caption,text"], "has no column 'text' (--keep-columns)", nil),
            (csv, ["--url-column", "link"], "has no column 'link' (--url-column)", nil),
            (jsonl, ["--keep-columns", "caption"], "has no column 'caption' (--keep-columns): no row has it", nil),
            ("-", ["--input-format", "csv", "--name-column", "key"], "has no column 'key' (--name-column)", Data("url\n\(one)\n".utf8)),
        ]
        for (list, extra, message, stdin) in cases {
            let result = try run(fixture, list, extra + ["--manifest", manifest], stdin: stdin)
            #expect(result.status == 2, "\(extra): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(extra): \(result.stderr)")
        }
        #expect(try fixture.server.requests("/img/img1.jpg") == 0)
        #expect(!FileManager.default.fileExists(atPath: manifest))
        // A kept column some row has is fine: the rows without it fail, naming their line.
        let some = try run(fixture, jsonl, ["--keep-columns", "other"])
        #expect(some.status == 1 && some.stderr.contains("line 1: no column 'other' (--keep-columns)"), "\(some.stderr)")
    }

    @Test func columnOptionsNeedAListWithColumns() throws {
        let fixture = try BatchFixture(count: 1)
        let result = try fixture.batch([fixture.server.url("/img/img1.jpg")], ["--keep-columns", "caption"])
        #expect(result.status == 2 && result.stderr.contains("--keep-columns needs a list with columns"), "\(result.stderr)")
        let bad = try fixture.batch([fixture.server.url("/img/img1.jpg")], ["--input-format", "xml"])
        #expect(bad.status == 2 && bad.stderr.contains("bad --input-format 'xml'"), "\(bad.stderr)")
        let info = try Imgfetch.run(["info", fixture.server.url("/img/img1.jpg"), "--url-column", "u"])
        #expect(info.status == 2 && info.stderr.contains("does not apply to 'info'"), "\(info.stderr)")
    }

    @Test func delimitedRecordsSpanLines() {
        var parser = DelimitedRecordParser(delimiter: 0x2C)
        #expect(parser.feed("a,\"b") == .incomplete)
        #expect(parser.feed("c\"\"d\",e\r") == .complete(["a", "b\nc\"d", "e"]))
        #expect(parser.feed("x\"y,,\"\"") == .complete(["x\"y", "", ""]))
        var tabs = DelimitedRecordParser(delimiter: 0x09)
        #expect(tabs.feed("a,b\t\"c\td\"") == .complete(["a,b", "c\td"]))
        // A line break inside quotes is kept as written: CR LF or LF; the record's own line end is not kept.
        #expect(parser.feed("\"one\r") == .incomplete)
        #expect(parser.feed("two\r") == .incomplete)
        #expect(parser.feed("three\",x\r") == .complete(["one\r\ntwo\r\nthree", "x"]))
        #expect(ListRowReader.asWritten(["\"one\r", "two\",x\r"]) == "\"one\r\ntwo\",x")
    }

    /// Text after a closing quote names the field it follows, counted from 1 across the record's lines.
    @Test func textAfterAClosingQuoteNamesItsField() throws {
        var parser = DelimitedRecordParser(delimiter: 0x2C)
        #expect(parser.feed("1,2,\"3\"x,http://h/a.jpg") == .malformed("text after the closing quote of field 3"))
        #expect(parser.feed("1,2,3,\"http://h/a.jpg\"x") == .malformed("text after the closing quote of field 4"))
        #expect(parser.feed("\"a\"b,c") == .malformed("text after the closing quote of field 1"))
        #expect(parser.feed("a,\"b") == .incomplete)
        #expect(parser.feed("c\"d,e") == .malformed("text after the closing quote of field 2"))
        #expect(parser.feed("a,b") == .complete(["a", "b"]), "a malformed record leaves nothing behind")
        // As the batch says it, by the row's line.
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg")
        let csv = "a,b,c,link\n1,2,\"3\"x,\(url)\n1,2,3,\"\(url)\"x\n"
        let result = try run(fixture, try fixture.write(csv, to: "fields.csv"), ["--url-column", "link"])
        #expect(result.status == 1, "\(result.stderr)")
        for expected in ["line 2: text after the closing quote of field 3", "line 3: text after the closing quote of field 4"] {
            #expect(result.stderr.contains(expected), "\(expected): \(result.stderr)")
        }
    }
}

/// `--min-size` and `--max-aspect-ratio`: an original outside them is `filtered`, nothing of it written.
@Suite("Batch: size filters")
struct BatchSizeFilterTests {
    @Test func originalsOutsideTheFiltersAreFilteredAndNotWritten() throws {
        let fixture = try BatchFixture(count: 2)
        // sample.jpg is 290x442.
        let lines = [fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/img2.jpg")]
        let manifest = fixture.root.file("m.jsonl")
        let result = try fixture.batch(lines, ["--min-size", "300x100", "--manifest", manifest, "--json", "--resize", "50x"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.outputs().isEmpty)
        let records = try JSONLines.objects(inFile: manifest)
        #expect(records.filter { $0["summary"] == nil }.map { $0["status"] as? String } == ["filtered", "filtered"])
        #expect(records[0]["reason"] as? String == "original 290x442 is smaller than 300x100")
        #expect((records[0]["original"] as? [String: Int]) == ["width": 290, "height": 442])
        #expect(records.last?["filtered"] as? Int == 2 && records.last?["ok"] as? Int == 0)
        let json = try BatchFixture.records(result)
        #expect(json[0]["status"] as? String == "filtered" && json.last?["filtered"] as? Int == 2)
        // From the cache now (the variant's entry): the size still decides.
        let ratio = try fixture.batch(lines, ["--max-aspect-ratio", "1.6", "--resize", "50x", "--json"])
        #expect(try BatchFixture.records(ratio).first?["status"] as? String == "ok", "\(ratio.stdoutText)")
        let tight = try fixture.batch(lines, ["--max-aspect-ratio", "1.2", "--resize", "50x", "--json"])
        let first = try #require(try BatchFixture.records(tight).first)
        #expect(first["status"] as? String == "filtered" && (first["reason"] as? String)?.contains("aspect ratio of 1.52, over 1.2") == true,
                "\(tight.stdoutText)")
        let text = try fixture.batch(lines, ["--min-size", "291x1"])
        #expect(text.status == 0 && text.stderr.contains("0 ok, 0 failed, 2 filtered"), "\(text.stderr)")
        let passing = try fixture.batch(lines, ["--min-size", "290x442"])
        #expect(passing.status == 0 && fixture.outputs().count == 2, "\(passing.stderr)")
        let bad = try fixture.batch(lines, ["--min-size", "64"])
        #expect(bad.status == 2 && bad.stderr.contains("bad --min-size '64'"), "\(bad.stderr)")
        let prefetch = try Imgfetch.run(["prefetch", lines[0], "--min-size", "1x1"])
        #expect(prefetch.status == 2 && prefetch.stderr.contains("does not apply to 'prefetch'"), "\(prefetch.stderr)")
    }

    /// The filter reads the original's header, before any decoding, and judges the size as displayed (its EXIF
    /// orientation applied, as every output is made): a filtered line leaves only its original in the cache.
    @Test func theFilterDecidesFromTheHeaderOnTheDisplayedSize() throws {
        let fixture = try BatchFixture(count: 1)
        // Stored 308x231 with orientation 6: displayed 231x308.
        try FileManager.default.copyItem(atPath: Paths.images + "/rotation/6.jpg", toPath: fixture.root.path + "/www/six.jpg")
        let url = fixture.server.url("/img/six.jpg")
        let filtered = try fixture.batch([url], ["--min-size", "300x100", "--resize", "64x", "--json"])
        let record = try #require(try BatchFixture.records(filtered).first)
        #expect(record["status"] as? String == "filtered", "\(filtered.stdoutText)")
        #expect(record["reason"] as? String == "original 231x308 is smaller than 300x100")
        let inspect = try Imgfetch.run(["cache", "inspect", "--cache-dir", fixture.cache, "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(inspect.stdoutText.utf8)) as? [String: Any])
        #expect(summary["originals"] as? Int == 1 && summary["variants"] as? Int == 0, "\(inspect.stdoutText)")
        // Let through, the line says the displayed size of its original, as its output has.
        let manifest = fixture.root.file("m.jsonl")
        let passed = try fixture.batch([url], ["--min-size", "200x300", "--resize", "64x", "--manifest", manifest])
        let made = try #require(try JSONLines.objects(inFile: manifest).first)
        #expect(made["status"] as? String == "ok", "\(passed.stderr)")
        #expect((made["original"] as? [String: Int]) == ["width": 231, "height": 308], "\(made)")
        let tall = try fixture.batch([url], ["--max-aspect-ratio", "1.3", "--resize", "64x", "--json"])
        #expect(try BatchFixture.records(tall).first?["reason"] as? String
                == "original 231x308 has an aspect ratio of 1.33, over 1.3", "\(tall.stdoutText)")
    }
}
