import Foundation
import Testing
@testable import ImgCore

/// A list line with more columns than `URL [NAME]`: named by its line number, recorded whole, its first word not
/// taken for a URL.
@Suite("Batch: lines with more columns")
struct BatchMalformedLineTests {
    @Test func aLineWithMoreColumnsIsNamedByItsNumberAndRecordedWhole() throws {
        let fixture = try BatchFixture(count: 1, inProcess: true)
        let good = fixture.server.url("/img/img1.jpg")
        let secret = fixture.server.url("/img/img1.jpg").replacingOccurrences(of: "://", with: "://alice:secret@")
        let lines = ["# comment", good, "", secret + " name\textra"]
        let manifest = fixture.root.file("m.jsonl")
        let result = try fixture.batch(lines, ["--manifest", manifest, "--json"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("line 4: expected 'URL [NAME]', found more columns [usage, exit 2]"), "\(result.stderr)")
        #expect(!result.stderr.contains("secret"))
        let records = try JSONLines.objects(inFile: manifest)
        let failed = try #require(records.first { $0["status"] as? String == "failed" })
        #expect(failed["line"] as? Int == 4)
        #expect(failed["url"] == nil)
        let masked = secret.replacingOccurrences(of: ":secret@", with: ":***@")
        #expect(failed["raw"] as? String == masked + " name\textra")
        let ok = try #require(records.first { $0["status"] as? String == "ok" })
        #expect(ok["url"] as? String == good && ok["raw"] == nil)
        let json = result.stdoutText.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let record = try #require(json.first { $0["status"] as? String == "error" && $0["summary"] == nil })
        #expect(record["input"] as? String == masked + " name\textra" && record["url"] == nil)
    }
}
