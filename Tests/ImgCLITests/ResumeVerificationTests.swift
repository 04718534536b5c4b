import Foundation
import Testing

/// `--resume` skips a line only when its record is what this run would make and its files are still the ones
/// recorded (#38 item 3): other options, another `-O`, a truncated output and a tampered path all run again.
@Suite("Resume verification")
struct ResumeVerificationTests {
    private static func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    @Test func otherOptionsAndAnotherFolderRunAgain() throws {
        let fixture = try BatchFixture(count: 2, inProcess: true)
        let lines = (1...2).map { fixture.server.url("/img/img\($0).jpg") }
        let first = fixture.root.file("first.jsonl")
        let run = try fixture.batch(lines, ["--resize", "30x", "--manifest", first])
        #expect(run.status == 0, "\(run.stderr)")
        let records = try Self.lines(first)
        let output = (records[0]["outputs"] as? [[String: Any]])?.first
        #expect((output?["key"] as? String)?.contains("resize(30x") == true)
        let other = fixture.root.file("v2")
        let list = try fixture.list(lines)
        let second = fixture.root.file("second.jsonl")
        let resumed = try Imgfetch.runInProcess(["batch", list, "-O", other, "--cache-dir", fixture.cache, "--no-progress",
                                        "--resize", "10x", "--format", "webp", "--resume", first, "--manifest", second, "-v"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: other)) ?? []).sorted() == ["img1.webp", "img2.webp"])
        #expect(resumed.stderr.contains("done again: made with other options"))
        #expect(resumed.stderr.contains("2 done again (2 made with other options)"))
        #expect(try Self.lines(second).last?["redone"] as? Int == 2)
    }

    @Test func truncatedChangedAndTamperedOutputsRunAgain() throws {
        let fixture = try BatchFixture(count: 3, inProcess: true)
        let lines = (1...3).map { fixture.server.url("/img/img\($0).jpg") }
        let first = fixture.root.file("first.jsonl")
        #expect(try fixture.batch(lines, ["--manifest", first]).status == 0)
        // Line 1's output truncated to 0 bytes; line 2's record says /etc/passwd; line 3's output changed in place.
        _ = FileManager.default.createFile(atPath: fixture.output + "/img1.jpg", contents: Data())
        var text = try String(contentsOfFile: first, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"path\":\"\(fixture.output)/img2.jpg\"", with: "\"path\":\"/etc/passwd\"")
        #expect(text.contains("/etc/passwd"))
        try text.write(toFile: first, atomically: true, encoding: .utf8)
        let third = fixture.output + "/img3.jpg"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: third))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: third))

        let sizes = try fixture.batch(lines, ["--resume", first, "-v"])
        #expect(sizes.status == 0, "\(sizes.stderr)")
        #expect(sizes.stderr.contains("1 done earlier, 2 done again (1 recorded at another path, 1 output size differs)"),
                "\(sizes.stderr)")
        let size = (try FileManager.default.attributesOfItem(atPath: fixture.output + "/img1.jpg")[.size] as? Int) ?? 0
        #expect(size > 0)
        let verified = try fixture.batch(lines, ["--resume", first, "--verify-outputs"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("1 output SHA-256 differs"), "\(verified.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: third)) != bytes)
        let refused = try fixture.batch(lines, ["--verify-outputs"])
        #expect(refused.status == 2 && refused.stderr.contains("--verify-outputs"))
    }

    /// A manifest is streamed: lines of it that the list has no line for cost nothing but their place.
    @Test func manifestWithManyRecordsResumes() throws {
        let fixture = try BatchFixture(count: 1, inProcess: true)
        let lines = [fixture.server.url("/img/img1.jpg")]
        let first = fixture.root.file("first.jsonl")
        #expect(try fixture.batch(lines, ["--manifest", first]).status == 0)
        var text = try String(contentsOfFile: first, encoding: .utf8)
        let record = text.split(separator: "\n")[0]
        for line in 2...2000 { text += record.replacingOccurrences(of: "\"line\":1,", with: "\"line\":\(line),") + "\n" }
        text += "{\"line\":5,\"torn"
        try text.write(toFile: first, atomically: true, encoding: .utf8)
        let resumed = try fixture.batch(lines, ["--resume", first, "-v"])
        #expect(resumed.status == 0 && resumed.stderr.contains("2000 lines recorded") && resumed.stderr.contains("1 done earlier"),
                "\(resumed.stderr)")
    }
}
