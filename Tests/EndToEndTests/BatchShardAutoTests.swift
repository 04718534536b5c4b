import Foundation
import Testing
@testable import ImgCore

/// `--shard auto` from job array engines' variables, and the exit status that tells a transient failure from a
/// permanent one.
@Suite("Batch at scale: --shard auto, exit 75")
struct BatchShardAutoTests {
    @Test func slurmArraysNeedNotStartAtZero() throws {
        for id in 5...8 {
            let engine = try ShardEngine(count: nil, environment: ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "5",
                                                                        "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_COUNT": "4"])
            #expect(engine.shard == Shard(index: UInt64(id - 5), count: 4))
            #expect(engine.decidedBy.contains("SLURM_ARRAY_TASK_ID=\(id)"))
        }
        let stepped = try ShardEngine(count: nil, environment: ["SLURM_ARRAY_TASK_ID": "12", "SLURM_ARRAY_TASK_MIN": "0",
                                                                     "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "4"])
        #expect(stepped.shard == Shard(index: 3, count: 4))
        // Slurm decides even with a count given, which must then agree.
        #expect(try ShardEngine(count: 4, environment: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"]).shard
                == Shard(index: 1, count: 4))
        // With auto/N and no SLURM_ARRAY_TASK_COUNT (an older Slurm, or a copied environment), N is the count.
        let countless = try ShardEngine(count: 4, environment: ["SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "5"])
        #expect(countless.shard == Shard(index: 2, count: 4))
        #expect(countless.decidedBy == "SLURM_ARRAY_TASK_ID=7 - SLURM_ARRAY_TASK_MIN=5 of 4 (SLURM_ARRAY_TASK_COUNT not set)")
        let refusals: [([String: String], ShardEngine.Failure)] = [
            (["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "4"],
             .slurmNotAnIndex(decidedBy: "SLURM_ARRAY_TASK_ID=9 - SLURM_ARRAY_TASK_MIN=5 of SLURM_ARRAY_TASK_COUNT=4", count: 4)),
            (["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "4"],
             .slurmNotAnIndex(decidedBy: "SLURM_ARRAY_TASK_ID=3 - SLURM_ARRAY_TASK_MIN=5 of SLURM_ARRAY_TASK_COUNT=4", count: 4)),
            (["SLURM_ARRAY_TASK_ID": "1"], .slurmCountMissing),
            (["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"], .notANumber(variable: "SLURM_ARRAY_TASK_ID", value: "x")),
            // A step or count of 0 is named as such (it read as an index out of 0 to 3, or of 0 to 0).
            (["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_STEP": "0", "SLURM_ARRAY_TASK_COUNT": "4"],
             .notPositive(variable: "SLURM_ARRAY_TASK_STEP")),
            (["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "0"], .notPositive(variable: "SLURM_ARRAY_TASK_COUNT")),
        ]
        for (environment, failure) in refusals {
            #expect(throws: failure) { try ShardEngine(count: nil, environment: environment) }
        }
        #expect(throws: ShardEngine.Failure.slurmCountDiffers(expected: 3, count: 4)) {
            try ShardEngine(count: 3, environment: ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"])
        }
    }

    @Test func otherEnginesNeedTheCount() throws {
        #expect(try ShardEngine(count: 8, environment: ["JOB_COMPLETION_INDEX": "7"]).shard == Shard(index: 7, count: 8))
        #expect(try ShardEngine(count: 8, environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "0"]).shard == Shard(index: 0, count: 8))
        #expect(try ShardEngine(count: 4, environment: ["PARALLEL_SEQ": "4"]).shard == Shard(index: 3, count: 4))
        #expect(try ShardEngine(count: 4, environment: ["PARALLEL_SEQ": "1"]).decidedBy == "PARALLEL_SEQ=1 (1-based)")
        let refusals: [(UInt64?, [String: String], ShardEngine.Failure)] = [
            (nil, ["JOB_COMPLETION_INDEX": "1"], .noCount(variable: "JOB_COMPLETION_INDEX")),
            (8, ["JOB_COMPLETION_INDEX": "8"], .outOfRange(variable: "JOB_COMPLETION_INDEX", value: "8", first: 0, count: 8)),
            (4, ["PARALLEL_SEQ": "0"], .outOfRange(variable: "PARALLEL_SEQ", value: "0", first: 1, count: 4)),
            (4, ["PARALLEL_SEQ": "5"], .outOfRange(variable: "PARALLEL_SEQ", value: "5", first: 1, count: 4)),
            (4, [:], .noIndex(count: 4)), (nil, [:], .noIndex(count: nil)),
        ]
        for (count, environment, failure) in refusals {
            #expect(throws: failure, "\(environment)") { try ShardEngine(count: count, environment: environment) }
        }
    }

    /// Four Slurm tasks numbered 5 to 8 split the list as one run over the whole list would name it.
    @Test func autoShardsFromTheEnvironmentSplitTheList() throws {
        let fixture = try BatchFixture()
        let lines = (1...20).map { fixture.server.url("/img/img\($0).jpg") }
        let list = try fixture.list(lines)
        let whole = try Imgfetch.run(["batch", list, "-O", fixture.output + "-whole", "--no-cache", "--resize", "16x16"])
        #expect(whole.status == 0, "\(whole.stderr)")
        var union: [String] = []
        for id in 5...8 {
            let environment = ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "4"]
            let directory = fixture.output + "-\(id)"
            let result = try Imgfetch.run(["batch", list, "-O", directory, "--no-cache", "--resize", "16x16", "--shard", "auto", "-v"],
                                          environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("shard \(id - 5)/4 from SLURM_ARRAY_TASK_ID=\(id)"), "\(result.stderr)")
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                union.append(name)
                #expect(FileManager.default.contents(atPath: directory + "/" + name)
                        == FileManager.default.contents(atPath: fixture.output + "-whole/" + name), "\(name)")
            }
        }
        #expect(union.sorted() == (try FileManager.default.contentsOfDirectory(atPath: fixture.output + "-whole")).sorted())
        let missing = try Imgfetch.run(["batch", list, "-O", fixture.output, "--shard", "auto"])
        #expect(missing.status == 2 && missing.stderr.contains("SLURM_ARRAY_TASK_ID"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixture.output))
        let outOfRange = try Imgfetch.run(["batch", list, "-O", fixture.output, "--shard", "auto/4"], environment: ["PARALLEL_SEQ": "5"])
        #expect(outOfRange.status == 2 && outOfRange.stderr.contains("PARALLEL_SEQ=5"), "\(outOfRange.stderr)")
        let parallel = try Imgfetch.run(["batch", list, "-O", fixture.output, "--shard", "auto/4", "-v", "--no-cache"],
                                        environment: ["PARALLEL_SEQ": "1"])
        #expect(parallel.status == 0 && parallel.stderr.contains("shard 0/4 from PARALLEL_SEQ=1"), "\(parallel.stderr)")
    }

    /// 0 all ok; 75 when every failure may pass (a 503, a refused connection); 1 as soon as one is permanent (a 404).
    @Test func exitStatusTellsTransientFromPermanentFailures() throws {
        let fixture = try BatchFixture(count: 2)
        let closed = try FixtureServer.closedPort()
        let ok = fixture.server.url("/img/img1.jpg")
        let options = ["--retry", "0", "--no-cache"]
        #expect(try fixture.batch([ok], options).status == 0)
        let transient = try fixture.batch([ok, fixture.server.url("/status/503"), "http://127.0.0.1:\(closed)/a.jpg",
                                           fixture.server.url("/status/429"), fixture.server.url("/status/408")], options)
        #expect(transient.status == 75, "\(transient.stderr)")
        let permanent = try fixture.batch([ok, fixture.server.url("/status/503"), fixture.server.url("/status/404")], options)
        #expect(permanent.status == 1, "\(permanent.stderr)")
        for line in [fixture.server.url("/html"), fixture.server.url("/big?size=200000")] {
            let result = try fixture.batch([line], options + ["--max-bytes", "100000"])
            #expect(result.status == 1, "\(line): \(result.stderr)")
        }
        let refused = try fixture.batch(["http://127.0.0.1:\(closed)/a.jpg"], options)
        #expect(refused.status == 75 && refused.stderr.contains("network"), "\(refused.stderr)")
    }
}

/// The man page's recipes for engines other than Slurm (SlurmTests runs that one), as written there.
@Suite("Batch recipes: GNU parallel, Kubernetes, AWS Batch")
struct BatchRecipeTests {
    static func expectUnion(_ fixture: BatchFixture, lines: [String], folders: [String]) throws {
        let whole = fixture.root.file("whole")
        let single = try Imgfetch.run(["batch", try fixture.list(lines), "-O", whole, "--no-cache", "--resize", "20x20:fill", "-q"])
        #expect(single.status == 0, "\(single.stderr)")
        try Self.expectUnion(of: folders, equals: whole)
    }

    static func expectUnion(of folders: [String], equals whole: String) throws {
        var union: [String: Data] = [:]
        for folder in folders {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                #expect(union[name] == nil, "\(name) is in two task folders")
                union[name] = FileManager.default.contents(atPath: folder + "/" + name)
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: whole).sorted()
        #expect(union.keys.sorted() == names)
        for name in names { #expect(union[name] == FileManager.default.contents(atPath: whole + "/" + name), "\(name) differs") }
    }

    @Test(arguments: ["JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"])
    func indexedJobsWithAManifestAndResume(variable: String) throws {
        let fixture = try BatchFixture(count: 8)
        let lines = (1...8).map { fixture.server.url("/img/img\($0).jpg") }
        let list = try fixture.list(lines)
        let manifest = fixture.root.file("thumbs-{shard}.jsonl")
        func task(_ index: Int) throws -> CommandResult {
            try Imgfetch.run(["-q", "batch", list, "-O", fixture.root.file("out-\(index)"), "--resize", "20x20:fill", "--shard", "auto/4",
                              "--manifest", manifest, "--resume", manifest, "--no-cache"], environment: [variable: "\(index)"])
        }
        for index in 0..<4 { #expect(try task(index).status == 0) }
        let requests = try fixture.server.stats().total
        #expect(requests == 8)
        // A retried task (the same index, the same command) makes no request.
        #expect(try task(2).status == 0)
        #expect(try fixture.server.stats().total == 8)
        for index in 0..<4 { #expect(FileManager.default.fileExists(atPath: fixture.root.file("thumbs-\(index)-of-4.jsonl"))) }
        try Self.expectUnion(fixture, lines: lines, folders: (0..<4).map { fixture.root.file("out-\($0)") })
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel"), "needs GNU parallel (make test-deps)"))
    func gnuParallelWithAutoShards() throws {
        let fixture = try BatchFixture(count: 8)
        let lines = (1...8).map { fixture.server.url("/img/img\($0).jpg") }
        let list = try fixture.list(lines)
        let command = "parallel --will-cite -j 4 -N0 --retries 3 \(Paths.binary) -q batch \(list) -O \(fixture.output) "
            + "--resize 20x20:fill --shard auto/4 --manifest \(fixture.root.file("thumbs-{shard}.jsonl")) "
            + "--resume \(fixture.root.file("thumbs-{shard}.jsonl")) --no-cache ::: 1 2 3 4"
        for _ in 0..<2 {
            let result = try Imgfetch.run(["-c", command], program: "/bin/sh")
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try fixture.server.stats().total == 8)
        for index in 0..<4 { #expect(FileManager.default.fileExists(atPath: fixture.root.file("thumbs-\(index)-of-4.jsonl"))) }
        try Self.expectUnion(fixture, lines: lines, folders: [fixture.output])
    }
}
