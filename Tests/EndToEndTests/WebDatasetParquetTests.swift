import Foundation
import Testing
@testable import ImgCore

/// The venv's python (`IMGFETCH_PYREF_PYTHON`, made by `make test`) when it has the `pyarrow` package.
private let pyarrowPython = PyrefPython.importing("pyarrow")

/// Prints each Parquet file given as one JSON line: its column names and types, its rows, and the codecs of its
/// column chunks.
private let parquetReader = """
    import json, sys
    import pyarrow.parquet as pq
    for path in sys.argv[1:]:
        table = pq.read_table(path)
        metadata = pq.ParquetFile(path).metadata
        codecs = sorted({metadata.row_group(g).column(c).compression
                         for g in range(metadata.num_row_groups) for c in range(metadata.num_columns)})
        print(json.dumps({"columns": [[f.name, str(f.type)] for f in table.schema], "rows": table.to_pylist(),
                          "codecs": codecs}))
    """

/// `batch --parquet`: each WebDataset tar gets `NAME.parquet` beside it, read back with pyarrow (an independent
/// implementation of the format), its rows the fields of the tar's samples' JSON.
@Suite("WebDataset Parquet tables")
struct WebDatasetParquetTests {
    /// The tables `paths` hold, as pyarrow reads them.
    static func read(_ paths: [String]) throws -> [[String: Any]] {
        let python = try #require(pyarrowPython)
        let result = try Imgfetch.run(["-c", parquetReader] + paths, program: python)
        guard result.status == 0 else { throw TestFailure("pyarrow: \(result.stderr)") }
        return try BatchFixture.records(result)
    }

