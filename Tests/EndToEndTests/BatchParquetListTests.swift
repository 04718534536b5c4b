import Foundation
import Testing
@testable import ImgCore

/// The venv's python (`IMGFETCH_PYREF_PYTHON`, made by `make test`) when it has the `pyarrow` package.
private let pyarrowPython = PyrefPython.importing("pyarrow")

/// Writes the JSON rows of argv[2] to the Parquet file argv[1] with pyarrow (snappy, dictionary pages, row groups
/// of 2 rows), the way LAION's and DataComp's URL lists are written; the columns in the first row's order (its
/// keys sorted here), `tags` a list column, `meta` a struct.
private let parquetWriter = """
    import json, sys
    import pyarrow as pa, pyarrow.parquet as pq
    rows = json.loads(sys.argv[2])
    table = pa.Table.from_pylist(rows)
    pq.write_table(table, sys.argv[1], compression="snappy", row_group_size=2)
    """

/// `batch` over a Parquet list (`--input-format parquet`, or a `.parquet` name): the same run as over the same rows
/// in JSON Lines, record for record and sample for sample; what it can't read is refused before anything is fetched.
@Suite("Batch Parquet lists")
struct BatchParquetListTests {
    static let enabled = pyarrowPython != nil

    /// `rows` written as a Parquet file at `path` by pyarrow.
    static func writeParquet(_ rows: [[String: Any]], to path: String) throws {
        let python = try #require(pyarrowPython)
        let json = String(decoding: try JSONSerialization.data(withJSONObject: rows, options: [.sortedKeys]), as: UTF8.self)
        let result = try Imgfetch.run(["-c", parquetWriter, path, json], program: python)
        guard result.status == 0 else { throw TestFailure("pyarrow: \(result.stderr)") }
    }

    /// The rows of the lists below: images, a 404, a row whose URL is null, captions and kept columns.
    static func rows(_ fixture: BatchFixture) -> [[String: Any]] {
        var rows: [[String: Any]] = (1...4).map {
            ["url": fixture.server.url("/img/img\($0).jpg"), "caption": "photo é \($0)", "n": $0, "score": Double($0) / 8,
             "ok": $0 % 2 == 0, "tags": ["a", "b\($0)"], "meta": ["k": $0]]
        }
        rows.insert(["url": fixture.server.url("/status/404"), "caption": "gone", "n": 0, "score": 0.5, "ok": true, "tags": [],
                     "meta": ["k": 0]], at: 2)
        rows.append(["url": NSNull(), "caption": NSNull(), "n": 9, "score": 1.0, "ok": false, "tags": NSNull(), "meta": ["k": 9]])
        return rows
    }

