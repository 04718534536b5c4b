import Foundation
import Synchronization
import Testing
@testable import ImgCore

/// A fixture server over 20 copies of sample.jpg (`img1.jpg` … `img20.jpg`), with an output and a cache directory.
final class BatchFixture: @unchecked Sendable { // test-local paths and a server, used by one test
    let root: TemporaryDirectory
    let server: FixtureServer
    var output: String { root.path + "/out" }
    var cache: String { root.path + "/cache" }

    init(count: Int = 20) throws {
        root = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root.path + "/www", withIntermediateDirectories: true)
        let sample = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        for index in 1...count { try sample.write(to: URL(fileURLWithPath: root.path + "/www/img\(index).jpg")) }
        try FileManager.default.copyItem(atPath: Paths.images + "/truncated.jpg", toPath: root.path + "/www/truncated.jpg")
        server = try FixtureServer(root: root.path + "/www")
    }

    /// Writes the lines to `list.txt` and returns its path.
    func list(_ lines: [String]) throws -> String {
        let path = root.path + "/list-\(UUID().uuidString).txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `imgfetch batch LIST -O out --cache-dir cache ARGUMENTS`.
    func batch(_ lines: [String], _ arguments: [String] = []) throws -> CommandResult {
        try Imgfetch.run(["batch", try list(lines), "-O", output, "--cache-dir", cache, "--no-progress"] + arguments)
    }

    func outputs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []).sorted()
    }

    /// Decodes an output file's header with ImgCore.
    func probe(_ name: String) throws -> (format: ImageFormat?, width: Int, height: Int, frames: Int) {
        try ImageRenderer.probe(try Data(contentsOf: URL(fileURLWithPath: output + "/" + name)))
    }

    static func records(_ result: CommandResult) throws -> [[String: Any]] {
        try result.stdoutText.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestFailure("not a JSON object: \(line)")
            }
            return object
        }
    }
}

@Suite("Batch: coalescing, limits, naming, reporting, shards, signals")
struct BatchTests {
    @Test func hundredLinesNamingTwentyURLsMakeTwentyRequests() throws {
        let fixture = try BatchFixture()
        var lines: [String] = ["# a comment", ""]
        for round in 0..<5 {
            for index in 1...20 {
                lines.append(fixture.server.url("/img/img\(index).jpg") + (round == 0 ? "" : "?sig=\(round)"))
            }
        }
        let result = try fixture.batch(lines, ["--resize", "64x64:fill", "-j", "8"])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try fixture.server.stats()
        #expect(stats.total == 20)
        #expect(stats.paths.values.allSatisfy { $0 == 1 })
        let names = fixture.outputs()
        #expect(names.count == 100)
        #expect(names.contains("img1.jpg") && names.contains("img1-4.jpg") && !names.contains("img1-5.jpg"))
        for name in names {
            let info = try fixture.probe(name)
            #expect(info.format == .jpeg && info.width == 64 && info.height == 64, "\(name)")
        }
    }

    @Test func twoVariantsMakeOneRequestPerURL() throws {
        let fixture = try BatchFixture()
        let lines = (1...20).map { fixture.server.url("/img/img\($0).jpg") }
        let result = try fixture.batch(lines, ["--variant", "small=resize(32x32,fill)", "--variant", "wide=resize(80x40,exact)",
                                               "--format", "png"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try fixture.server.stats().total == 20)
        #expect(fixture.outputs().count == 40)
        for index in 1...20 {
            let small = try fixture.probe("img\(index)-small.png")
            #expect(small.format == .png && small.width == 32 && small.height == 32)
            let wide = try fixture.probe("img\(index)-wide.png")
            #expect(wide.width == 80 && wide.height == 40)
        }
    }

    /// What is cached under a variant's key never depends on its siblings: each output of a batch with variants
    /// is byte for byte the output of one fetch with that chain.
    @Test func aVariantMadeBesideOthersIsTheVariantMadeAlone() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg")
        let variants = ["a=resize(100x)", "b=resize(90x90,fill)", "c=resize(60x)", "d=resize(50x)|>grayscale",
                        "e=resize(30x30,fill)", "f=grayscale", "g=blur(1)|>resize(40x)"]
        let result = try fixture.batch([url], variants.flatMap { ["--variant", $0] } + ["--no-cache", "--format", "png"])
        #expect(result.status == 0, "\(result.stderr)")
        for variant in variants {
            let (name, chain) = (String(variant.prefix(1)), String(variant.dropFirst(2)))
            let alone = fixture.root.path + "/alone-\(name).png"
            let single = try Imgfetch.run([url, "-p", chain, "--no-cache", "--format", "png", "-o", alone])
            #expect(single.status == 0, "\(single.stderr)")
            let together = FileManager.default.contents(atPath: fixture.output + "/img1-\(name).png")
            #expect(together != nil && together == FileManager.default.contents(atPath: alone), "\(variant)")
        }
    }

