import Foundation
import Testing

/// Lines that share one download in flight: only the line whose request reached the server reports `network`.
@Suite struct BatchSharedDownloadTests {
    /// Three lines of one original (the third under another query, the same key), fetched at once while the server
    /// takes a second to answer: one request, and the lines that joined it report `memory` in `--json` and in the
    /// manifest (each said `network`).
    @Test func linesJoiningADownloadInFlightReportMemory() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/delay/1/img1.jpg")
        let manifest = fixture.root.file("m.jsonl")
        let result = try fixture.batch(["\(url) a.jpg", "\(url) b.jpg", "\(url)?v=2 c.jpg"],
                                       ["-j", "4", "--resize", "32x32", "--json", "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try fixture.server.stats().total == 1)
        let sources = try BatchFixture.records(result).compactMap { $0["source"] as? String }.sorted()
        #expect(sources == ["memory", "memory", "network"])
        let manifestSources = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n").flatMap { line in
            let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return ((record?["outputs"] as? [[String: Any]]) ?? []).compactMap { $0["source"] as? String }
        }
        #expect(manifestSources.sorted() == ["memory", "memory", "network"])
    }
}