    /// The same rows as Parquet and as JSON Lines make the same manifest records (line, URL, status, kept columns, a
    /// list column among them) and the same WebDataset samples (names, JSON, captions).
    @Test(.enabled(if: enabled, "IMGFETCH_PYREF_PYTHON lacks pyarrow: run through `make test` (venv .build/pyref)"))
    func aParquetListRunsAsTheSameRowsInJSONLines() throws {
        let fixture = try BatchFixture(count: 4)
        let rows = Self.rows(fixture)
        let parquet = fixture.root.file("list.parquet")
        try Self.writeParquet(rows, to: parquet)
        let jsonl = fixture.root.file("list.jsonl")
        try rows.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
            .joined(separator: "\n").appending("\n").write(toFile: jsonl, atomically: true, encoding: .utf8)
        /// A value as sorted JSON, so that two readings compare whatever their keys' order.
        func text(_ value: Any?) throws -> String {
            guard let value else { return "absent" }
            return String(decoding: try JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]), as: UTF8.self)
        }
        var manifests: [[[String: String]]] = []
        var samples: [[String: String]] = []
        for (index, list) in [parquet, jsonl].enumerated() {
            let output = fixture.root.path + "/out\(index)", manifest = fixture.root.file("m\(index).jsonl")
            let result = try Imgfetch.run(["batch", list, "-O", output, "--cache-dir", fixture.cache + "\(index)",
                                           "--no-progress", "--output-format", "webdataset", "--caption-column", "caption",
                                           "--keep-columns", "n,score,ok,tags", "--resize", "24x", "--retry", "0",
                                           "--manifest", manifest])
            #expect(result.status == 1 && result.stderr.contains("4 ok, 2 failed, 4 samples written into 1 tar"), "\(result.stderr)")
            let records = try BatchFixture.records(CommandResult(status: 0, stdout: try Data(contentsOf: URL(fileURLWithPath: manifest)), stderr: ""))
            manifests.append(try records.filter { $0["line"] != nil }.map { record in
                try record.filter { ["line", "url", "status", "columns", "raw", "error"].contains($0.key) }.mapValues(text)
            }.sorted { Int($0["line"]?.dropFirst().dropLast() ?? "") ?? 0 < Int($1["line"]?.dropFirst().dropLast() ?? "") ?? 0 })
            let tar = output + "/00000.tar"
            samples.append(Dictionary(uniqueKeysWithValues: try WebDatasetTests.members(tar).filter { !$0.hasSuffix(".jpg") }.map {
                let data = try WebDatasetTests.member($0, of: tar)
                return ($0, $0.hasSuffix(".json") ? try text(try JSONSerialization.jsonObject(with: data)) : String(decoding: data, as: UTF8.self))
            }))
        }
        #expect(manifests[0].map { $0["line"] } == (1...6).map { "[\($0)]" }, "\(manifests[0])")
        for (fromParquet, fromJSONLines) in zip(manifests[0], manifests[1]) {
            for field in ["line", "url", "status", "columns", "error"] {
                #expect(fromParquet[field] == fromJSONLines[field], "line \(fromParquet["line"] ?? "?"): \(field)")
            }
        }
        #expect(manifests[0][5]["raw"]?.contains(#"\"url\":null"#) == true, "a failed row is recorded by its columns")
        #expect(samples[0].count == 8 && samples[0] == samples[1], "the same KEY.json and KEY.txt members: \(samples)")
    }

    /// A column the list lacks, a struct column, or a Parquet list on standard input is a usage error before
    /// anything is fetched; so is a list that is not Parquet, and `--input-format parquet` reads any name.
    @Test(.enabled(if: enabled, "IMGFETCH_PYREF_PYTHON lacks pyarrow: run through `make test` (venv .build/pyref)"))
    func whatCantBeReadIsRefusedBeforeAnythingIsFetched() throws {
        let fixture = try BatchFixture(count: 4)
        let parquet = fixture.root.file("list.parquet")
        try Self.writeParquet(Self.rows(fixture), to: parquet)
        let base = ["batch", parquet, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress"]
        let missing = try Imgfetch.run(base + ["--keep-columns", "license"])
        #expect(missing.status == 2 && missing.stderr.contains("has no column 'license' (--keep-columns); its columns are 'caption', 'meta', 'n', 'ok', 'score', 'tags', 'url'"),
                "\(missing.stderr)")
        let nested = try Imgfetch.run(base + ["--keep-columns", "meta"])
        #expect(nested.status == 2 && nested.stderr.contains("column 'meta' of list")
                && nested.stderr.contains("a nested column (a struct or a map)"), "\(nested.stderr)")
        let piped = try Imgfetch.run(["batch", "-", "--input-format", "parquet", "-O", fixture.output, "--no-progress"],
                                     stdin: try Data(contentsOf: URL(fileURLWithPath: parquet)))
        #expect(piped.status == 2 && piped.stderr.contains("a Parquet list can't be read from standard input"), "\(piped.stderr)")
        let text = try fixture.list(["not parquet"])
        let notParquet = try Imgfetch.run(["batch", text, "--input-format", "parquet", "-O", fixture.output, "--no-progress"])
        #expect(notParquet.status == 2 && notParquet.stderr.contains("is not a Parquet file imgfetch reads"), "\(notParquet.stderr)")
        #expect(try fixture.server.stats().paths.isEmpty, "nothing was fetched")
        #expect(fixture.outputs().isEmpty)
        let renamed = fixture.root.file("list.bin")
        try FileManager.default.copyItem(atPath: parquet, toPath: renamed)
        let named = try Imgfetch.run(["batch", renamed, "--input-format", "parquet", "-O", fixture.output, "--cache-dir",
                                      fixture.cache, "--no-progress", "--retry", "0"])
        #expect(named.status == 1 && named.stderr.contains("4 ok, 2 failed"), "\(named.stderr)")
    }
}
