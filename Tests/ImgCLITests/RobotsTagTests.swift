import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// `--disallow-robots-tags`: a response whose `X-Robots-Tag` carries a refused directive for this crawler is
/// `opted_out`, nothing of it written or cached; cached originals and variants are judged by the headers recorded.
@Suite("Opt-out: X-Robots-Tag")
struct RobotsTagTests {
    /// The rule, in process: prefixes, several headers, case, `none`, valued directives.
    @Test func theRuleReadsHeadersAsGoogleDefinesThem() {
        let rule = RobotsTagRule(directives: ["noai", "noindex"], userAgent: "imgfetch/1.0 (+https://example.org)")
        #expect(rule.productToken == "imgfetch")
        #expect(rule.match(["noai"])?.directive == "noai")
        #expect(rule.match(["NoAI"])?.directive == "noai")
        #expect(rule.match(["nofollow, noarchive"]) == nil)
        #expect(rule.match(["otherbot: noai"]) == nil)
        #expect(rule.match(["ImgFetch: noai"])?.agent == "imgfetch")
        // A prefix covers the rest of its header, up to the next prefix, and no other header.
        #expect(rule.match(["otherbot: nofollow, noai"]) == nil)
        #expect(rule.match(["otherbot: nofollow, imgfetch: noai"])?.directive == "noai")
        #expect(rule.match(["otherbot: noindex", "noai"])?.header == "noai")
        // `none` is noindex and nofollow; a valued directive's name is not a crawler's.
        #expect(rule.match(["none"])?.directive == "noindex")
        #expect(rule.match(["unavailable_after: 25 Jun 2010 15:00:00 PST"]) == nil)
        #expect(RobotsTagRule(directives: ["unavailable_after"], userAgent: "x").match(["unavailable_after: 25 Jun 2010"]) != nil)
        #expect(rule.match(["max-image-preview: none"]) == nil)
        #expect(rule.match([]) == nil)
    }

    private static func tagged(_ headers: String, _ file: String) -> String {
        "/robots-tag/" + headers.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "/" + file
    }

    @Test func optedOutLinesAreRecordedNotWrittenNorCached() throws {
        let fixture = try BatchFixture(count: 6, inProcess: true)
        let lines = [fixture.server.url("/img/img1.jpg"),
                     fixture.server.url(Self.tagged("noai", "img2.jpg")),
                     fixture.server.url(Self.tagged("otherbot: noai", "img3.jpg")),
                     fixture.server.url(Self.tagged("imgfetch: NoImageAI", "img4.jpg")),
                     fixture.server.url(Self.tagged("otherbot: noindex\nnoai", "img5.jpg")),
                     fixture.server.url(Self.tagged("noindex", "img6.jpg"))]
        let manifest = fixture.root.file("m.jsonl")
        let result = try fixture.batch(lines, ["--disallow-robots-tags", "noai,noimageai", "--manifest", manifest, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.outputs() == ["img1.jpg", "img3.jpg", "img6.jpg"])
        let records = try JSONLines.objects(inFile: manifest)
        #expect(records.dropLast().map { $0["status"] as? String }
                == ["ok", "opted_out", "ok", "opted_out", "opted_out", "ok"])
        #expect(records.dropLast().map { $0["directive"] as? String } == [nil, "noai", nil, "noimageai", "noai", nil])
        #expect(records[3]["reason"] as? String == "X-Robots-Tag: imgfetch: NoImageAI")
        #expect(records.last?["opted_out"] as? Int == 3 && records.last?["ok"] as? Int == 3)
        let json = try BatchFixture.records(result)
        #expect(json.filter { $0["status"] as? String == "opted_out" }.count == 3)
        #expect(json.last?["optedOut"] as? Int == 3)
        // Nothing of an opted-out response was cached: the cache alone serves the others only.
        let cached = try fixture.batch(lines, ["--only-from-cache", "-O", fixture.root.file("again")])
        #expect(cached.status == 1, "\(cached.stderr)")
        #expect(cached.stderr.contains("3 ok, 3 failed"), "\(cached.stderr)")
    }

