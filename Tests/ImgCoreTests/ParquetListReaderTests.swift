import Foundation
import Testing
@testable import ImgCore

/// Parquet lists read by `ParquetListReader` from files pyarrow wrote (Tests/Fixtures/parquet, README there): every
/// codec and page version it reads give the rows pyarrow wrote, what it does not read is refused before a row is
/// read, and damaged bytes end the list with a failure, never a crash.
@Suite("Parquet lists")
struct ParquetListReaderTests {
    static let folder = Paths.fixtures + "/parquet"
    /// The fixtures' flat columns; all but the delta ones also hold `tags` (a list of strings) and `price`
    /// (DECIMAL(9, 2)).
    static let kept = ["caption", "n", "i32", "f32", "f64", "b", "u64", "day"]

    static func layout(keeping kept: [String] = kept) -> ListLayout {
        var layout = ListLayout()
        layout.format = .parquet
        layout.keptColumns = kept
        return layout
    }

    static func rows(_ path: String, layout: ListLayout = layout()) -> (rows: [ListRow], failure: ImgError?) {
        let reader = ParquetListReader(path: path, layout: layout)
        var rows: [ListRow] = []
        while let row = reader.nextRow() { rows.append(row) }
        return (rows, reader.failure)
    }

    /// The rows pyarrow wrote (expected.json: dates as days since 1970, as Parquet stores them).
    static func expected() throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/expected.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    /// A column value as JSONSerialization reads the same value back (numbers as NSNumber, null as NSNull).
    static func plain(_ value: ColumnValue?) throws -> NSObject? {
        guard let value else { return nil }
        let data = try JSONEncoder().encode([value])
        return (try JSONSerialization.jsonObject(with: data) as? [Any])?.first as? NSObject
    }

    @Test(arguments: ["uncompressed", "snappy", "gzip", "zstd", "brotli", "lz4-raw", "v2-snappy", "plain-zstd", "delta",
                      "delta-v2"])
    func everyCodecAndPageVersionGivesTheRowsWritten(_ variant: String) throws {
        let kept = variant.hasPrefix("delta") ? Self.kept : Self.kept + ["tags"]
        let (rows, failure) = Self.rows(Self.folder + "/\(variant).parquet", layout: Self.layout(keeping: kept))
        #expect(failure == nil)
        let expected = try Self.expected()
        try #require(rows.count == expected.count)
        for (index, (row, written)) in zip(rows, expected).enumerated() {
            #expect(row.line == index + 1, "rows are numbered from 1")
            guard let url = written["url"] as? String, !url.isEmpty else {
                #expect(row.failure != nil && row.raw.hasPrefix("{") && row.raw.contains(#""url":"#), "row \(index + 1): \(row.raw)")
                let reason = written["url"] is NSNull ? "no URL in column 'url' (null)" : "no URL in column 'url'"
                #expect(row.failure?.message == reason, "row \(index + 1)")
                continue
            }
            #expect(row.first == url && row.failure == nil)
            let columns = try #require(row.columns)
            for name in kept {
                let read = try Self.plain(columns[name])
                #expect(read == written[name] as? NSObject, "row \(index + 1), \(name): \(String(describing: columns[name]))")
            }
        }
        // An unsigned 64-bit value over Int64's range is kept exact.
        #expect(rows[0].columns?["u64"] == .unsigned(UInt64.max))
    }

    /// A page of 3,000 rows is decoded a batch of 1,024 rows at a time: bit-packed levels and dictionary indices
    /// carried from one batch to the next give every row.
    @Test func aPageOfMoreRowsThanABatchGivesEveryRow() throws {
        let (rows, failure) = Self.rows(Self.folder + "/long-page.parquet", layout: Self.layout(keeping: ["n"]))
        #expect(failure == nil && rows.count == 3000)
        for (index, row) in rows.enumerated() {
            if index % 3 == 2 {
                #expect(row.failure != nil, "row \(index + 1): a null URL")
                continue
            }
            #expect(row.first == "http://127.0.0.1:9/l/\(index % 7).jpg", "row \(index + 1)")
            #expect(row.columns?["n"] == (index % 2 == 1 ? .integer(Int64(index)) : .null), "row \(index + 1)")
        }
    }

