import Foundation
import Testing
@testable import ImgCore

/// `batch --facts` marks near-duplicates by phash (`--duplicate-distance`, `--skip-duplicates`): two real photos and
/// resized copies of one of them.
@Suite("Batch near-duplicates", .serialized)
struct FactsDuplicateTests {
    let root: TemporaryDirectory
    let server: FixtureServer

    init() throws {
        root = try TemporaryDirectory()
        let www = root.path + "/www"
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        for photo in ["grass.jpg", "plane.jpg"] {
            try FileManager.default.copyItem(atPath: Paths.images + "/photos/" + photo, toPath: www + "/" + photo)
        }
        // Resized copies of one photo, in other formats: what a crawl finds as near-duplicates.
        for (width, name) in [(500, "plane-500.jpg"), (700, "plane-700.png")] {
            let made = try Imgfetch.run([Paths.images + "/photos/plane.jpg", "--no-cache", "--resize", "\(width)x",
                                         "-o", www + "/" + name])
            #expect(made.status == 0, "\(made.stderr)")
        }
        server = try FixtureServer(root: www)
    }

    var lines: [String] {
        ["/img/plane.jpg", "/img/grass.jpg", "/img/plane-500.jpg", "/img/plane-700.png"].map { server.url($0) }
    }

    func batch(_ extra: [String], out: String = "out") throws -> (CommandResult, [[String: Any]]) {
        let list = root.path + "/list-\(UUID().uuidString).txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let run = try Imgfetch.run(["batch", list, "-O", root.path + "/" + out, "--cache-dir", root.path + "/cache",
                                    "--no-progress", "--json", "--resize", "400x"] + extra)
        let records = try run.stdout.split(separator: UInt8(ascii: "\n")).map {
            try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }.filter { $0["url"] != nil }
        return (run, records)
    }

    @Test func resizedCopiesAreDuplicatesOfTheFirstLine() throws {
        let (run, records) = try batch(["--facts", "-j", "4"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(records.map { $0["duplicateOf"] as? String } == [nil, nil, lines[0], lines[0]])
        #expect(records.allSatisfy { $0["output"] != nil && $0["skipped"] == nil })
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path + "/out").count == 4)
        // Distance 64: every hash is within it, so every later line is a duplicate of the first.
        let (_, loose) = try batch(["--facts", "--duplicate-distance", "64"], out: "loose")
        #expect(loose.map { $0["duplicateOf"] as? String } == [nil, lines[0], lines[0], lines[0]])
    }

    @Test func skipDuplicatesWritesNoFileForThem() throws {
        let (run, records) = try batch(["--facts", "--skip-duplicates", "-v"])
        #expect(run.status == 0, "\(run.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: root.path + "/out").sorted()
        #expect(written == ["grass.jpg", "plane.jpg"])
        #expect(records.map { $0["skipped"] as? String } == [nil, nil, "duplicate", "duplicate"])
        #expect(records.map { $0["output"] == nil } == [false, false, true, true])
        #expect(run.stderr.contains("duplicate of \(lines[0]): not written (--skip-duplicates)"), "\(run.stderr)")
    }

    func manifest(_ path: String) throws -> [[String: Any]] {
        try Data(contentsOf: URL(fileURLWithPath: path)).split(separator: UInt8(ascii: "\n")).map {
            try #require(try JSONSerialization.jsonObject(with: Data($0)) as? [String: Any])
        }.filter { $0["url"] != nil }
    }

    @Test func theManifestRecordsDuplicatesAndAResumedRunStillSkipsThem() throws {
        let first = root.path + "/first.jsonl"
        let (run, _) = try batch(["--facts", "--skip-duplicates", "--manifest", first])
        #expect(run.status == 0, "\(run.stderr)")
        let outputs = try manifest(first).map { try #require(($0["outputs"] as? [[String: Any]])?.first) }
        #expect(outputs.map { $0["duplicate_of"] as? String } == [nil, nil, lines[0], lines[0]])
        #expect(outputs.map { $0["path"] == nil } == [false, false, true, true])
        #expect(outputs.map { $0["skipped"] as? String } == [nil, nil, "duplicate", "duplicate"], "as --json says")
        #expect(outputs.allSatisfy { ($0["phash"] as? String)?.count == 16 })

        // A run killed after its first line: resumed, the lines after are still compared with that line.
        let cut = root.path + "/cut.jsonl"
        let firstLine = try #require(try String(contentsOfFile: first, encoding: .utf8).split(separator: "\n").first)
        try (firstLine + "\n").write(toFile: cut, atomically: true, encoding: .utf8)
        try FileManager.default.removeItem(atPath: root.path + "/out/grass.jpg")
        let (resumed, _) = try batch(["--facts", "--skip-duplicates", "--resume", cut])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path + "/out").sorted() == ["grass.jpg", "plane.jpg"])

        // Resumed from the whole manifest, every line is done earlier, the skipped duplicates too.
        let again = root.path + "/again.jsonl"
        let (whole, _) = try batch(["--facts", "--skip-duplicates", "--resume", first, "--manifest", again])
        #expect(whole.status == 0, "\(whole.stderr)")
        #expect(try manifest(again).map { $0["reason"] as? String } == Array(repeating: "done earlier", count: 4))
        // Without --skip-duplicates, the duplicates not written run again and are written.
        let (written, _) = try batch(["--facts", "--resume", first])
        #expect(written.status == 0, "\(written.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path + "/out").count == 4)
    }

    @Test func duplicateOptionsNeedFacts() throws {
        for extra in [["--skip-duplicates"], ["--duplicate-distance", "3"], ["--facts", "--duplicate-distance", "65"]] {
            let (run, _) = try batch(extra)
            #expect(run.status == 2, "\(extra): \(run.stderr)")
        }
        #expect(try server.stats().total == 0)
    }
}
