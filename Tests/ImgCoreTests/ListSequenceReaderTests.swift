import Foundation
import Testing
@testable import ImgCore

/// Several inputs read as one (`ListSequenceReader`): lines numbered on through the lists (and words given on the
/// command line), each row of a list keeping its own list and line; a list that can't be read ends the rows there;
/// lists must be of one format.
@Suite("Several lists")
struct ListSequenceReaderTests {
    static func rows(_ reader: any ListRowSource) -> [ListRow] {
        var rows: [ListRow] = []
        while let row = reader.nextRow() { rows.append(row) }
        return rows
    }

    @Test func csvListsAreNumberedOnThroughThemHeadersAndBlankLinesCounted() throws {
        let folder = try TemporaryDirectory()
        let first = folder.file("a.csv"), second = folder.file("b.csv")
        try "url,caption\nhttp://h/1.jpg,one\nhttp://h/2.jpg,two\n\n".write(toFile: first, atomically: true, encoding: .utf8)
        try "caption,url\nthree,http://h/3.jpg\n,\nfour,http://h/4.jpg".write(toFile: second, atomically: true, encoding: .utf8)
        var layout = ListLayout()
        layout.captionColumn = "caption"
        let reader = layout.rowSource(for: [.file(first), .file(second)])
        #expect(reader is ListSequenceReader)
        let rows = Self.rows(reader)
        #expect(rows.map(\.line) == [2, 3, 6, 7, 8])
        #expect(rows.map { $0.position?.list } == [first, first, second, second, second])
        #expect(rows.map { $0.position?.line } == [2, 3, 2, 3, 4])
        #expect(rows.map(\.first) == ["http://h/1.jpg", "http://h/2.jpg", "http://h/3.jpg", "", "http://h/4.jpg"])
        #expect(rows.map(\.caption) == ["one", "two", "three", "", "four"])
        #expect(rows[3].failure?.message == "no URL in column 'url'")
        #expect(reader.failure == nil && reader.linesRead == 8)
        // One list keeps its own numbering and no position.
        let alone = Self.rows(layout.rowSource(for: [.file(second)]))
        #expect(alone.map(\.line) == [2, 3, 4] && alone.allSatisfy { $0.position == nil })
    }

    @Test func parquetFilesAreNumberedOnByTheirRows() throws {
        let folder = ParquetListReaderTests.folder
        let (first, second) = (folder + "/snappy.parquet", folder + "/gzip.parquet")
        let counts = [first, second].map { ParquetListReaderTests.rows($0).rows.count }
        #expect(counts[0] > 1 && counts[1] > 1)
        let rows = Self.rows(ParquetListReaderTests.layout().rowSource(for: [.file(first), .file(second)]))
        #expect(rows.map(\.line) == Array(1...(counts[0] + counts[1])))
        #expect(rows[counts[0]].position == ListPosition(list: second, line: 1))
        #expect(rows.last?.position == ListPosition(list: second, line: counts[1]))
    }

    @Test func aListThatCannotBeReadEndsTheRowsThere() throws {
        let folder = try TemporaryDirectory()
        let first = folder.file("a.txt")
        try "http://h/1.jpg\nhttp://h/2.jpg\n".write(toFile: first, atomically: true, encoding: .utf8)
        let third = folder.file("c.txt")
        try "http://h/3.jpg\n".write(toFile: third, atomically: true, encoding: .utf8)
        let reader = ListLayout().rowSource(for: [.file(first), .file(folder.file("gone.txt")), .file(third)])
        #expect(Self.rows(reader).map(\.first) == ["http://h/1.jpg", "http://h/2.jpg"])
        #expect(reader.failure?.message.contains("gone.txt") == true, "\(String(describing: reader.failure))")
    }

    @Test func listsOfDifferentFormatsAreRefused() throws {
        var layout = ListLayout()
        #expect(throws: ImgError.usage("lists of different formats: 'a.csv' is csv, 'b.jsonl' is jsonl")) {
            try layout.prepare([.file("a.csv"), .file("b.jsonl")])
        }
        layout.format = .lines
        #expect(throws: Never.self) { try layout.checkOneFormat([.file("a.csv"), .file("b.jsonl")]) }
    }

    /// prefetch's URLs given on the command line, then its `--from` list: one word a line, the list's lines numbered
    /// after them (its header and blank lines counted), each of its rows keeping its own line; a word has no list.
    @Test func wordsAndAListAreNumberedOnThroughThem() throws {
        let folder = try TemporaryDirectory()
        let list = folder.file("l.csv")
        try "url\nhttp://h/3.jpg\n\nhttp://h/4.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        let reader = ListLayout().rowSource(for: [.words(["http://h/1.jpg", "http://h/2.jpg"]), .file(list)])
        let rows = Self.rows(reader)
        #expect(rows.map(\.first) == ["http://h/1.jpg", "http://h/2.jpg", "http://h/3.jpg", "http://h/4.jpg"])
        #expect(rows.map(\.line) == [1, 2, 4, 6])
        #expect(rows.map(\.position) == [nil, nil, ListPosition(list: list, line: 2), ListPosition(list: list, line: 4)])
        #expect(reader.failure == nil && reader.linesRead == 6)
        // A Parquet list's rows are numbered after the words too.
        let parquet = ParquetListReaderTests.folder + "/snappy.parquet"
        let count = ParquetListReaderTests.rows(parquet).rows.count
        let mixed = Self.rows(ParquetListReaderTests.layout().rowSource(for: [.words(["http://h/1.jpg"]), .file(parquet)]))
        #expect(mixed.map(\.line) == Array(1...(count + 1)))
        #expect(mixed[1].position == ListPosition(list: parquet, line: 1) && mixed[0].position == nil)
    }
}
