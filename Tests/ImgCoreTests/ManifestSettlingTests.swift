import Foundation
import Testing
@testable import ImgCore

/// Which record of an earlier manifest settles a line: its last, but a `skipped` one (a run stopping) replaces no
/// earlier record of a result, unless it withdraws that run's `ok` (its WebDataset tar could not be written).
@Suite("Manifest: the record that settles a line")
struct ManifestSettlingTests {
    @Test func aSkippedRecordReplacesAnOKOnlyWhenItWithdrawsIt() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("m.jsonl")
        let records = [
            #"{"line":1,"status":"failed","url":"http://h/1.jpg"}"#, #"{"line":1,"status":"skipped","url":"http://h/1.jpg"}"#,
            #"{"line":2,"status":"ok","url":"http://h/2.jpg"}"#,
            #"{"line":2,"status":"skipped","url":"http://h/2.jpg","withdraws_ok":true}"#,
            #"{"line":3,"status":"ok","url":"http://h/3.jpg"}"#, #"{"line":3,"status":"skipped","url":"http://h/3.jpg"}"#,
            #"{"line":4,"status":"skipped","url":"http://h/4.jpg"}"#,
        ]
        try (records.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let manifest = try PreviousManifest(path: path, mode: .retryFailed)
        #expect((1...4).map { manifest.record(line: $0)?.status } == ["failed", "skipped", "ok", "skipped"])
        #expect(manifest.record(line: 2)?.withdrawsOK == true)
        // --retry-failed runs the line whose ok was withdrawn, and carries the one whose ok stands.
        #expect(manifest.retryDecision(line: 2, input: "http://h/2.jpg", malformedLine: nil) == nil)
        #expect(manifest.retryDecision(line: 3, input: "http://h/3.jpg", malformedLine: nil)?.status == "ok")
    }
}
