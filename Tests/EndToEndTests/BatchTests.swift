import Foundation
import Synchronization
import Testing
@testable import ImgCore

@Suite("Batch: coalescing, limits, lists, reporting, shards, signals")
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

    /// With lines at once, the first failure stops the starts at once, not when the slow lines before it are done
    /// (the runner stopped only once the failure was retired in list order: 90 more lines were fetched and written).
    @Test func failFastStopsStartingAsSoonAsALineFails() throws {
        let fixture = try BatchFixture(count: 40)
        var lines = [fixture.server.url("/delay/3/img1.jpg"), fixture.server.url("/status/404/second.jpg")]
        lines += (3...40).map { fixture.server.url("/img/img\($0).jpg") }
        let result = try fixture.batch(lines, ["-j", "4", "--fail-fast"])
        #expect(result.status == 1, "\(result.stderr)")
        let started = try fixture.server.stats().paths.filter { $0.key.hasPrefix("/img/") }.count
        #expect(started < 12, "\(started) lines after the failure were started")
        #expect(fixture.outputs().count == started + 1, "\(fixture.outputs())")
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
            let info = try Rendering.probe(data)
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
            let directory = fixture.output + "-\(signal)"
            let process = try Imgfetch.launch(["batch", try fixture.list(lines), "-O", directory, "--no-cache", "-j", "4"])
            // Signal once the slow downloads are under way (each takes seconds), not after a fixed sleep.
            try fixture.server.waitForRequests("/slow/img3.jpg", count: signal == SIGINT ? 1 : 2)
            Thread.sleep(forTimeInterval: 0.5)
            let sent = Date()
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            #expect(process.terminationStatus == expected)
            // A bound for a loaded machine: run on, the ten slow downloads (~7 s each, 4 at a time) take ~20 s more.
            #expect(Date().timeIntervalSince(sent) < 10, "the batch kept running after the signal")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            #expect(!names.contains { $0.hasPrefix(".") || $0.hasSuffix(".part") }, "\(names)")
            #expect(names.count < lines.count)
            for name in names {
                let info = try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
                #expect(info.width == 290 && info.height == 442)
            }
        }
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
        let result = try Imgfetch.run(["prefetch"] + urls + ["--variant", "t=resize(30x30,fill)", "--cache-dir", fixture.cache])
        #expect(result.status == 0, "\(result.stderr)")
        // The summary says what prefetch did: no file, the cache only (it read "0 failed (cached)").
        #expect(result.stderr.hasPrefix("imgfetch: 3 ok, 0 failed, no file written (prefetch fills the cache only) in "),
                "\(result.stderr)")
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

    /// A directory of no lists (here images) is refused up front like a missing file (it used to read as an empty
    /// list, exit 0): batch's, whose folder stands for the lists in it, and prefetch's --from, which reads one file.
    @Test func aDirectoryAsTheListIsAUsageError() throws {
        let fixture = try BatchFixture(count: 1)
        let directory = fixture.root.path + "/www"
        let cases = [(["batch", directory, "-O", fixture.output], "list folder '\(directory)' holds no list (no file "
                      + "ending .txt, .csv, .tsv, .jsonl, .ndjson, .parquet; names starting with '.' or '_' are skipped)"),
                     (["prefetch", "--from", directory], "cannot read list '\(directory)': it is a directory")]
        for (arguments, message) in cases {
            let result = try Imgfetch.run(arguments + ["--cache-dir", fixture.cache])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
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

    @Test func usageErrors() throws {
        let fixture = try BatchFixture(count: 1)
        let list = try fixture.list([fixture.server.url("/img/img1.jpg")])
        for arguments in [["batch", list], ["batch", list, "-O", fixture.output, "-j", "0"],
                          ["batch", list, "-O", fixture.output, "--variant", "x"], ["batch", "/nonexistent", "-O", fixture.output],
                          ["prefetch"], ["batch", list, "-O", fixture.output, "--per-host", "0"]] {
            #expect(try Imgfetch.run(arguments).status == 2, "\(arguments)")
        }
    }

    /// -j defaults to twice the cores, at least 16 (enough transfers to cover a network's round trips).
    @Test func workersDefaultToTwiceTheCoresAtLeastSixteen() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(BatchOptions().jobs == max(16, 2 * cores))
        #expect(BatchOptions.defaultJobs == max(16, 2 * cores))
    }

    /// Renderings at once default to one more than the cores (a rendering's one-thread decode leaves no core idle),
    /// in a pipeline and in the warm renderer.
    @Test func renderingsDefaultToOneMoreThanTheCores() {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(PipelineConfiguration().renderingSlots == cores + 1)
        #expect(PipelineConfiguration.defaultRenderingSlots == cores + 1)
    }
}
