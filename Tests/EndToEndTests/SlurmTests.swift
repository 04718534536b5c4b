import Foundation
import Testing
@testable import ImgCore

/// A real one-node Slurm cluster (scripts/slurm-cluster.sh; `make test` installs slurm-wlm and munge): an array of
/// `imgfetch batch --shard auto` splits a list as one run would make it, and a task killed part way is completed by
/// resubmitting the array with `--resume`.
@Suite("Slurm job array", .enabled(if: SlurmCluster.available, "needs root and slurm-wlm + munge (make deps)"))
struct SlurmTests {
    @Test(.timeLimit(.minutes(3)))
    func anArrayWithShardAutoSplitsTheListAndResumeCompletesAKilledTask() throws {
        let fixture = try BatchFixture(count: 16)
        let cluster = try SlurmCluster(directory: fixture.root.file("slurm"))
        defer { cluster.stop() }
        let fast = (1...16).map { fixture.server.url("/img/img\($0).jpg") }
        let slow = (1...16).map { fixture.server.url("/slow/img\($0).jpg?delay=0.05") }
        let whole = fixture.root.file("whole")
        let single = try Imgfetch.run(["batch", try fixture.list(fast), "-O", whole, "--no-cache", "--resize", "64x64", "-q"])
        #expect(single.status == 0, "\(single.stderr)")

        // One clean array run: the four task folders together are the unsharded run, name for name, byte for byte.
        let clean = try cluster.script(name: "clean", list: try fixture.list(fast), root: fixture.root.path)
        let run = try cluster.sbatch(["--wait", clean])
        #expect(run.status == 0, "\(run.output)\n\(cluster.logs())")
        try BatchRecipeTests.expectUnion(of: (0..<4).map { fixture.root.file("clean-out-\($0)") }, equals: whole)

        // A task killed part way (scancel), then the whole array resubmitted with --resume: done lines make no
        // request again, and the killed task's lines are completed. The lines split by a hash of their original
        // key, which holds the server's port, so the task killed is the one --shard gives the most lines (at least
        // 4 of 16), found with ImgCore's own split: ~1 s a line, it is still at work when its first line is done.
        let killed = try busiestTask(of: slow, count: 4)
        let slowScript = try cluster.script(name: "slow", list: try fixture.list(slow), root: fixture.root.path)
        let submitted = try cluster.sbatch(["--parsable", slowScript])
        let job = submitted.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ";").first.map(String.init) ?? ""
        #expect(submitted.status == 0 && !job.isEmpty, "\(submitted.output)")
        let manifest = fixture.root.file("slow-m-\(killed.task)-of-4.jsonl")
        let deadline = Date().addingTimeInterval(60)
        while (try? String(contentsOfFile: manifest, encoding: .utf8))?.contains("\"status\":\"ok\"") != true {
            guard Date() < deadline else { throw TestFailure("task \(killed.task) recorded nothing in 60 s\n\(cluster.logs())") }
            usleep(50_000)
        }
        _ = try cluster.run(["scancel", "\(job)_\(killed.task)"])
        try cluster.waitUntilGone(job)
        let beforeResume = try JSONLines.objects(inFile: manifest, tolerant: true)
        let okBefore = beforeResume.filter { $0["status"] as? String == "ok" }.compactMap { $0["url"] as? String }
        let taskOutputs = (try? FileManager.default.contentsOfDirectory(atPath: fixture.root.file("slow-out-\(killed.task)"))) ?? []
        let statsBefore = try fixture.server.stats()
        var doneBefore = 0
        for index in 0..<4 {
            let records = try JSONLines.objects(inFile: fixture.root.file("slow-m-\(index)-of-4.jsonl"), tolerant: true)
            doneBefore += records.filter { $0["summary"] == nil && $0["status"] as? String == "ok" }.count
        }

        let resumed = try cluster.sbatch(["--wait", slowScript])
        #expect(resumed.status == 0, "\(resumed.output)\n\(cluster.logs())")
        try BatchRecipeTests.expectUnion(of: (0..<4).map { fixture.root.file("slow-out-\($0)") }, equals: whole)
        let finalOutputs = try FileManager.default.contentsOfDirectory(atPath: fixture.root.file("slow-out-\(killed.task)"))
        #expect(finalOutputs.count > taskOutputs.count, "task \(killed.task) (lines \(killed.lines)) was not killed part way: \(taskOutputs) then \(finalOutputs)")
        #expect(Set(finalOutputs) == Set(killed.lines.map { "img\($0).jpg" }), "the split found here is not the one batch made")
        let statsAfter = try fixture.server.stats()
        for url in okBefore {
            let path = String(url.dropFirst("http://127.0.0.1:\(fixture.server.port)".count).prefix { $0 != "?" })
            #expect(statsAfter.paths[path] == statsBefore.paths[path], "\(path) was fetched again")
        }
        // Every line done in the first attempt (by any task) was not requested by the resubmitted array.
        #expect(statsAfter.total - statsBefore.total == 16 - doneBefore)
    }

    /// The task of a `count`-task array that `--shard auto` gives the most of `urls` (by `Shard`, on the original
    /// key as batch computes it: no query, no credentials), with the 1-based numbers of its lines.
    private func busiestTask(of urls: [String], count: UInt64) throws -> (task: UInt64, lines: [Int]) {
        let keys = try urls.map { text in
            guard let url = URL(string: text), let key = CacheKey.original(for: url) else { throw TestFailure("no key for \(text)") }
            return key
        }
        let split = (0..<count).map { task in
            (task: task, lines: keys.indices.filter { Shard(index: task, count: count).contains(key: keys[$0]) }.map { $0 + 1 })
        }
        let busiest = split.max { $0.lines.count < $1.lines.count }!
        #expect(split.map(\.lines.count).reduce(0, +) == urls.count && busiest.lines.count >= 4, "\(split)")
        return busiest
    }
}
