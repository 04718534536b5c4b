import Foundation
import Synchronization
import Testing
@testable import ImgCore

/// Output names in a batch: clashes, failures, shards, long names, the output directory.
@Suite("Batch: output names")
struct BatchNamingTests {
    @Test func nameClashesAreResolvedInInputOrder() throws {
        let fixture = try BatchFixture(inProcess: true)
        // The first item finishes last, yet keeps the plain name.
        let lines = [fixture.server.url("/delay/0.8/img1.jpg"), fixture.server.url("/img/img1.jpg"),
                     fixture.server.url("/img/img1.jpg?again"), fixture.server.url("/img/img2.jpg") + " img1"]
        let result = try fixture.batch(lines, ["--json", "-j", "4"])
        #expect(result.status == 0, "\(result.stderr)")
        let outputs = try BatchFixture.records(result).compactMap { $0["output"] as? String }.map { ($0 as NSString).lastPathComponent }
        #expect(outputs == ["img1.jpg", "img1-1.jpg", "img1-2.jpg", "img1-3.jpg"])
    }

    /// A failed line still claims its name: once it works, a re-run gives it that name, and every other file keeps
    /// the name (and the content) it had. (It used to claim none, so `pic.jpg` went from a's image to c's.)
    @Test func aFailedLineKeepsItsNameSoARerunGivesNoNameToAnotherURL() throws {
        let fixture = try BatchFixture(count: 1, inProcess: true)
        let www = fixture.root.path + "/www"
        for folder in ["a", "c"] { try FileManager.default.createDirectory(atPath: "\(www)/\(folder)", withIntermediateDirectories: true) }
        try FileManager.default.copyItem(atPath: Paths.images + "/sample.jpg", toPath: www + "/a/pic.jpg")
        let lines = [fixture.server.url("/img/c/pic.jpg"), fixture.server.url("/img/a/pic.jpg"), "htp://bad/pic.jpg",
                     fixture.server.url("/img/img1.jpg") + " pic"]
        let arguments = ["--format", "png", "--retry", "0", "--no-cache", "--json"]
        let first = try fixture.batch(lines, arguments)
        #expect(first.status == 1)
        #expect(fixture.outputs() == ["pic-1.png", "pic-3.png"])
        let a = try #require(FileManager.default.contents(atPath: fixture.output + "/pic-1.png"))

        try FileManager.default.copyItem(atPath: Paths.images + "/sample.png", toPath: www + "/c/pic.jpg")
        let second = try fixture.batch(lines, arguments)
        #expect(second.status == 1, "only the bad line fails: \(second.stderr)")
        #expect(fixture.outputs() == ["pic-1.png", "pic-3.png", "pic.png"])
        #expect(FileManager.default.contents(atPath: fixture.output + "/pic-1.png") == a)
        #expect(FileManager.default.contents(atPath: fixture.output + "/pic.png") != a)
    }