    /// A page of 3,000 rows in the delta encodings is decoded a batch at a time too: deltas carried across blocks,
    /// miniblocks and batches, strings across shared prefixes.
    @Test func aDeltaPageOfMoreRowsThanABatchGivesEveryRow() throws {
        let (rows, failure) = Self.rows(Self.folder + "/long-delta.parquet", layout: Self.layout(keeping: ["n", "caption"]))
        #expect(failure == nil && rows.count == 3000)
        for (index, row) in rows.enumerated() {
            if index % 5 == 4 {
                #expect(row.failure != nil, "row \(index + 1): a null URL")
                continue
            }
            let n = Int64(index * index) * 1_000_003 - Int64(index % 3) * 500_000_000_000_000_000
            let caption = String(repeating: "c", count: index % 17) + "\(index)"
            #expect(row.first == "http://127.0.0.1:9/d/\(index * index % 1000)/\(String(repeating: "x", count: index % 13)).jpg")
            #expect(row.columns?["n"] == .integer(n) && row.columns?["caption"] == .string(caption), "row \(index + 1)")
        }
    }

    /// NaN and the infinities, which JSON has no number for, are kept as the strings `NaN`, `Infinity` and
    /// `-Infinity`, so that every record holding them can be written (a non-finite number made it `{}`).
    @Test func nonFiniteNumbersAreKeptAsStrings() throws {
        let (rows, failure) = Self.rows(Self.folder + "/nonfinite.parquet", layout: Self.layout(keeping: ["x", "y"]))
        #expect(failure == nil && rows.count == 4)
        let expected: [ColumnValue] = [.string("NaN"), .string("Infinity"), .string("-Infinity"), .number(1.5)]
        #expect(rows.map { $0.columns?["x"] } == expected && rows.map { $0.columns?["y"] } == expected)
        for row in rows { _ = try JSONEncoder().encode(try #require(row.columns)) }
    }

    /// A double -0.0 (pyarrow's, in a double, a float and a list of doubles) is written `0` in a sample's JSON, as its
    /// table's cell says it and as the same row in JSON Lines is written: the JSON said `-0` where the table said `0`.
    @Test func negativeZeroIsWrittenAsZeroEverywhere() throws {
        let kept = ["x", "y", "z"]
        let (rows, failure) = Self.rows(Self.folder + "/negative-zero.parquet", layout: Self.layout(keeping: kept))
        #expect(failure == nil && rows.count == 3)
        let columns = rows.map { $0.columns ?? [:] }
        if case .number(let value) = columns.first?["x"] { #expect(value.sign == .minus, "read as it is stored") }
        let shape = SampleTableShape(keptColumns: kept, captionColumn: nil, facts: false)
        func written(_ columns: [String: ColumnValue]) -> (json: String, cells: [String]) {
            let sample = WebDatasetSample(key: "000000000", url: "u", columns: columns,
                                          image: ImagePayload(data: Data([0]), format: .png), sha256: "s")
            let cells = shape.row(of: sample, caption: nil).filter { kept.contains($0.name) }.map { cell in
                if case .string(let text) = cell.value { return text ?? "null" } else { return "not text" }
            }
            return (String(decoding: sample.encoded(), as: UTF8.self), cells)
        }
        let samples = columns.map(written)
        #expect(samples.map { $0.json.hasSuffix(#""x":0,"y":0,"z":[0,1]}"#) } == [true, false, false], "\(samples[0].json)")
        #expect(samples[1].json.hasSuffix(#""x":0,"y":0,"z":[0]}"#) && samples[2].json.hasSuffix(#""x":-2.5,"y":-2.5,"z":[]}"#))
        #expect(samples.map(\.cells) == [["0", "0", "[0,1]"], ["0", "0", "[0]"], ["-2.5", "-2.5", "[]"]])
        // The same row in JSON Lines, -0 as an integer and a double, is written the same.
        let folder = try TemporaryDirectory()
        let list = folder.file("list.jsonl")
        try (#"{"url":"http://h/0.jpg","x":-0.0,"y":-0,"z":[-0.0,1.0]}"# + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        var layout = ListLayout()
        layout.keptColumns = kept
        let lines = ListSequenceReaderTests.rows(layout.rowSource(for: [.file(list)]))
        let line = try #require(lines.first?.columns)
        #expect(written(line).json == samples[0].json && written(line).cells == samples[0].cells)
    }

    /// A byte array that is not UTF-8 (the fixture patched, lengths kept). Before: read with U+FFFD, so the URL
    /// `.../p/\xE9.jpg` was asked as `.../p/%EF%BF%BD.jpg`. Now a URL's bytes are kept as escapes, a path that is not
    /// UTF-8 fails its row, and another column still reads such bytes as U+FFFD.
    @Test func aURLThatIsNotUTF8KeepsItsBytesAsEscapes() throws {
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/uncompressed.parquet"))
        let patches: [(String, [UInt8])] = [
            ("http://127.0.0.1:9/p/3.jpg", Array("http://127.0.0.1:9/p/".utf8) + [0xE9] + Array(".jpg".utf8)),
            ("http://127.0.0.1:9/p/7.jpg", Array("/tmp/aaaaaaaaaaaaaaaa".utf8) + [0xE9] + Array(".jpg".utf8)),
            ("caption é 3", Array("caption ".utf8) + [0xE9, 0xE9] + Array(" 3".utf8)),
        ]
        for (text, patch) in patches {
            try #require(Array(text.utf8).count == patch.count)
            while let range = bytes.firstRange(of: Data(text.utf8)) { bytes.replaceSubrange(range, with: patch) }
        }
        let folder = try TemporaryDirectory()
        try bytes.write(to: URL(fileURLWithPath: folder.file("patched.parquet")))
        let (rows, failure) = Self.rows(folder.file("patched.parquet"), layout: Self.layout(keeping: ["caption"]))
        #expect(failure == nil && rows.count == 30)
        #expect(rows[3].first == "http://127.0.0.1:9/p/%E9.jpg" && rows[3].failure == nil)
        #expect(rows[3].columns?["caption"]?.text == "caption \u{FFFD}\u{FFFD} 3")
        #expect(rows[7].failure?.message.hasPrefix("the URL is not UTF-8") == true, "\(rows[7])")
        #expect(rows[2].first == "http://127.0.0.1:9/p/2.jpg")
    }

    /// What the reader does not read is a usage error before a row is read, naming the column and the reason.
    @Test func unreadableListsAreRefusedUpFront() throws {
        func refusal(_ file: String, keeping kept: [String] = []) -> String {
            var layout = Self.layout(keeping: kept)
            do {
                try layout.prepare([.file(Self.folder + "/" + file)])
                return "accepted"
            } catch {
                return "\(error.exitCode) \(error.message)"
            }
        }
        #expect(refusal("snappy.parquet", keeping: Self.kept) == "accepted")
        #expect(refusal("snappy.parquet", keeping: ["tags"]) == "accepted")
        for column in ["meta", "attrs"] {
            #expect(refusal("nested.parquet", keeping: [column]) == "2 column '\(column)' of list '\(Self.folder)/nested.parquet' is "
                    + "a nested column (a struct or a map), which imgfetch does not read")
        }
        #expect(refusal("snappy.parquet", keeping: ["price"]).contains("of logical type DECIMAL"))
        #expect(refusal("snappy.parquet", keeping: ["nope"]).hasPrefix("2 list '\(Self.folder)/snappy.parquet' has no column 'nope' "
                                                                      + "(a kept column); its columns are 'url', 'caption', 'n'"))
        #expect(refusal("expected.json").contains("is not a Parquet file imgfetch reads: it does not start with PAR1"))
        var layout = Self.layout()
        #expect(throws: ImgError.self) { try layout.prepare([.standardInput]) }
    }

    /// A page whose bytes are damaged ends the list where it is: the rows before it are read, and the failure names
    /// the column and its row group.
    @Test func aDamagedPageEndsTheListAfterTheRowsBeforeIt() throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/uncompressed.parquet")))
        // Row 18's URL, in row group 3 (rows 15 to 21): its length in the dictionary page, the first place it is.
        let url = Array("http://127.0.0.1:9/p/17.jpg".utf8)
        let entry = [UInt8(url.count), 0, 0, 0] + url
        let at = try #require((0...(bytes.count - entry.count)).first { Array(bytes[$0..<$0 + entry.count]) == entry })
        bytes.replaceSubrange(at..<at + 4, with: [0xFF, 0xFF, 0xFF, 0x7F])
        let folder = try TemporaryDirectory()
        let path = folder.path + "/damaged.parquet"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (rows, failure) = Self.rows(path)
        #expect(rows.count == 14)
        #expect(failure?.exitCode == 7 && failure?.message.contains("column 'url' of row group 3: a string beyond its page") == true,
                "\(String(describing: failure))")
    }

    /// Bytes changed at random, or cut short, anywhere in a file: the reader gives rows or a failure, never a crash or
    /// a hang, and never more rows than the file holds.
    @Test(arguments: ["snappy", "v2-snappy", "plain-zstd", "gzip", "brotli", "lz4-raw", "delta", "delta-v2"])
    func damagedFilesFailWithoutCrashing(_ variant: String) throws {
        let (refused, failed, read) = try Self.readDamagedCopies(of: variant, seed: 0x5EED_0000, keeping: Self.kept)
        // The damage reached every stage: the footer (refused up front), the pages (a failure), and bytes the rows
        // don't depend on (read to the end).
        #expect(refused > 0 && failed > 0 && read > 0, "refused \(refused), failed \(failed), read \(read)")
    }

    /// Reads 150 damaged copies of fixture `variant` (bytes changed at random, or cut short), keeping `kept`, and
    /// counts how many were refused up front, failed while read and read to their end; each read gives a bounded
    /// number of rows.
    static func readDamagedCopies(of variant: String, seed: UInt64,
                                  keeping kept: [String]) throws -> (refused: Int, failed: Int, read: Int) {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/\(variant).parquet")))
        let directory = try TemporaryDirectory()
        var random = SplitMix(state: seed + UInt64(variant.utf8.count))
        var (refused, failed, read) = (0, 0, 0)
        for round in 0..<150 {
            var bytes = original
            if round % 10 == 9 {
                bytes.removeLast(Int.random(in: 1..<bytes.count, using: &random))
            } else {
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
            }
            let path = directory.path + "/\(round).parquet"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            var listLayout = Self.layout(keeping: kept)
            guard (try? listLayout.prepare([.file(path)])) != nil else {
                refused += 1
                continue
            }
            let (rows, failure) = Self.rows(path, layout: listLayout)
            #expect(rows.count < 1 << 16, "round \(round): a bounded number of rows")
            if failure == nil { read += 1 } else { failed += 1 }
        }
        return (refused, failed, read)
    }

    /// The tables `--parquet` writes beside WebDataset tars read back as a list: the same rows across row groups,
    /// nulls where written, the pages snappy makes smaller in snappy.
    @Test func theTablesImgfetchWritesReadBackAsAList() throws {
        var file = Data()
        var writer = try ParquetWriter(rowsPerGroup: 3) { (data: Data) throws(ImgError) in file.append(data) }
        var random = SplitMix(state: 7)
        let noise = (0..<8).map { _ in String((0..<24).map { _ in "0123456789abcdef".randomElement(using: &random)! }) }
        for index in 0..<8 {
            try writer.append([("url", .string("http://127.0.0.1:9/\(index).jpg")),
                               ("n", .integer(index % 3 == 0 ? nil : Int64(index))),
                               ("caption", .string(String(repeating: "words \(index) ", count: 40))),
                               ("noise", .string(noise[index]))])
        }
        try writer.finish(createdBy: "imgfetch")
        let folder = try TemporaryDirectory()
        let path = folder.path + "/table.parquet"
        try file.write(to: URL(fileURLWithPath: path))
        let (rows, failure) = Self.rows(path, layout: Self.layout(keeping: ["n", "caption", "noise"]))
        #expect(failure == nil && rows.count == 8)
        for (index, row) in rows.enumerated() {
            #expect(row.first == "http://127.0.0.1:9/\(index).jpg" && row.line == index + 1)
            #expect(row.columns?["n"] == (index % 3 == 0 ? .null : .integer(Int64(index))))
            #expect(row.columns?["caption"] == .string(String(repeating: "words \(index) ", count: 40)))
            #expect(row.columns?["noise"] == .string(noise[index]))
        }
        let table = try ParquetFile(path: path)
        #expect(table.rowGroups.count == 3)
        #expect(table.rowGroups.allSatisfy { $0.chunks["caption"]?.codec == 1 },
                "\(table.rowGroups.map { $0.chunks.mapValues(\.codec) })")
    }
}