    /// Each tar's table has one row a sample, in the tar's order, and each row is the sample's JSON: the key, URL,
    /// caption and kept columns as text, sizes and bytes as 64-bit integers, the SHA-256 and format, with the facts;
    /// the line that failed while a tar was written has its row there too, with its error and no image.
    @Test(.enabled(if: pyarrowPython != nil, "IMGFETCH_PYREF_PYTHON lacks pyarrow: run through `make test` (venv .build/pyref)"))
    func eachTarsTableHoldsItsSamplesJSON() throws {
        let fixture = try BatchFixture(count: 6)
        var rows = (1...5).map { #"{"url":""# + fixture.server.url("/img/img\($0).jpg") + #"","caption":"photo é \#($0)","n":\#($0),"tags":["a"],"z":null}"# }
        rows.insert(#"{"url":""# + fixture.server.url("/status/404") + #"","caption":"gone","n":0,"tags":[],"z":null}"#, at: 2)
        let list = fixture.root.file("list.jsonl")
        try (rows.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let result = try Imgfetch.run(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress",
                                       "--output-format", "webdataset", "--samples-per-shard", "2", "--parquet", "--facts",
                                       "--caption-column", "caption", "--keep-columns", "n,tags,z", "--resize", "24x",
                                       "--retry", "0"])
        #expect(result.status == 1 && result.stderr.contains("5 ok, 1 failed, 5 samples written into 3 tars"), "\(result.stderr)")
        let tars = WebDatasetTests.tars(fixture.output)
        #expect(fixture.outputs().filter { $0.hasSuffix(".parquet") } == ["00000.parquet", "00001.parquet", "00002.parquet"])
        let tables = try Self.read(tars.map { fixture.output + "/" + $0.replacingOccurrences(of: ".tar", with: ".parquet") })
        #expect(tables.count == tars.count)
        // Pages that snappy makes smaller are in snappy (a one-sample table's may all be left as they are).
        let codecs = tables.flatMap { $0["codecs"] as? [String] ?? [] }
        #expect(codecs.contains("SNAPPY") && Set(codecs).isSubset(of: ["SNAPPY", "UNCOMPRESSED"]), "\(codecs)")
        for (tar, table) in zip(tars, tables) {
            let columns = try #require(table["columns"] as? [[String]])
            #expect(columns.map(\.[0]) == ["key", "url", "caption", "n", "tags", "z", "status", "reason", "error_message",
                                           "width", "height", "original_width", "original_height", "bytes", "sha256",
                                           "format", "blurhash", "thumbhash", "dominant_color", "phash"])
            #expect(columns.filter { $0[1] == "int64" }.map(\.[0]) == ["width", "height", "original_width", "original_height", "bytes"])
            #expect(columns.allSatisfy { $0[1] == "int64" || $0[1] == "string" }, "\(columns)")
            let all = try #require(table["rows"] as? [[String: Any]])
            let rows = all.filter { $0["status"] as? String == "ok" }
            #expect(rows.allSatisfy { $0["error_message"] is NSNull && $0["reason"] is NSNull })
            for failed in all where failed["status"] as? String != "ok" {
                #expect(failed["status"] as? String == "failed" && failed["key"] as? String == "000000003"
                        && failed["caption"] as? String == "gone" && failed["n"] as? String == "0", "\(failed)")
                #expect((failed["error_message"] as? String)?.contains("404") == true, "\(failed)")
                #expect(["width", "bytes", "sha256", "format", "phash"].allSatisfy { failed[$0] is NSNull }, "\(failed)")
            }
            #expect(all.count == rows.count + (tar == tars[1] ? 1 : 0), "the failed line is in the second tar's table")
            let members = try WebDatasetTests.members(fixture.output + "/" + tar).filter { $0.hasSuffix(".json") }
            #expect(rows.map { $0["key"] as? String ?? "" } == members.map { String($0.dropLast(5)) })
            for (row, member) in zip(rows, members) {
                let json = try #require(try JSONSerialization.jsonObject(with: WebDatasetTests.member(member, of: fixture.output + "/" + tar)) as? [String: Any])
                for field in ["key", "url", "width", "height", "original_width", "original_height", "bytes", "sha256",
                              "format", "blurhash", "thumbhash", "dominant_color", "phash"] {
                    #expect("\(row[field] ?? "missing")" == "\(json[field] ?? "absent")", "\(member): \(field)")
                }
                #expect(row["n"] as? String == "\(json["n"] as? Int ?? -1)" && row["tags"] as? String == #"["a"]"#)
                #expect(row["z"] is NSNull && json["z"] is NSNull, "a null value is null")
                let caption = try WebDatasetTests.member(member.replacingOccurrences(of: ".json", with: ".txt"),
                                                        of: fixture.output + "/" + tar)
                #expect(row["caption"] as? String == String(decoding: caption, as: UTF8.self))
            }
        }
    }

    /// Every line done has a row in the table of the tar it is counted in, a sample or not, as its manifest record
    /// says it: a run whose lines all give no sample still completes a tar (of no sample) whose stats and table count
    /// them. A kept column named as one of the table's own is refused.
    @Test(.enabled(if: pyarrowPython != nil, "IMGFETCH_PYREF_PYTHON lacks pyarrow: run through `make test` (venv .build/pyref)"))
    func linesThatGiveNoSampleHaveRowsToo() throws {
        let fixture = try BatchFixture(count: 1)
        let noai = "/robots-tag/" + "noai".addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "/img1.jpg"
        let urls = [fixture.server.url("/status/404"), fixture.server.url("/img/img1.jpg"), fixture.server.url(noai)]
        let manifest = fixture.root.file("m.jsonl")
        let result = try fixture.batch(urls, ["--output-format", "webdataset", "--parquet", "--min-size", "300x100",
                                              "--manifest", manifest, "--retry", "0"])
        #expect(result.status == 1 && result.stderr.contains("0 samples written into 1 tar"), "\(result.stderr)")
        #expect(fixture.outputs() == ["00000.parquet", "00000.tar", "00000_stats.json"], "\(fixture.outputs())")
        let stats = try JSONDecoder().decode(TarStats.self, from: Data(contentsOf: URL(fileURLWithPath: fixture.output + "/00000_stats.json")))
        #expect(stats.samples == 0 && stats.statuses == ["failed": 1, "filtered": 1, "opted_out": 1], "\(stats)")
        let rows = try #require(try Self.read([fixture.output + "/00000.parquet"]).first?["rows"] as? [[String: Any]])
        let records = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }
        #expect(rows.count == 3 && records.count == 3)
        for (row, record) in zip(rows, records) {
            #expect(row["status"] as? String == record["status"] as? String && row["url"] as? String == record["url"] as? String)
            #expect("\(row["reason"] ?? "")" == "\(record["reason"] ?? NSNull())", "\(row)")
            #expect("\(row["error_message"] ?? "")" == "\((record["error"] as? [String: Any])?["message"] ?? NSNull())", "\(row)")
        }
        #expect(rows[1]["original_width"] as? Int == 290 && rows[1]["original_height"] as? Int == 442 && rows[1]["width"] is NSNull)
        let list = try fixture.write("url,status\n\(urls[1]),x\n", to: "l.csv")
        let clash = try Imgfetch.run(["batch", list, "-O", fixture.root.file("other"), "--cache-dir", fixture.cache,
                                      "--output-format", "webdataset", "--parquet", "--keep-columns", "status"])
        #expect(clash.status == 2 && clash.stderr.contains("--keep-columns status: a --parquet table has a column of that name"),
                "\(clash.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.root.file("other")), "refused before anything is written")
        // The table's caption is KEY.txt's: a kept column of that name from another column is refused too.
        let captions = try fixture.write("url,caption,txt\n\(urls[1]),kept,real\n", to: "c.csv")
        let table = ["batch", captions, "-O", fixture.root.file("other"), "--cache-dir", fixture.cache,
                     "--output-format", "webdataset", "--parquet", "--keep-columns", "caption"]
        let other = try Imgfetch.run(table + ["--caption-column", "txt"])
        #expect(other.status == 2 && other.stderr.contains("--keep-columns caption: a --parquet table's caption column holds "
                                                           + "the --caption-column txt text"), "\(other.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.root.file("other")), "refused before anything is written")
        let same = try Imgfetch.run(table + ["--caption-column", "caption", "--no-progress"])
        #expect(same.status == 0, "the caption kept is the caption: \(same.stderr)")
    }

    /// A row without a URL has its table row too: `url` null (its manifest record keeps the row as written, under
    /// `raw`), its caption and kept columns as the list gives them (the row's JSON was its `url`, the rest null).
    @Test(.enabled(if: pyarrowPython != nil, "IMGFETCH_PYREF_PYTHON lacks pyarrow: run through `make test` (venv .build/pyref)"))
    func aRowWithoutAURLKeepsItsColumns() throws {
        let fixture = try BatchFixture(count: 1)
        let lines = [#"{"url":""# + fixture.server.url("/img/img1.jpg") + #"","caption":"one","n":1}"#,
                     #"{"url":null,"caption":"none","n":7}"#]
        let list = try fixture.write(lines.joined(separator: "\n") + "\n", to: "list.jsonl")
        let manifest = fixture.root.file("m.jsonl")
        let result = try Imgfetch.run(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress",
                                       "--output-format", "webdataset", "--parquet", "--caption-column", "caption",
                                       "--keep-columns", "n", "--manifest", manifest])
        #expect(result.status == 1 && result.stderr.contains("1 ok, 1 failed"), "\(result.stderr)")
        let rows = try #require(try Self.read([fixture.output + "/00000.parquet"]).first?["rows"] as? [[String: Any]])
        let failed = try #require(rows.first { $0["status"] as? String == "failed" })
        #expect(failed["url"] is NSNull && failed["n"] as? String == "7" && failed["caption"] as? String == "none", "\(failed)")
        let record = try #require(try JSONLines.objects(inFile: manifest).first { $0["status"] as? String == "failed" })
        #expect(record["columns"] as? [String: Int] == ["n": 7] && record["raw"] as? String == lines[1], "\(record)")
    }

    /// `--parquet` goes with WebDataset output only, in `batch` only; without it no table is written.
    @Test func parquetNeedsWebDatasetOutput() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg")
        let files = try fixture.batch([url], ["--parquet"])
        #expect(files.status == 2 && files.stderr.contains("--parquet applies with --output-format webdataset"), "\(files.stderr)")
        #expect(fixture.outputs().isEmpty, "refused before anything is written")
        let prefetch = try Imgfetch.run(["prefetch", url, "--parquet", "--cache-dir", fixture.cache])
        #expect(prefetch.status == 2 && prefetch.stderr.contains("--parquet"), "\(prefetch.stderr)")
        let plain = try fixture.batch([url], ["--output-format", "webdataset"])
        #expect(plain.status == 0 && fixture.outputs() == ["00000.tar", "00000_stats.json"], "\(plain.stderr)")
    }

    /// A run killed after writing a tar's table and stats but before the tar took its name leaves them beside
    /// nothing; the next run into the folder removes them (here its line fails: the tar that takes that name holds
    /// no sample, and its table only that line's row), so the tables in the folder count exactly the lines the tars
    /// count. Another shard's names are left alone.
    @Test func companionsOfATarNotInTheFolderAreRemoved() throws {
        let fixture = try BatchFixture(count: 3)
        let urls = (1...3).map { fixture.server.url("/img/img\($0).jpg") }
        let manifest = fixture.root.file("m.jsonl")
        let first = try fixture.batch(urls, ["--output-format", "webdataset", "--samples-per-shard", "2", "--parquet",
                                             "--manifest", manifest])
        #expect(first.status == 0 && fixture.outputs().count == 6, "\(first.stderr) \(fixture.outputs())")
        try FileManager.default.removeItem(atPath: fixture.output + "/00001.tar")
        let otherShard = fixture.output + "/s0001-00000.parquet"
        try Data("PAR1".utf8).write(to: URL(fileURLWithPath: otherShard))
        let again = try fixture.batch(Array(urls.prefix(2)) + [fixture.server.url("/status/404")],
                                      ["--output-format", "webdataset", "--parquet", "--resume", manifest, "--retry", "0"])
        #expect(again.status == 1 && again.stderr.contains("0 ok, 1 failed, 2 done earlier"), "\(again.stderr)")
        #expect(fixture.outputs() == ["00000.parquet", "00000.tar", "00000_stats.json", "00001.parquet", "00001.tar",
                                      "00001_stats.json", "s0001-00000.parquet"])
        let stats = try JSONDecoder().decode(TarStats.self, from: Data(contentsOf: URL(fileURLWithPath: fixture.output + "/00001_stats.json")))
        #expect(stats.samples == 0 && stats.statuses == ["failed": 1], "\(stats)")
        #expect(try WebDatasetTests.members(fixture.output + "/00001.tar").isEmpty)
        if pyarrowPython != nil {
            let rows = try #require(try Self.read([fixture.output + "/00001.parquet"]).first?["rows"] as? [[String: Any]])
            #expect(rows.map { $0["status"] as? String } == ["failed"] && rows.first?["key"] as? String == "000000003")
        }
    }

    /// A tar whose stats can't be written (a folder stands at their name) does not take its name, and its table,
    /// written just before, is removed with it: nothing stands beside no tar, and the batch says why (exit 7).
    @Test func aTarThatFailsToTakeItsNameLeavesNoTable() throws {
        let fixture = try BatchFixture(count: 1)
        try FileManager.default.createDirectory(atPath: fixture.output + "/00000_stats.json/x", withIntermediateDirectories: true)
        let result = try fixture.batch([fixture.server.url("/img/img1.jpg")], ["--output-format", "webdataset", "--parquet"])
        #expect(result.status == 7 && result.stderr.contains("00000_stats.json"), "\(result.stderr)")
        #expect(fixture.outputs() == ["00000_stats.json"], "neither the tar nor its table: \(fixture.outputs())")
    }

    /// The writer's own encoding, read by pyarrow: row groups of 3 rows, nulls in runs, a column first seen in a
    /// later group (null in the groups before), more columns than a short Thrift list header holds, empty and
    /// non-ASCII strings, negative and large integers, a cell of the other kind converted to the column's, even in
    /// a later group.
    @Test(.enabled(if: pyarrowPython != nil, "IMGFETCH_PYREF_PYTHON lacks pyarrow: run through `make test` (venv .build/pyref)"))
    func pyarrowReadsWhatTheWriterWrites() throws {
        var file = Data()
        var writer = try ParquetWriter(rowsPerGroup: 3) { (data: Data) throws(ImgError) in file.append(data) }
        try writer.append([("s", .string("")), ("i", .integer(-5))])
        try writer.append([("s", .string(nil)), ("i", .integer(Int64.max))])
        try writer.append([("i", .string("12")), ("s", .integer(7)), ("s", .string("ignored"))])
        try writer.append([("late", .string("é")), ("i", .string("x"))])
        for column in 0..<16 { try writer.append([("c\(column)", .integer(Int64(column)))]) }
        try writer.finish(createdBy: "imgfetch")
        let directory = try TemporaryDirectory()
        let path = directory.file("t.parquet")
        try file.write(to: URL(fileURLWithPath: path))
        let read = try #require(try Self.read([path]).first)
        let rows = try #require(read["rows"] as? [[String: Any]])
        #expect(rows.count == 20 && (read["columns"] as? [[String]])?.map(\.[0]) == ["s", "i", "late"] + (0..<16).map { "c\($0)" })
        #expect(rows[0]["s"] as? String == "" && rows[0]["i"] as? Int == -5 && rows[0]["late"] is NSNull)
        #expect(rows[1]["s"] is NSNull && rows[1]["i"] as? Int64 == Int64.max && rows[2]["late"] is NSNull)
        #expect(rows[2]["i"] as? Int == 12 && rows[2]["s"] as? String == "7")
        #expect(rows[3]["late"] as? String == "é" && rows[3]["i"] is NSNull, "an integer column keeps its kind")
        #expect(rows[19]["c15"] as? Int == 15 && rows[19]["s"] is NSNull && rows[4]["c15"] is NSNull)
    }

    /// Definition levels as runs: a run's length shifted left once as a varint, then its level in a byte.
    @Test func definitionLevelsAreRuns() {
        #expect([UInt8](ParquetRowGroup.runLengths([true, true, false])) == [0x04, 0x01, 0x02, 0x00])
        #expect([UInt8](ParquetRowGroup.runLengths(Array(repeating: true, count: 64))) == [0x80, 0x01, 0x01])
        #expect(ParquetRowGroup.runLengths([]).isEmpty)
    }
}