    /// Each shard claims the names of every line, its own or not: the names are those of the whole list in one run.
    @Test func shardsNameEveryLineAsTheWholeListDoes() throws {
        let fixture = try BatchFixture(count: 1, inProcess: true)
        let www = fixture.root.path + "/www"
        var lines: [String] = []
        for folder in 1...12 {
            try FileManager.default.createDirectory(atPath: "\(www)/d\(folder)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Paths.images + "/sample.jpg", toPath: "\(www)/d\(folder)/pic.jpg")
            lines.append(fixture.server.url("/img/d\(folder)/pic.jpg"))
        }
        let list = try fixture.list(lines)
        func names(_ extra: [String], into directory: String) throws -> [String: String] {
            let result = try Imgfetch.runInProcess(["batch", list, "-O", directory, "--json", "--no-cache", "--resize", "20x20"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            var names: [String: String] = [:]
            for record in try BatchFixture.records(result) {
                if let url = record["url"] as? String, let output = record["output"] as? String {
                    names[url] = (output as NSString).lastPathComponent
                }
            }
            return names
        }
        let whole = try names([], into: fixture.output + "-whole")
        #expect(whole.count == 12 && Set(whole.values).count == 12)
        var sharded: [String: String] = [:]
        for shard in 0..<3 {
            sharded.merge(try names(["--shard", "\(shard)/3"], into: fixture.output)) { first, _ in first }
        }
        #expect(sharded == whole)
        #expect(fixture.outputs().count == 12)
    }

    /// A long file name in the URL and a long variant name: the name from the URL is shortened so that, with the
    /// variant, the clash suffix and the extension, it fits 255 bytes (it used to be refused as 'not a plain file name').
    @Test func longNamesFromURLsAreShortenedToFit() throws {
        let fixture = try BatchFixture(count: 1, inProcess: true)
        let long = String(repeating: "x", count: 249)
        for last in ["a", "b"] {
            try FileManager.default.copyItem(atPath: Paths.images + "/sample.jpg", toPath: fixture.root.path + "/www/\(long)\(last).jpg")
        }
        let variant = String(repeating: "v", count: 64)
        let lines = ["a", "b"].map { fixture.server.url("/img/\(long)\($0).jpg") }
        let result = try fixture.batch(lines, ["--variant", "\(variant)=resize(20x20)", "--variant", "s=resize(10x10)"])
        #expect(result.status == 0, "\(result.stderr)")
        let names = fixture.outputs()
        #expect(names.count == 4)
        #expect(names.allSatisfy { $0.utf8.count <= 255 && $0.hasPrefix("xxxxxxxx") }, "\(names)")
        // The shortened names of a and b are equal: b's take the suffix, which still fits.
        #expect(names.filter { $0.hasSuffix("-\(variant).jpg") }.count == 1 && names.filter { $0.hasSuffix("-\(variant)-1.jpg") }.count == 1)
        #expect(names.filter { $0.hasSuffix("-s.jpg") }.count == 1 && names.filter { $0.hasSuffix("-s-1.jpg") }.count == 1)
        #expect(names.contains { $0.utf8.count >= 250 }, "shortened no more than needed")
    }

    /// A name too long because of the template or the list's name is the user's to fix: a clear 'too long' error for
    /// that output (it used to be 'not a plain file name' or, after a clash suffix, 'File name too long', exit 7).
    @Test func namesTooLongBecauseOfTheTemplateOrTheListAreRefusedAsTooLong() throws {
        let fixture = try BatchFixture(count: 2, inProcess: true)
        let url = fixture.server.url("/img/img1.jpg")
        let template = String(repeating: "t", count: 251) + ".{ext}"
        let result = try fixture.batch([url, url], ["--name", template, "--json"])
        #expect(result.status == 1)
        #expect(fixture.outputs() == [String(repeating: "t", count: 251) + ".jpg"])
        let failure = try #require(try BatchFixture.records(result).first { $0["status"] as? String == "error" })
        let error = try #require(failure["error"] as? [String: Any])
        #expect((error["message"] as? String)?.contains("is too long: 257 bytes") == true, "\(error)")
        #expect(error["exit"] as? Int == 2)
        #expect(result.stderr.contains("too long") && !result.stderr.contains("File name too long"), "\(result.stderr)")

        let column = String(repeating: "c", count: 252)
        let listed = try fixture.batch(["\(url) \(column)", "\(fixture.server.url("/img/img2.jpg")) \(String(column.prefix(200)))"])
        #expect(listed.status == 1)
        #expect(listed.stderr.contains("too long") && !listed.stderr.contains("not a plain file name"), "\(listed.stderr)")
        #expect(fixture.outputs().contains(String(column.prefix(200)) + ".jpg"))
    }

    @Test func namesCannotLeaveTheOutputDirectory() throws {
        let fixture = try BatchFixture(inProcess: true)
        let url = fixture.server.url("/img/img1.jpg")
        let lines = ["\(url) ../escape", "\(url) /tmp/abs", "\(url) .hidden", "\(url) a/b", "\(url) ..",
                     fixture.server.url("/img/..%2F..%2Fimg2.jpg"), "\(url) fine.name"]
        let result = try fixture.batch(lines)
        #expect(result.status == 1)
        let names = fixture.outputs()
        #expect(names.contains("fine.jpg"))
        #expect(names.allSatisfy { !$0.hasPrefix(".") })
        #expect(!FileManager.default.fileExists(atPath: fixture.root.path + "/escape.jpg"))
        for template in ["../{name}.{ext}", "{name}/x.{ext}", ".{name}.{ext}", "{name}.{bogus}", "{name", "x}{name}"] {
            let bad = try fixture.batch([url], ["--name", template])
            #expect(bad.status == 2, "\(template)")
        }
        let templated = try fixture.batch([url], ["--name", "{index}-{hash}-{name}-{variant}.{ext}"])
        #expect(templated.status == 0)
        #expect(fixture.outputs().contains { $0.hasPrefix("1-") && $0.hasSuffix("-img1-original.jpg") })
    }
}
