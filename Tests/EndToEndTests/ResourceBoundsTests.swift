import Foundation
import Testing
@testable import ImgCore

/// Memory and time bounds that hold for every input (#19.9): decode memory estimated from the header and
/// refused past --max-decode-memory, admitted by a budget in a batch; a chain's output counted against
/// --max-pixels; --max-render-time; a batch list line of at most 64 KiB.
@Suite("Resource bounds", .serialized)
struct ResourceBoundsTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    func measured(_ arguments: [String]) throws -> (status: Int, peakKiB: Int, stderr: String) {
        try Imgfetch.measured(arguments)
    }

    /// A 9999×9999 progressive JPEG of 0.6 MB took 346 MB to thumbnail (libjpeg keeps every coefficient); a
    /// baseline one streams. The progressive one is refused from its header, in one line, without the memory.
    @Test func aProgressiveJPEGPastMaxDecodeMemoryIsRefusedFromItsHeader() throws {
        let progressive = work.file("progressive.jpg"), baseline = work.file("baseline.jpg")
        try GeneratedImages.writeFlat(width: 9999, height: 9999, suffix: ".jpg[Q=75,interlace]", to: progressive)
        try GeneratedImages.writeFlat(width: 9999, height: 9999, suffix: ".jpg[Q=75]", to: baseline)
        #expect(GeneratedImages.size(of: progressive) < 2_000_000)

        for (path, isProgressive) in [(progressive, true), (baseline, false)] {
            let pinned = PinnedBytes(try Data(contentsOf: URL(fileURLWithPath: path)))
            let estimate = DecodeMemory.estimate(ByteReader(memory: UnsafeRawBufferPointer(start: pinned.pointer, count: pinned.count)),
                                                 header: ImageDecoder.Header(loader: "jpeg", format: .jpeg, width: 9999,
                                                                             frameHeight: 9999, frames: 1))
            if isProgressive {
                #expect(estimate.what == "progressive JPEG" && estimate.bytes > 280 << 20, "\(estimate)")
            } else {
                #expect(estimate.what == nil && estimate.bytes < 32 << 20, "\(estimate)")
            }
        }

        let refused = try measured([progressive, "--resize", "200x200", "--no-cache", "-o", work.file("p.jpg")])
        #expect(refused.status == 5, "\(refused.stderr)")
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("progressive JPEG") && refused.stderr.contains("--max-decode-memory 256 MiB"), "\(refused.stderr)")
        #expect(refused.peakKiB < 150 * 1024, "peak \(refused.peakKiB) KiB")
        #expect(!FileManager.default.fileExists(atPath: work.file("p.jpg")))

        let streamed = try Imgfetch.run([baseline, "--resize", "200x200", "--no-cache", "-o", work.file("b.jpg")])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        let allowed = try Imgfetch.run([progressive, "--resize", "200x200", "--max-decode-memory", "400M", "--no-cache",
                                        "-o", work.file("q.jpg")])
        #expect(allowed.status == 0, "\(allowed.stderr)")
    }

    @Test func anInterlacedPNGIsCountedWhole() throws {
        let interlaced = work.file("interlaced.png"), plain = work.file("plain.png")
        try GeneratedImages.writeFlat(width: 2000, height: 2000, suffix: ".png[interlace]", to: interlaced)
        try GeneratedImages.writeFlat(width: 2000, height: 2000, suffix: ".png", to: plain)
        let refused = try Imgfetch.run([interlaced, "--resize", "100x100", "--max-decode-memory", "8M", "--no-cache", "-o", work.file("i.png")])
        #expect(refused.status == 5 && refused.stderr.contains("interlaced PNG needs about 12 MiB"), "\(refused.stderr)")
        let streamed = try Imgfetch.run([plain, "--resize", "100x100", "--max-decode-memory", "8M", "--no-cache", "-o", work.file("p.png")])
        #expect(streamed.status == 0, "\(streamed.stderr)")
    }

    /// A limit below 1 MiB is worded as it was given (`1K` was "1 MiB"), and the estimate over it in KiB, not
    /// rounded up to "1 MiB" too.
    @Test func aSmallDecodeMemoryLimitIsWordedExactly() throws {
        let image = Paths.images + "/generated/progressive.jpg"
        for (limit, worded) in [("1K", "1 KiB"), ("1000", "1000 bytes"), ("100KiB", "100 KiB")] {
            let refused = try Imgfetch.run([image, "--max-decode-memory", limit, "--no-cache", "-o", work.file("s.jpg")])
            #expect(refused.status == 5, "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("over --max-decode-memory \(worded) ["), "\(limit): \(refused.stderr)")
            #expect(refused.stderr.contains("a 290x442 progressive JPEG needs about ")
                    && refused.stderr.contains(" KiB to decode") && !refused.stderr.contains("MiB"), "\(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: work.file("s.jpg")))
        #expect(ByteSize.exact(1536 << 10) == "1536 KiB" && ByteSize.exact(256 << 20) == "256 MiB"
                && ByteSize.exact(1) == "1 byte" && ByteSize.exact(3 << 30) == "3 GiB")
    }

    /// Decodes at once stay within the limit together, however many threads run them; one alone always runs.
    @Test func theBudgetAdmitsDecodesByTheirMemory() {
        let budget = DecodeMemoryBudget()
        let limit: Int64 = 100
        let peak = Locked<(running: Int64, most: Int64)>((0, 0))
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<20 {
                let bytes: Int64 = (worker + round) % 3 == 0 ? 60 : 25
                try? budget.admitting(bytes, limit: limit) { () throws(ImgError) in
                    peak.withLock { $0.running += bytes; $0.most = max($0.most, $0.running) }
                    usleep(500)
                    peak.withLock { $0.running -= bytes }
                }
            }
        }
        #expect(peak.withLock { $0.most } <= limit)
        #expect(budget.inUse == 0)
        // Over the limit alone: admitted when nothing else runs.
        var ran = false
        try? budget.admitting(500, limit: limit) { () throws(ImgError) in ran = true }
        #expect(ran)
    }

    /// `--resize 30000x30000:fill` on a 128×128 PNG peaked at 2.7 GB: the output's size is known from the header.
    @Test func aChainsOutputCountsAgainstMaxPixels() throws {
        let huge = try measured([Paths.images + "/rgba.png", "--resize", "30000x30000:fill", "--no-cache", "-o", work.file("h.png")])
        #expect(huge.status == 5, "\(huge.stderr)")
        #expect(huge.stderr.contains("30000x30000") && huge.stderr.contains("--max-pixels 100000000"), "\(huge.stderr)")
        #expect(huge.peakKiB < 150 * 1024, "peak \(huge.peakKiB) KiB")
        let turned = try Imgfetch.run([Paths.images + "/rgba.png", "--resize", "2000x100:exact", "--rotate", "90",
                                       "--max-pixels", "150000", "--no-cache", "-o", work.file("t.png")])
        #expect(turned.status == 5 && turned.stderr.contains("--max-pixels 150000"), "\(turned.stderr)")
        // cover scales by the side that needs it most: 128x128 covering 40000x100 is 40000x40000.
        let covered = try Imgfetch.run([Paths.images + "/rgba.png", "--resize", "40000x100:cover", "--no-cache",
                                        "-o", work.file("c.png")])
        #expect(covered.status == 5 && covered.stderr.contains("40000x40000"), "\(covered.stderr)")
        let fine = try Imgfetch.run([Paths.images + "/rgba.png", "--resize", "300x300:fill", "--max-pixels", "90000",
                                     "--no-cache", "-o", work.file("f.png")])
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    /// A small SVG drawn 9000 px wide and blurred runs for minutes; --max-render-time stops libvips (exit 5).
    @Test func aRenderingPastMaxRenderTimeIsStopped() throws {
        let svg = work.file("drawing.svg")
        try ##"<svg xmlns="http://www.w3.org/2000/svg" width="90" height="90"><rect width="90" height="90" fill="#c33"/><circle cx="45" cy="45" r="30" fill="#36c"/></svg>"##
            .write(toFile: svg, atomically: true, encoding: .utf8)
        let started = Date()
        let result = try Imgfetch.run([svg, "--resize", "9000x9000", "--upscale", "--blur", "8", "--max-render-time", "1",
                                       "--no-cache", "-o", work.file("d.png")])
        // Only a sanity bound: unbounded, this rendering takes minutes.
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("rendering stopped after --max-render-time 1s"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("d.png")))
        let bad = try Imgfetch.run([svg, "--max-render-time", "0", "--no-cache", "-o", work.file("e.png")])
        #expect(bad.status == 2 && bad.stderr.contains("--max-render-time"), "\(bad.stderr)")
    }

    /// A progressive JPEG of more scans than libjpeg-turbo's tools allow (each a pass over every coefficient, all
    /// read before the first row) is refused before it is decoded: one of 8000x8000 and thousands of scans took
    /// minutes, past --max-render-time and signals.
    @Test func aJPEGOfTooManyScansIsRefused() throws {
        let base = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/generated/progressive.jpg"))
        let file = work.file("scans.jpg")
        try ScanBomb.make(from: base, scans: 600, blocks: 4096).write(to: URL(fileURLWithPath: file))
        let result = try Imgfetch.run([file, "--resize", "32", "--no-cache", "-o", work.file("s.jpg")])
        #expect(result.status == 5 && result.stderr.contains("more than 500 scans"),
                "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("s.jpg")))
        // Start-of-scan bytes that libjpeg never reads as markers, in an application segment and after the end (a
        // Motion Photo's video), are not scans.
        var marks: [UInt8] = []
        for _ in 0..<600 { marks += [0xFF, 0xDA] }
        let length = marks.count + 2
        var padded = Data([0xFF, 0xD8, 0xFF, 0xEF, UInt8(length >> 8), UInt8(length & 0xFF)])
        padded += marks
        padded += base.dropFirst(2)
        padded += marks
        try padded.write(to: URL(fileURLWithPath: work.file("padded.jpg")))
        let kept = try Imgfetch.run([work.file("padded.jpg"), "--resize", "32", "--no-cache", "-o", work.file("p.jpg")])
        #expect(kept.status == 0, "\(kept.stderr)")
    }

    /// A rendering that ends past --max-render-time fails: libjpeg reads a progressive JPEG's scans in one call, which
    /// the stop does not reach, and such a rendering was written and reported a success.
    @Test func aRenderingThatEndsPastItsTimeFails() throws {
        let base = work.file("large.jpg"), file = work.file("slow.jpg")
        try GeneratedImages.writeFlat(width: 6000, height: 6000, suffix: ".jpg[Q=50,interlace]", to: base)
        let bomb = try ScanBomb.make(from: try Data(contentsOf: URL(fileURLWithPath: base)), scans: 480, blocks: 750 * 750)
        try bomb.write(to: URL(fileURLWithPath: file))
        let result = try Imgfetch.run([file, "--resize", "32", "--max-render-time", "0.3", "--no-cache", "-o", work.file("t.jpg")])
        #expect(result.status == 5 && result.stderr.contains("rendering stopped after --max-render-time 0.3s"),
                "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("t.jpg")))
    }

    /// A rendering's alarm is cancelled (and freed) when the rendering ends, so a batch's finished renderings leave no
    /// timer pending for the rest of --max-render-time (with `asyncAfter`, 60 s of renderings' timers were pending
    /// at any time of a long batch); its expiry is checked end to end above.
    @Test func aRenderClockCancelsItsAlarmWhenTheRenderingEnds() {
        let clock = RenderClock(seconds: 60)
        #expect(!clock.alarmCancelled)
        clock.end()
        #expect(clock.alarmCancelled && !clock.expired)
    }

    /// A list line is read up to 64 KiB: a longer one fails alone, by its line number, and the list goes on.
    @Test func aBatchLineOverTheLimitFailsAloneWithItsNumber() throws {
        let long = String(repeating: "x", count: 70_000)
        let list = work.file("list.txt")
        try ([Paths.images + "/sample.jpg", long, Paths.images + "/rgba.png", "http://127.0.0.1:9/" + long].joined(separator: "\n"))
            .write(toFile: list, atomically: true, encoding: .utf8)
        let reader = BatchListReader([.file(list)])
        var lines: [(Int, Bool)] = []
        while let line = reader.nextLine() { lines.append((line.line, line.tooLong)) }
        #expect(lines.map(\.0) == [1, 2, 3, 4] && lines.map(\.1) == [false, true, false, true])

        let result = try Imgfetch.run(["batch", list, "-O", work.file("out"), "--no-cache", "--no-progress"])
        #expect(result.status == 1, "\(result.stderr)")
        // The line's start is marked as cut: it is no URL of the list.
        #expect(result.stderr.contains(String(repeating: "x", count: 100) + "…: line 2 is over 65536 bytes")
                && result.stderr.contains("line 4 is over 65536 bytes"),
                "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.file("out/sample.jpg")))
        #expect(FileManager.default.fileExists(atPath: work.file("out/rgba.png")))
    }

    /// A batch over URLs of many hosts keeps at most 64 idle transfer handles (each holding its kept-alive
    /// connection and libcurl's own descriptors), not one for every host it met: 600 hosts within 400 descriptors.
    /// Before, each host's handle stayed open, and past the limit every line failed ("Too many open files").
    @Test func aBatchOverManyHostsKeepsItsDescriptorsBounded() throws {
        let hosts = 600
        let server = try FixtureServer(aliases: hosts)
        let list = work.file("hosts.txt"), manifest = work.file("hosts.jsonl")
        try (0..<hosts).map { server.aliasURL($0, "/img/sample.jpg") }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let result = try Imgfetch.run(["batch", list, "-O", work.file("hosts-out"), "--resize", "16x16", "--cache-dir", work.file("hosts-cache"),
                                       "--no-progress", "--manifest", manifest],
                                      program: "/bin/sh", prefix: ["-c", "ulimit -n 400 && exec \"$0\" \"$@\"", Paths.binary])
        #expect(result.status == 0, "\(result.stderr.prefix(1000))")
        let records = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }
        #expect(records.count == hosts && records.allSatisfy { $0["status"] as? String == "ok" })
    }
}
