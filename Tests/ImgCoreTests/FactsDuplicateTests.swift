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

    @Test func duplicateOptionsNeedFacts() throws {
        for extra in [["--skip-duplicates"], ["--duplicate-distance", "3"], ["--facts", "--duplicate-distance", "65"]] {
            let (run, _) = try batch(extra)
            #expect(run.status == 2, "\(extra): \(run.stderr)")
        }
        #expect(try server.stats().total == 0)
    }
}