    @Test func cachedOriginalsAndVariantsAreJudgedByTheirRecordedHeaders() throws {
        let fixture = try BatchFixture(count: 2, inProcess: true)
        let lines = [fixture.server.url("/img/img1.jpg"), fixture.server.url(Self.tagged("noai", "img2.jpg"))]
        // Without the option (the default for files), every line is written and cached, headers recorded.
        let first = try fixture.batch(lines, ["--resize", "40x"])
        #expect(first.status == 0 && fixture.outputs() == ["img1.jpg", "img2.jpg"], "\(first.stderr)")
        let requests = try fixture.server.stats().total
        // The same variants (cached) and another (from the cached originals): opted out with no request.
        for chain in [["--resize", "40x"], ["--resize", "30x"]] {
            let output = fixture.root.file("out\(chain[1])")
            let manifest = output + ".jsonl"
            let again = try fixture.batch(lines, chain + ["-O", output, "--disallow-robots-tags", "noai", "--manifest", manifest])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("1 ok, 0 failed, 1 opted out, 1 file written"), "\(again.stderr)")
            #expect(try JSONLines.objects(inFile: manifest).dropLast().map { $0["status"] as? String } == ["ok", "opted_out"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: output) == ["img1.jpg"])
        }
        #expect(try fixture.server.stats().total == requests)
        // The user agent's product token decides which prefixed directives apply.
        let agent = try fixture.batch([fixture.server.url(Self.tagged("otherbot: noai", "img1.jpg"))],
                                      ["-O", fixture.root.file("agent"), "--disallow-robots-tags", "noai",
                                       "--user-agent", "OtherBot/2.0", "-v"])
        #expect(agent.stderr.contains("opted out, not written: X-Robots-Tag: otherbot: noai"), "\(agent.stderr)")
    }

    /// A 304 updates the recorded headers: an `X-Robots-Tag` the site added since is judged, and recorded.
    @Test func aRevalidationJudgesTheTagsThe304Carries() throws {
        let fixture = try BatchFixture(count: 2, inProcess: true)
        let header = "noai".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let changed = "noimageai".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        // Untagged for the first request of each path, tagged from the second on (the 304s too).
        let paths = ["/robots-tag-after/1/\(header)/img1.jpg", "/robots-tag-after/1/\(changed)/img2.jpg"]
        let lines = paths.map { fixture.server.url($0) }
        let first = try fixture.batch(lines, ["--ttl", "1s"])
        #expect(first.status == 0 && fixture.outputs() == ["img1.jpg", "img2.jpg"], "\(first.stderr)")
        try CacheClock.advance(fixture.cache, by: 60)
        let output = fixture.root.file("second")
        let manifest = output + ".jsonl"
        let second = try fixture.batch(lines, ["-O", output, "--disallow-robots-tags", "noai", "--manifest", manifest, "-v"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("revalidated"), "\(second.stderr)")
        #expect(try JSONLines.objects(inFile: manifest).dropLast().map { $0["status"] as? String } == ["opted_out", "ok"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: output) == ["img2.jpg"])
        #expect(try paths.map { try fixture.server.requests($0) } == [2, 2])
        // The opted-out original is gone from the cache; the other's new tag is recorded: refused with no request.
        let third = try fixture.batch(lines, ["-O", fixture.root.file("third"), "--only-from-cache",
                                              "--disallow-robots-tags", "noimageai", "--json"])
        #expect(try BatchFixture.records(third).dropLast().map { $0["status"] as? String } == ["error", "opted_out"],
                "\(third.stderr)")
        #expect(try paths.map { try fixture.server.requests($0) } == [2, 2])
    }

    @Test func prefetchRecordsOptOutsAndTheOptionIsRefusedElsewhere() throws {
        let fixture = try BatchFixture(count: 1, inProcess: true)
        let url = fixture.server.url(Self.tagged("noimageindex", "img1.jpg"))
        let prefetch = try Imgfetch.runInProcess(["prefetch", url, "--cache-dir", fixture.cache, "--json",
                                         "--disallow-robots-tags", "noimageindex"])
        #expect(prefetch.status == 0, "\(prefetch.stderr)")
        #expect(try BatchFixture.records(prefetch).first?["status"] as? String == "opted_out")
        let none = try Imgfetch.runInProcess(["prefetch", url, "--cache-dir", fixture.cache, "--json", "--disallow-robots-tags", "none"])
        #expect(try BatchFixture.records(none).first?["status"] as? String == "ok", "\(none.stderr)")
        let bad = try Imgfetch.runInProcess(["prefetch", url, "--disallow-robots-tags", "noai,,x y"])
        #expect(bad.status == 2 && bad.stderr.contains("bad --disallow-robots-tags 'noai,,x y'"), "\(bad.stderr)")
        for command in [["fetch", url, "-o", fixture.root.file("a.jpg")], ["info", url]] {
            let refused = try Imgfetch.runInProcess(command + ["--disallow-robots-tags", "noai"])
            #expect(refused.status == 2 && refused.stderr.contains("--disallow-robots-tags"), "\(refused.stderr)")
        }
        #expect(try fixture.server.requests("/robots-tag/noimageindex/img1.jpg") == 2)
    }
}
