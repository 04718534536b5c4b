import Foundation
import Testing
@testable import ImgCore

/// Nested Parquet columns (lists of one kind of value, to any depth) read as JSON arrays: from files pyarrow wrote
/// (Tests/Fixtures/parquet, README there) in v1 and v2 pages, across batches, and from levels made by hand in the
/// forms pyarrow does not write (the older two-level list, a bare repeated column).
@Suite("Parquet nested columns")
struct ParquetNestedColumnTests {
    static let lists = ["tags", "face_bboxes", "ids", "deep", "flags"]

    /// The lists pyarrow wrote (nested-expected.json).
    static func expected() throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: ParquetListReaderTests.folder + "/nested-expected.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    }

    /// Nulls and empty lists at every depth, null entries, lists of lists of doubles, of booleans, three deep: every
    /// row as pyarrow wrote it, in row groups of 7 and pages of about 128 bytes.
    @Test(arguments: ["nested", "nested-v2"])
    func everyListIsReadAsWritten(_ variant: String) throws {
        let path = ParquetListReaderTests.folder + "/\(variant).parquet"
        var layout = ParquetListReaderTests.layout(keeping: Self.lists)
        try layout.prepare([.file(path)])
        let (rows, failure) = ParquetListReaderTests.rows(path, layout: layout)
        #expect(failure == nil, "\(String(describing: failure))")
        let expected = try Self.expected()
        try #require(rows.count == expected.count)
        for (index, (row, written)) in zip(rows, expected).enumerated() {
            #expect(row.first == "http://127.0.0.1:9/n/\(index).jpg" && row.failure == nil)
            for name in Self.lists {
                let read = try ParquetListReaderTests.plain(row.columns?[name])
                #expect(read == written[name] as? NSObject, "row \(index + 1), \(name): \(String(describing: row.columns?[name]))")
            }
        }
        #expect(rows[4].columns?["tags"] == .array([]) && rows[5].columns?["tags"] == .null)
        #expect(rows[1].columns?["tags"] == .array([.string("t1"), .null]))
    }

    /// One page of 3,000 rows of lists: the batches of 1,024 levels cut rows, which are completed by the next batch.
    @Test func rowsCutByABatchAreCompleted() throws {
        let path = ParquetListReaderTests.folder + "/long-nested.parquet"
        let (rows, failure) = ParquetListReaderTests.rows(path, layout: ParquetListReaderTests.layout(keeping: ["tags"]))
        #expect(failure == nil && rows.count == 3000)
        for (index, row) in rows.enumerated() {
            let tags = (0..<index % 5).map { ColumnValue.string("t\(index)-\($0)") }
            #expect(row.first == "http://127.0.0.1:9/ln/\(index).jpg" && row.columns?["tags"] == .array(tags), "row \(index + 1)")
        }
    }

    /// Levels as Parquet's older writers (parquet-mr's two-level lists) and a bare repeated column give them.
    @Test func twoLevelAndBareRepeatedListsAreAssembled() throws {
        // optional group tags (LIST) { repeated binary element }: [a, b], [], null, [c].
        var twoLevel = ParquetNestedAssembler(path: [.optional, .repeated])
        var rows = try twoLevel.add(repetition: [0, 1, 0, 0, 0], definition: [2, 2, 1, 0, 2],
                                    values: [.string("a"), .string("b"), .string("c")])
        rows += twoLevel.finish()
        #expect(rows == [.array([.string("a"), .string("b")]), .array([]), .null, .array([.string("c")])])
        // repeated int32 ids: [1, 2], [], [3].
        var bare = ParquetNestedAssembler(path: [.repeated])
        rows = try bare.add(repetition: [0, 1, 0, 0], definition: [1, 1, 0, 1], values: [.integer(1), .integer(2), .integer(3)])
        rows += bare.finish()
        #expect(rows == [.array([.integer(1), .integer(2)]), .array([]), .array([.integer(3)])])
        #expect(bare.finish().isEmpty, "no row after the last")
    }

    /// Levels no writer makes are a format error, never a crash: a first level that continues a row, a repetition
    /// level deeper than the lists open, fewer values than the levels define.
    @Test func impossibleLevelsAreRefused() {
        var assembler = ParquetNestedAssembler(path: [.optional, .repeated, .optional])
        #expect(throws: ParquetFormatError.self) { _ = try assembler.add(repetition: [1], definition: [3], values: [.integer(1)]) }
        assembler = ParquetNestedAssembler(path: [.optional, .repeated, .optional])
        #expect(throws: ParquetFormatError.self) { _ = try assembler.add(repetition: [0, 2], definition: [3, 3], values: [.integer(1), .integer(2)]) }
        assembler = ParquetNestedAssembler(path: [.optional, .repeated, .optional])
        #expect(throws: ParquetFormatError.self) { _ = try assembler.add(repetition: [0, 1], definition: [3, 3], values: [.integer(1)]) }
    }

    /// Bytes changed at random, or cut short, anywhere in a file of nested columns: rows or a failure, never a crash
    /// or a hang.
    @Test(arguments: ["nested", "nested-v2"])
    func damagedFilesFailWithoutCrashing(_ variant: String) throws {
        let (refused, failed, read) = try ParquetListReaderTests.readDamagedCopies(of: variant, seed: 0x4E57_0000,
                                                                                    keeping: Self.lists)
        #expect(refused > 0 && failed > 0 && read > 0, "refused \(refused), failed \(failed), read \(read)")
    }
}
