import Foundation
import Testing
@testable import ImgCore

/// Many imgfetch processes on one cache directory: one download per key, no torn entries, consistent after kills.
@Suite("Many processes, one cache", .serialized)
struct MultiProcessTests {
    let work: TemporaryDirectory
    let server: FixtureServer
    var cache: String { work.file("cache") }

    init() throws {
        work = try TemporaryDirectory()
        let root = work.file("www")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let sample = try #require(FileManager.default.contents(atPath: Paths.images + "/sample.jpg"))
        for index in 0..<24 { try sample.write(to: URL(fileURLWithPath: "\(root)/img\(index).jpg")) }
        server = try FixtureServer(root: root)
    }

    @Test func processesRacingOnOneKeyDownloadOnce() throws {
        let url = server.url("/delay/0.5/img0.jpg")
        let racers = try (0..<8).map { index in
            try Imgfetch.launch([url, "--resize", "50x50:fill", "--cache-dir", cache, "-o", work.file("race\(index).jpg")])
        }
        for racer in racers { racer.waitUntilExit() }
        #expect(racers.allSatisfy { $0.terminationStatus == 0 })
        #expect(try server.requests("/delay/0.5/img0.jpg") == 1)
        for index in 0..<8 {
            let data = try #require(FileManager.default.contents(atPath: work.file("race\(index).jpg")))
            #expect(try Rendering.probe(data).width == 50)
        }
    }

    @Test func aWaiterTakesOverWhenTheHolderDies() throws {
        let url = server.url("/delay/2/img1.jpg")
        let holder = try Imgfetch.launch([url, "--cache-dir", cache, "-o", work.file("holder.jpg")])
        try server.waitForRequests("/delay/2/img1.jpg")
        let waiter = try Imgfetch.launch([url, "--cache-dir", cache, "-o", work.file("waiter.jpg")])
        usleep(300_000)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        waiter.waitUntilExit()
        #expect(waiter.terminationStatus == 0)
        #expect(try server.requests("/delay/2/img1.jpg") == 2)
        #expect(!FileManager.default.fileExists(atPath: work.file("holder.jpg")))
        #expect(try Imgfetch.run(["cache", "verify", "--cache-dir", cache]).status == 0)
    }

    @Test func killsPrunesAndCleansLeaveAConsistentCache() throws {
        // Overlapping lists: each names 16 of the 24 images, starting at a different place.
        var lists: [String] = []
        for list in 0..<4 {
            let lines = (0..<16).map { server.url("/slow/img\((list * 4 + $0) % 24).jpg?delay=0.01") }
            let path = work.file("list\(list).txt")
            try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            lists.append(path)
        }
        var reports: [String] = []
        var running: [(Process, Int)] = []
        var launched = 0
        func startBatch(_ list: Int) throws {
            let report = work.file("report\(launched).jsonl")
            launched += 1
            reports.append(report)
            var arguments = ["batch", lists[list], "-O", work.file("out\(launched)"), "--resize", "64x64:fill", "-j", "4",
                             "--json", "--cache-dir", cache, "--no-auto-clean"]
            if list % 2 == 1 { arguments += ["--ttl", "2s"] }
            running.append((try Imgfetch.launch(arguments, output: report), list))
        }
        for list in 0..<4 { try startBatch(list) }
        let deadline = Date().addingTimeInterval(20)
        var kills = 0
        var upkeep: Process?
        var upkeepTurn = 0
        while Date() < deadline {
            // Restart finished batches first, then kill soon after: a batch of cache hits can finish in tens of
            // milliseconds, so a kill that came a fixed 150 ms after the restart found nothing running on a fast machine.
            for (index, entry) in running.enumerated().reversed() where !entry.0.isRunning {
                running.remove(at: index)
                try startBatch(entry.1)
            }
            usleep(UInt32.random(in: 5_000...80_000))
            if upkeep == nil || upkeep?.isRunning == false {
                upkeepTurn += 1
                upkeep = try Imgfetch.launch(upkeepTurn % 2 == 0 ? ["cache", "prune", "--size-limit", "150K", "--cache-dir", cache, "-q"]
                                                        : ["cache", "clean-expired", "--cache-dir", cache, "-q"])
            }
            if Int.random(in: 0..<3) == 0, let victim = running.filter({ $0.0.isRunning }).randomElement() {
                kill(victim.0.processIdentifier, SIGKILL)
                kills += 1
            }
        }
        for (process, _) in running { process.waitUntilExit() }
        upkeep?.waitUntilExit()
        #expect(kills > 3, "only \(kills) kills: the stress test did not stress")

        let verify = try Imgfetch.run(["cache", "verify", "--cache-dir", cache])
        #expect(verify.status == 0, "cache verify: \(verify.stderr) \(verify.stdoutText)")
        #expect(try Self.checkOutputs(reportedIn: reports) > 20)
        let clean = try Imgfetch.run(["cache", "clean-expired", "--temp-age", "0", "--cache-dir", cache, "-q"])
        #expect(clean.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/tmp").isEmpty)
        let inspect = try Imgfetch.run(["cache", "inspect", "--json", "--cache-dir", cache])
        #expect(inspect.status == 0)
    }

    /// Checks that every output the `--json` reports call `ok` is there, 64 × 64; returns how many there were.
    static func checkOutputs(reportedIn reports: [String]) throws -> Int {
        var checked = 0
        for report in reports {
            let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      object["status"] as? String == "ok", let output = object["output"] as? String else { continue }
                let data = try #require(FileManager.default.contents(atPath: output), "reported output \(output) is missing")
                let probe = try Rendering.probe(data)
                #expect(probe.width == 64 && probe.height == 64)
                checked += 1
            }
        }
        return checked
    }
}