    @Test func withoutACacheVariantsStillShareOneDownload() throws {
        let fixture = try BatchFixture(count: 5)
        let lines = (1...5).map { fixture.server.url("/img/img\($0).jpg") }
        let result = try fixture.batch(lines + lines, ["--no-cache", "--variant", "a=resize(10x10,fill)", "--variant", "b=blur(1)"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try fixture.server.stats().total == 5)
        #expect(fixture.outputs().count == 20)
        #expect(!FileManager.default.fileExists(atPath: fixture.cache))
    }

    @Test func connectionsStayWithinThePerHostLimit() throws {
        let fixture = try BatchFixture()
        let lines = (1...20).map { fixture.server.url("/delay/0.2/img\($0).jpg") }
        let result = try fixture.batch(lines, ["-j", "8", "--per-host", "2", "--resize", "20x20"])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try fixture.server.stats()
        #expect(stats.total == 20)
        #expect(stats.max_concurrent_connections >= 1 && stats.max_concurrent_connections <= 2)
        #expect(stats.connections <= 2, "idle connections are pooled per host, so no more than the limit are opened")
    }

    @Test func oneBrokenURLFailsOnlyItself() throws {
        let fixture = try BatchFixture()
        var lines = (1...6).map { fixture.server.url("/img/img\($0).jpg") }
        lines.insert(fixture.server.url("/status/404/missing.jpg"), at: 3)
        lines.append(fixture.server.url("/img/truncated.jpg"))
        let result = try fixture.batch(lines, ["--resize", "40x40:fill", "--retry", "0"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("missing.jpg") && result.stderr.contains("404"))
        #expect(result.stderr.contains("truncated.jpg"))
        #expect(fixture.outputs() == (1...6).map { "img\($0).jpg" }.sorted())
    }

    @Test func failFastStopsStartingWork() throws {
        let fixture = try BatchFixture()
        var lines = [fixture.server.url("/status/404/first.jpg")]
        lines += (1...20).map { fixture.server.url("/delay/0.2/img\($0).jpg") }
        let result = try fixture.batch(lines, ["-j", "1", "--fail-fast"])
        #expect(result.status == 1)
        #expect(try fixture.server.stats().total < 21)
    }

    @Test func jsonRecordsAgreeWithTheFiles() throws {
        let fixture = try BatchFixture()
        var lines = (1...5).map { fixture.server.url("/img/img\($0).jpg") }
        lines.append(fixture.server.url("/status/500/broken.jpg"))
        let result = try fixture.batch(lines, ["--json", "--resize", "50x", "--retry", "0", "--format", "webp"])
        #expect(result.status == 1)
        let records = try BatchFixture.records(result)
        #expect(records.count == 7)
        let items = records.filter { $0["summary"] == nil }
        #expect(items.map { $0["url"] as? String } == lines)
        for record in items where record["status"] as? String == "ok" {
            let output = try #require(record["output"] as? String)
            let data = try Data(contentsOf: URL(fileURLWithPath: output))
            let info = try ImageRenderer.probe(data)
            #expect(record["bytes"] as? Int == data.count)
            #expect(record["width"] as? Int == info.width && info.width == 50)
            #expect(record["height"] as? Int == info.height)
            #expect(record["format"] as? String == "webp" && info.format == .webp)
            #expect(record["source"] as? String == "network")
        }
        let failure = try #require(items.last)
        #expect(failure["status"] as? String == "error")
        #expect((failure["error"] as? [String: Any])?["exit"] as? Int == 4)
        let summary = try #require(records.last)
        #expect(summary["summary"] as? Bool == true)
        #expect(summary["ok"] as? Int == 5 && summary["failed"] as? Int == 1 && summary["written"] as? Int == 5)
    }

    @Test func shardsSplitTheListWithNoOverlapAndNoGap() throws {
        let fixture = try BatchFixture()
        let lines = (1...20).map { fixture.server.url("/img/img\($0).jpg") } + (1...10).map { fixture.server.url("/img/img\($0).jpg?v=2") }
        let list = try fixture.list(lines)
        var seen: [String] = []
        for shard in 0..<3 {
            let result = try Imgfetch.run(["batch", list, "-O", fixture.output + "\(shard)", "--shard", "\(shard)/3", "--json",
                                           "--cache-dir", fixture.cache])
            #expect(result.status == 0, "\(result.stderr)")
            seen += try BatchFixture.records(result).compactMap { $0["url"] as? String }
        }
        #expect(seen.count == lines.count)
        #expect(Set(seen) == Set(lines))
        let bad = try Imgfetch.run(["batch", list, "-O", fixture.output, "--shard", "3/3"])
        #expect(bad.status == 2)
    }

    @Test func anInterruptedBatchLeavesNoPartialFile() throws {
        let fixture = try BatchFixture()
        for (signal, expected) in [(SIGINT, Int32(130)), (SIGTERM, Int32(143))] {
            var lines = (1...2).map { fixture.server.url("/img/img\($0).jpg") }
            lines += (3...12).map { fixture.server.url("/slow/img\($0).jpg?delay=0.3") }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Paths.binary)
            let directory = fixture.output + "-\(signal)"
            process.arguments = ["batch", try fixture.list(lines), "-O", directory, "--no-cache", "-j", "4"]
            process.environment = Paths.childEnvironment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Signal once the slow downloads are under way (each takes seconds), not after a fixed sleep.
            try fixture.server.waitForRequests("/slow/img3.jpg", count: signal == SIGINT ? 1 : 2)
            Thread.sleep(forTimeInterval: 0.5)
            let sent = Date()
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            #expect(process.terminationStatus == expected)
            #expect(Date().timeIntervalSince(sent) < 4, "the batch kept running after the signal")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            #expect(!names.contains { $0.hasPrefix(".") || $0.hasSuffix(".part") }, "\(names)")
            #expect(names.count < lines.count)
            for name in names {
                let info = try ImageRenderer.probe(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
                #expect(info.width == 290 && info.height == 442)
            }
        }
    }

    @Test func nameClashesAreResolvedInInputOrder() throws {
        let fixture = try BatchFixture()
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
        let fixture = try BatchFixture(count: 1)
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
        let fixture = try BatchFixture(count: 1)
        let www = fixture.root.path + "/www"
        var lines: [String] = []
        for folder in 1...12 {
            try FileManager.default.createDirectory(atPath: "\(www)/d\(folder)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Paths.images + "/sample.jpg", toPath: "\(www)/d\(folder)/pic.jpg")
            lines.append(fixture.server.url("/img/d\(folder)/pic.jpg"))
        }
        let list = try fixture.list(lines)
        func names(_ extra: [String], into directory: String) throws -> [String: String] {
            let result = try Imgfetch.run(["batch", list, "-O", directory, "--json", "--no-cache", "--resize", "20x20"] + extra)
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
        let fixture = try BatchFixture(count: 1)
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
        let fixture = try BatchFixture(count: 2)
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
        let fixture = try BatchFixture()
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

    @Test func prefetchFillsTheCacheWithValidatedOriginalsOnly() throws {
        let fixture = try BatchFixture()
        let urls = (1...5).map { fixture.server.url("/img/img\($0).jpg") }
        let list = try fixture.list(Array(urls[3...]) + [fixture.server.url("/img/truncated.jpg")])
        let result = try Imgfetch.run(["prefetch", urls[0], urls[1], urls[2], "--from", list, "--cache-dir", fixture.cache, "--json"])
        #expect(result.status == 1)
        #expect(try fixture.server.stats().total == 6)
        let variants = FileManager.default.enumerator(atPath: fixture.cache)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".variant") }
        #expect(variants?.isEmpty == true)
        // Everything good is cached now: a batch from the cache alone makes no request; the bad one was never cached.
        let again = try fixture.batch(urls, ["--only-from-cache", "--resize", "10x10:fill"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try fixture.server.stats().total == 6)
        let bad = try Imgfetch.run([fixture.server.url("/img/truncated.jpg"), "--only-from-cache", "--cache-dir", fixture.cache,
                                    "-o", fixture.root.file("t.jpg")])
        #expect(bad.status == 6)
    }

    @Test func prefetchWithVariantsStoresThem() throws {
        let fixture = try BatchFixture()
        let urls = (1...3).map { fixture.server.url("/img/img\($0).jpg") }
        let result = try Imgfetch.run(["prefetch"] + urls + ["--variant", "t=resize(30x30,fill)", "--cache-dir", fixture.cache, "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let again = try fixture.batch(urls, ["--variant", "t=resize(30x30,fill)", "--only-from-cache", "--json"])
        #expect(again.status == 0)
        #expect(try BatchFixture.records(again).compactMap { $0["source"] as? String } == ["disk", "disk", "disk"])
        #expect(try fixture.server.stats().total == 3)
    }

    /// Windows editors and Excel save lists with a UTF-8 byte order mark: it is not part of the first URL.
    @Test func aByteOrderMarkBeforeTheFirstLineIsIgnored() throws {
        let fixture = try BatchFixture(count: 2)
        let urls = (1...2).map { fixture.server.url("/img/img\($0).jpg") }
        let list = fixture.root.file("bom.txt")
        try Data([0xEF, 0xBB, 0xBF] + Array((urls.joined(separator: "\r\n") + "\r\n").utf8)).write(to: URL(fileURLWithPath: list))
        let result = try Imgfetch.run(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let items = try BatchFixture.records(result).filter { $0["summary"] == nil }
        #expect(items.map { $0["url"] as? String } == urls)
        #expect(items.allSatisfy { $0["status"] as? String == "ok" })
        #expect(fixture.outputs() == ["img1.jpg", "img2.jpg"])
    }

    /// A directory is no list: refused up front like a missing file (it used to read as an empty list, exit 0).
    @Test func aDirectoryAsTheListIsAUsageError() throws {
        let fixture = try BatchFixture(count: 1)
        let directory = fixture.root.path + "/www"
        for arguments in [["batch", directory, "-O", fixture.output], ["prefetch", "--from", directory]] {
            let result = try Imgfetch.run(arguments + ["--cache-dir", fixture.cache])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("cannot read list '\(directory)': it is a directory"), "\(result.stderr)")
        }
        #expect(try fixture.server.stats().total == 0)
        #expect(fixture.outputs().isEmpty)
    }

    /// A list that fails while it is read (here standard input is a directory: read() fails with EISDIR) is no
    /// shorter list: the items read before it run, one line says why the rest was not, and the exit status is 7.
    @Test func aReadErrorInTheListIsReportedNotTakenForItsEnd() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg")
        let script = #"exec "$0" prefetch "$1" --from - --cache-dir "$2" --json < "$3""#
        let result = try Imgfetch.run(["-c", script, Paths.binary, url, fixture.cache, fixture.root.path + "/www"],
                                      program: "/bin/sh")
        #expect(result.status == 7, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("cannot read list '-' (standard input): Is a directory"), "\(result.stderr)")
        let records = try BatchFixture.records(result)
        #expect(records.first?["url"] as? String == url && records.first?["status"] as? String == "ok")
        #expect(records.last?["summary"] as? Bool == true && records.last?["status"] as? String == "error")
        #expect(try fixture.server.stats().total == 1)

        let batch = try Imgfetch.run(["-c", #"exec "$0" batch - -O "$1" < "$2""#, Paths.binary, fixture.output,
                                      fixture.root.path + "/www"], program: "/bin/sh")
        #expect(batch.status == 7 && batch.stderr.contains("cannot read list '-'"), "\(batch.stderr)")
    }

    /// Runs a batch in this process over `lines` and returns its pipeline, with the most bytes its memory cache
    /// held whenever an item finished.
    func runInProcess(_ fixture: BatchFixture, _ lines: [String], variants: [String], disk: Bool) throws
        -> (pipeline: ImagePipeline, summary: BatchSummary, peakBytes: Int) {
        var configuration = PipelineConfiguration()
        configuration.cacheDirectory = fixture.cache
        configuration.policy.memoryOnly = !disk
        let pipeline = try ImagePipeline(configuration: configuration)
        var template = ImageRequest(source: .standardInput)
        template.chain = try ProcessingChain.parse("resize(40x40)")
        var options = BatchOptions()
        options.jobs = 4
        options.outputDirectory = fixture.output
        options.variants = try variants.map { try BatchVariant(parsing: $0) }
        try OutputWriter.prepareDirectory(fixture.output)
        let peak = Mutex(0)
        let runner = BatchRunner(pipeline: pipeline, template: template, options: options, cancellation: nil) { event in
            if case .item = event { peak.withLock { $0 = max($0, pipeline.memory.totalBytes) } }
        }
        let summary = runner.run([.words(lines)])
        return (pipeline, summary, peak.withLock { $0 })
    }

    /// A batch never reuses the original of a URL it has finished with, nor (with a disk cache to serve a later
    /// line) a variant: its memory cache keeps neither, so a long list of distinct URLs doesn't fill it (500 URLs of
    /// 12-megapixel JPEGs peaked at 415 MB RSS, now 133 MB). Duplicate lines and variants still make one download.
    @Test func aBatchKeepsInMemoryOnlyWhatALaterLineOrVariantUses() throws {
        let fixture = try BatchFixture(count: 8)
        let distinct = (1...8).map { fixture.server.url("/img/img\($0).jpg") }
        let plain = try runInProcess(fixture, distinct, variants: [], disk: true)
        #expect(plain.summary.progress.done == 8 && plain.summary.progress.failed == 0)
        #expect(plain.peakBytes == 0 && plain.pipeline.memory.totalBytes == 0, "\(plain.pipeline.memory.keys)")

        // Without a disk cache, variants stay in memory for later lines; originals only until their last use.
        try FileManager.default.removeItem(atPath: fixture.output)
        let lines = Array(distinct.prefix(4)) + Array(distinct.prefix(4)).reversed()
        let noDisk = try runInProcess(fixture, lines, variants: ["a=resize(10x10)", "b=blur(1)"], disk: false)
        #expect(noDisk.summary.progress.done == 8 && noDisk.summary.progress.failed == 0)
        #expect(try fixture.server.stats().total == 8 + 4)
        let keys = noDisk.pipeline.memory.keys
        #expect(keys.count == 8 && keys.allSatisfy { $0.contains("@") }, "\(keys)")
    }

    @Test func usageErrors() throws {
        let fixture = try BatchFixture(count: 1)
        let list = try fixture.list([fixture.server.url("/img/img1.jpg")])
        for arguments in [["batch", list], ["batch", list, "-O", fixture.output, "-j", "0"],
                          ["batch", list, "-O", fixture.output, "--variant", "x"], ["batch", "/nonexistent", "-O", fixture.output],
                          ["prefetch"], ["batch", list, "-O", fixture.output, "--per-host", "0"]] {
            #expect(try Imgfetch.run(arguments).status == 2, "\(arguments)")
        }
    }
}

@Suite("Batch parts: templates, names, shards, list reading")
struct BatchPartsTests {
    @Test func templatesExpand() throws {
        let template = try NameTemplate("{name}_{variant}-{index}.{hash}.{ext}")
        #expect(template.render(name: "cat", variant: "t", index: 7, hash: "abc", ext: "webp") == "cat_t-7.abc.webp")
        #expect(NameTemplate.plain.render(name: "a", variant: "x", index: 1, hash: "h", ext: "jpg") == "a.jpg")
        #expect(throws: ImgError.self) { try NameTemplate("{nope}") }
        #expect(throws: ImgError.self) { try NameTemplate("x/{name}") }
        #expect(throws: ImgError.self) { try NameTemplate("..{name}") }
        #expect(throws: ImgError.self) { try NameTemplate("a\u{0}b.{ext}") }
        #expect(try NameTemplate.stem(fromColumn: "cat photo.jpg") == "cat_photo")
        #expect(throws: ImgError.self) { try NameTemplate.stem(fromColumn: "../x") }
        #expect(throws: ImgError.self) { try NameTemplate.stem(fromColumn: ".x") }
        #expect(!NameTemplate.isSafeFileName("..") && !NameTemplate.isSafeFileName("a/b") && NameTemplate.isSafeFileName("a..b.jpg"))
    }

    @Test func clashesGetNumberedInClaimOrder() {
        var registry = OutputNameRegistry()
        #expect(registry.claim("a.jpg") == "a.jpg")
        #expect(registry.claim("a.jpg") == "a-1.jpg")
        #expect(registry.claim("a-1.jpg") == "a-1-1.jpg")
        #expect(registry.claim("a.jpg") == "a-2.jpg")
        #expect(registry.claim("noext") == "noext")
        #expect(registry.claim("noext") == "noext-1")
    }

    @Test func namesAreClaimedBeforeTheFormatIsKnown() throws {
        var namer = BatchOutputNamer(template: .plain)
        let first = namer.claim(stem: "pic", shortenable: true, variants: ["original"], index: 1) { _ in "" }
        let second = namer.claim(stem: "pic", shortenable: true, variants: ["original"], index: 2) { _ in "" }
        #expect(try first[0].name(ext: "jpg") == "pic.jpg" && second[0].name(ext: "png") == "pic-1.png")
        var variants = BatchOutputNamer(template: .withVariants)
        let pair = variants.claim(stem: "a", shortenable: true, variants: ["s", "l"], index: 1) { _ in "" }
        #expect(try pair.map { try $0.name(ext: "webp") } == ["a-s.webp", "a-l.webp"])
        #expect(BatchOutputNamer.stem(input: "htp://x/a%20b.jpg?q=1#f", column: nil, source: nil) == ("a_b", false))
        #expect(BatchOutputNamer.stem(input: "htp://x/a.jpg", column: "../bad", source: nil) == ("a", false))
        #expect(BatchOutputNamer.stem(input: "htp://x/a.jpg", column: "good.png", source: nil) == ("good", true))
    }

    @Test func stemsAreShortenedBetweenCharacters() {
        #expect(BatchOutputNamer.shortened("abcdef", by: 2) == "abcd")
        #expect(BatchOutputNamer.shortened("aé€x", by: 2) == "aé")
        #expect(BatchOutputNamer.shortened("€€", by: 5) == "€")
        var namer = BatchOutputNamer(template: try! NameTemplate("{name}_{name}.{ext}"))
        let stem = String(repeating: "s", count: 200)
        let names = (0..<2).map { _ in namer.claim(stem: stem, shortenable: true, variants: ["original"], index: 1) { _ in "" }[0] }
        #expect(names.allSatisfy { $0.pattern.utf8.count - 1 + BatchOutputNamer.longestExtensionBytes <= 255 })
        #expect(names[1].pattern.hasSuffix("-1.\u{0}"))
    }

    @Test func shardsPartitionKeys() throws {
        let keys = (0..<300).map { "http://host/img\($0).jpg" }
        let shards = try (0..<3).map { try Shard(parsing: "\($0)/3") }
        for key in keys { #expect(shards.filter { $0.contains(key: key) }.count == 1) }
        #expect(shards.allSatisfy { shard in keys.filter { shard.contains(key: $0) }.count > 50 })
        for bad in ["3/3", "1", "-1/3", "0/0", "a/b"] { #expect(throws: ImgError.self) { try Shard(parsing: bad) } }
    }

    @Test func listsAreReadLineByLine() throws {
        let directory = try TemporaryDirectory()
        var text = "# header\n\n  http://a/1.jpg  \nhttp://a/2.jpg\tname2\r\n"
        for index in 0..<20_000 { text += "http://a/x\(index).jpg\n" }
        text += "http://a/last.jpg" // no final newline
        try text.write(toFile: directory.file("list"), atomically: true, encoding: .utf8)
        let reader = BatchListReader([.words(["http://w/1.jpg"]), .file(directory.file("list"))])
        let first = try #require(reader.nextLine())
        #expect(first.first == "http://w/1.jpg" && first.line == 1)
        let second = try #require(reader.nextLine())
        #expect(second.first == "http://a/1.jpg" && second.line == 3 && second.second == nil)
        let third = try #require(reader.nextLine())
        #expect(third.first == "http://a/2.jpg" && third.second == "name2")
        var count = 0
        var last = ""
        while let line = reader.nextLine() {
            count += 1
            last = line.first
        }
        #expect(count == 20_001 && last == "http://a/last.jpg")
    }

    @Test func aByteOrderMarkIsDroppedOnlyAtTheStartOfEachInput() throws {
        let directory = try TemporaryDirectory()
        let mark = "\u{FEFF}"
        try "\(mark)http://a/1.jpg one\n\(mark)http://a/2.jpg\n".write(toFile: directory.file("a"), atomically: true, encoding: .utf8)
        try "\(mark)# comment\nhttp://b/1.jpg\n".write(toFile: directory.file("b"), atomically: true, encoding: .utf8)
        let reader = BatchListReader([.file(directory.file("a")), .file(directory.file("b"))])
        var lines: [String] = []
        while let line = reader.nextLine() { lines.append(line.first) }
        // Inside a list it is no byte order mark but part of the line, and left for the URL parser to refuse.
        #expect(lines == ["http://a/1.jpg", "\(mark)http://a/2.jpg", "http://b/1.jpg"])
    }

    @Test func variantsParse() throws {
        let variant = try BatchVariant(parsing: "thumb=resize(200x200,fill)|>round(8)")
        #expect(variant.name == "thumb" && variant.chain.identifier == "resize(200x200,fill)|>round(8)")
        for bad in ["thumb", "=resize(1x1)", "../x=resize(1x1)", "t=resize(", ".t=blur(1)"] {
            #expect(throws: ImgError.self) { try BatchVariant(parsing: bad) }
        }
    }
}
