import Foundation
import Testing
@testable import ImgCore

/// `--facts` end to end: the facts of the processed image in --json and -v, stored with the variant in the cache.
@Suite("Facts end to end", .serialized)
struct FactsEndToEndTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    static func record(_ line: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
    }

    static func facts(of record: [String: Any]) -> [String?] {
        ["blurhash", "thumbhash", "dominantColor", "phash"].map { record[$0] as? String }
    }

    @Test func jsonCarriesTheFactsOfTheProcessedImage() throws {
        let output = work.file("a.png")
        let run = try fetch([server.url("/img/sample.jpg"), "--resize", "120x120:fill", "--grayscale", "--facts",
                             "--json", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let record = try Self.record(run.stdout)
        // PNG is lossless: the decoded output is the processed image, so its facts are the same.
        let expected = try ImageInspection.facts(try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(Self.facts(of: record) == [expected.blurhash, expected.thumbhash, expected.dominantColor, expected.phash])
        // Of the processed image, not the original: grey, and unlike the colour original's.
        let dominant = try #require(record["dominantColor"] as? String)
        #expect(dominant.count == 7 && dominant.dropFirst().prefix(2) == dominant.dropFirst(3).prefix(2))
        let original = try ImageInspection.facts(try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg")))
        #expect(original.dominantColor != dominant)
        #expect((record["phash"] as? String)?.count == 16)
        #expect(BlurHash.components(of: try #require(record["blurhash"] as? String))! == (4, 3))
    }

    /// Of the image written: a circle's corners written as JPEG are the background, so its facts change with
    /// `--background` (they were the facts of the transparent image, whatever the background); as PNG they stay.
    @Test func theFactsAreOfTheImageFlattenedOntoTheBackground() throws {
        func facts(_ format: String, _ background: String) throws -> [String?] {
            let run = try fetch([server.url("/img/sample.jpg"), "--resize", "80x80:fill", "--circle", "--format", format,
                                 "--background", background, "--facts", "--json", "-o", work.file("c-\(background).\(format)")])
            #expect(run.status == 0, "\(run.stderr)")
            return Self.facts(of: try Self.record(run.stdout))
        }
        let (black, white) = (try facts("jpeg", "black"), try facts("jpeg", "white"))
        #expect(black[0] != white[0] && black[1] != white[1], "blurhash and thumbhash: \(black) \(white)")
        #expect(try facts("png", "black") == (try facts("png", "white")), "PNG keeps the alpha: the background is unused")
    }

    @Test func withoutFactsTheRecordHasNone() throws {
        let run = try fetch([server.url("/img/sample.jpg"), "--resize", "50x", "--json", "-o", work.file("b.jpg")])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.facts(of: try Self.record(run.stdout)) == [nil, nil, nil, nil])
    }

    @Test func aCacheHitReportsTheStoredFactsWithNoRequest() throws {
        let arguments = [server.url("/img/sample.jpg"), "--resize", "100x", "--facts", "--json", "-v"]
        let first = try fetch(arguments + ["-o", work.file("1.jpg")])
        #expect(first.status == 0, "\(first.stderr)")
        let requests = try server.requests("/img/sample.jpg")
        let second = try fetch(arguments + ["-o", work.file("2.jpg")])
        #expect(second.status == 0, "\(second.stderr)")
        let record = try Self.record(second.stdout)
        #expect(record["source"] as? String == "disk")
        #expect(Self.facts(of: record) == Self.facts(of: try Self.record(first.stdout)))
        #expect(Self.facts(of: record).allSatisfy { $0 != nil })
        #expect(try server.requests("/img/sample.jpg") == requests)
        #expect(second.stderr.contains("facts: blurhash \(record["blurhash"] as! String)"), "\(second.stderr)")
        #expect(second.stderr.contains("libvips: not started"), "a hit with its facts stored decodes nothing")
        // The same hit without --facts reports none, as a run that makes the variant does.
        let plain = try fetch([server.url("/img/sample.jpg"), "--resize", "100x", "--json", "-v", "-o", work.file("3.jpg")])
        #expect(plain.status == 0, "\(plain.stderr)")
        let plainRecord = try Self.record(plain.stdout)
        #expect(Self.facts(of: plainRecord) == [nil, nil, nil, nil], "\(plain.stdoutText)")
        #expect(!plain.stderr.contains("facts:"), "\(plain.stderr)")
    }

    @Test func aVariantStoredWithoutFactsIsRenderedAgainFromTheCachedOriginal() throws {
        let base = [server.url("/img/sample.jpg"), "--resize", "80x", "--json", "-o", work.file("c.png")]
        #expect(try fetch(base).status == 0)
        let requests = try server.requests("/img/sample.jpg")
        let asked = try fetch(base + ["--facts"])
        #expect(asked.status == 0, "\(asked.stderr)")
        let record = try Self.record(asked.stdout)
        #expect(record["source"] as? String == "disk-original")
        #expect(Self.facts(of: record).allSatisfy { $0 != nil })
        #expect(try server.requests("/img/sample.jpg") == requests)
        // Other BlurHash components are other facts: rendered again, then stored and served with them.
        let other = try fetch(base + ["--facts", "--blurhash", "3,5"])
        let otherRecord = try Self.record(other.stdout)
        #expect(otherRecord["source"] as? String == "disk-original")
        #expect(BlurHash.components(of: try #require(otherRecord["blurhash"] as? String))! == (3, 5))
        #expect(otherRecord["phash"] as? String == record["phash"] as? String)
        let again = try Self.record(try fetch(base + ["--facts", "--blurhash", "3,5"]).stdout)
        #expect(again["source"] as? String == "disk")
        #expect(again["blurhash"] as? String == otherRecord["blurhash"] as? String)
        #expect(try server.requests("/img/sample.jpg") == requests)
    }

    @Test func batchRecordsCarryTheFacts() throws {
        let list = work.file("list.txt")
        let url = server.url("/img/sample.jpg")
        try "\(url)\n\(url)\n".write(toFile: list, atomically: true, encoding: .utf8)
        let run = try Imgfetch.run(["batch", list, "-O", work.file("out"), "--resize", "64x", "--facts", "--json",
                                    "--memory-only", "--no-progress"])
        #expect(run.status == 0, "\(run.stderr)")
        let records = try run.stdout.split(separator: UInt8(ascii: "\n")).map { try Self.record(Data($0)) }
            .filter { $0["url"] != nil }
        #expect(records.count == 2)
        #expect(records.allSatisfy { Self.facts(of: $0).allSatisfy { $0 != nil } })
        #expect(Set(records.map { Self.facts(of: $0).compactMap { $0 } }).count == 1)
    }

    @Test func blurhashNeedsFactsAndTwoComponentCounts() throws {
        for bad in [["--blurhash", "4,3"], ["--facts", "--blurhash", "10,3"], ["--facts", "--blurhash", "4"],
                    ["--facts", "--blurhash", "0,2"], ["--facts", "--blurhash", "+4,3"], ["--facts", "--blurhash", "4,03"]] {
            let run = try fetch([server.url("/img/sample.jpg"), "-o", work.file("x.jpg")] + bad)
            #expect(run.status == 2, "\(bad): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1)
        }
        #expect(try server.requests("/img/sample.jpg") == 0)
        #expect(!FileManager.default.fileExists(atPath: work.file("x.jpg")))
    }
}
