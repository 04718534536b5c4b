import Foundation
import Testing
@testable import ImgCore

/// A line filtered by `--min-size`, opted out by its `X-Robots-Tag` or disallowed by its robots.txt took the time of
/// its download (or of its robots.txt): its `--json` record and its manifest record give that `ms`, not 0 or none.
@Suite("Batch: the time of filtered and refused lines")
struct BatchDeclinedTimeTests {
    /// The `ms` of the records that are no summary, from `--json` and from the manifest.
    private static func times(_ result: CommandResult, manifest: String) throws -> (json: [Int?], manifest: [Int?]) {
        let json = try BatchFixture.records(result).filter { $0["summary"] == nil }.map { $0["ms"] as? Int }
        let recorded = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }.map { $0["ms"] as? Int }
        return (json, recorded)
    }

    @Test func aFilteredLineGivesTheTimeOfItsDownload() throws {
        let fixture = try BatchFixture(count: 1)
        try FileManager.default.copyItem(atPath: Paths.fixtures + "/pngsuite/basn0g01.png",
                                         toPath: fixture.root.path + "/www/small.png")
        let manifest = fixture.root.file("m.jsonl")
        // 32x32, served after half a second.
        let result = try fixture.batch([fixture.server.url("/delay/0.5/small.png")],
                                       ["--min-size", "64x64", "--json", "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try BatchFixture.records(result).first?["status"] as? String == "filtered", "\(result.stdoutText)")
        let times = try Self.times(result, manifest: manifest)
        #expect(times.json.count == 1 && (times.json[0] ?? 0) >= 450, "\(result.stdoutText)")
        #expect(times.manifest == times.json, "the manifest says what --json says")
    }

    @Test func anOptedOutLineGivesTheTimeOfItsDownload() throws {
        let fixture = try BatchFixture(count: 2)
        let lines = (1...2).map { fixture.server.url("/robots-tag/noai/img\($0).jpg") }
        let manifest = fixture.root.file("m.jsonl")
        // Two requests a second to the host: the second line waits half a second for its turn.
        let result = try fixture.batch(lines, ["--disallow-robots-tags", "noai", "--rate", "2", "-j", "2", "--json",
                                               "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        let statuses = try BatchFixture.records(result).filter { $0["summary"] == nil }.map { $0["status"] as? String }
        #expect(statuses == ["opted_out", "opted_out"], "\(result.stdoutText)")
        let times = try Self.times(result, manifest: manifest)
        #expect(times.json.count == 2 && times.json.allSatisfy { $0 != nil }, "\(result.stdoutText)")
        #expect(times.json.compactMap { $0 }.max() ?? 0 >= 300, "\(result.stdoutText)")
        #expect(times.manifest == times.json, "the manifest says what --json says")
    }

    @Test func aLineItsRobotsTxtDisallowsGivesTheTimeOfTheRobotsTxt() throws {
        let folder = try TemporaryDirectory()
        let robots = folder.file("robots.txt")
        try "User-agent: *\nDisallow: /img/\n".write(toFile: robots, atomically: true, encoding: .utf8)
        let server = try FixtureServer(robots: "file:" + robots, robotsDelay: 0.5)
        let (list, manifest) = (folder.file("list.txt"), folder.file("m.jsonl"))
        try (server.url("/img/sample.jpg") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let result = try Imgfetch.run(["batch", list, "-O", folder.file("out"), "--cache-dir", folder.file("cache"), "--no-progress",
                                       "--robots-txt", "--json", "--manifest", manifest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try BatchFixture.records(result).first?["status"] as? String == "robots_disallowed", "\(result.stdoutText)")
        let times = try Self.times(result, manifest: manifest)
        #expect(times.json.count == 1 && (times.json[0] ?? 0) >= 450, "\(result.stdoutText)")
        #expect(times.manifest == times.json, "the manifest says what --json says")
    }
}
