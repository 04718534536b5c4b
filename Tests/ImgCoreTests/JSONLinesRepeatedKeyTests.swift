import Foundation
import Testing
@testable import ImgCore

/// A JSON Lines row that gives a key twice takes its last value, as Python's `json`, pandas and jq read it (so a list
/// makes the dataset img2dataset would make of it); keys of nested objects and text inside strings are not members.
@Suite("JSON Lines: a key given twice")
struct JSONLinesRepeatedKeyTests {
    @Test func onlyTopLevelKeysThatRepeatAreReturnedWithTheirLastValue() throws {
        func repeated(_ text: String) throws -> [String: String] {
            let object = try JSONDecoder().decode([String: ColumnValue].self, from: Data(text.utf8))
            return JSONObjectMembers.lastValuesOfRepeatedKeys(in: text, distinctKeys: object.count)
                .mapValues { String(Substring($0)).trimmingCharacters(in: .whitespaces) }
        }
        #expect(try repeated(#"{"url":"a","url":"b"}"#) == ["url": #""b""#])
        #expect(try repeated(#"{ "url" : "a" , "n": {"url": 1, "k": [1, {"n": 2}]}, "url" : "c,}\"" }"#)
                == ["url": #""c,}\"""#])
        #expect(try repeated(#"{"\u0075rl":"a","url":{"x":[1,2]},"t":1,"t":[3]}"#)
                == ["url": #"{"x":[1,2]}"#, "t": "[3]"])
        #expect(try repeated(#"{"url":"a","n":{"url":"b"}}"#).isEmpty)
        #expect(try repeated(#"{}"#).isEmpty)
    }

    @Test func aListRowTakesTheLastValueOfAKeyGivenTwice() throws {
        let folder = try TemporaryDirectory()
        let list = folder.file("list.jsonl")
        try (#"{"url":"http://h/first.jpg","caption":"one","url":"http://h/last.jpg","caption":{"a":2}}"# + "\n"
             + #"{"url":"http://h/2.jpg","caption":"two"}"# + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        var layout = ListLayout()
        layout.keptColumns = ["caption"]
        let rows = ListSequenceReaderTests.rows(layout.rowSource(for: [.file(list)]))
        #expect(rows.map(\.first) == ["http://h/last.jpg", "http://h/2.jpg"])
        #expect(rows.first?.columns?["caption"] == .object(["a": .integer(2)]))
    }
}
