import Foundation
import Testing
import ImgCore
@testable import ImgCLI

/// ImgCore reports a cause (a shard engine's variables, a setting's problem, an untrusted format, an ignored
/// setting, a query collision); the command line words it with the option that led to it, as users read it.
@Suite("The command line words ImgCore's causes with their options")
struct CoreCauseWordingTests {
    let root: TemporaryDirectory
    let list: String

    init() throws {
        root = try TemporaryDirectory()
        list = root.file("list.txt")
        try "http://127.0.0.1:1/a.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
    }

    /// Each `--shard auto` refusal from the environment: exit 2 and its line, before any output folder is made.
    @Test func shardAutoRefusalsNameTheOption() throws {
        let looked = "looked for SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT; with --shard auto/N also "
            + "JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX, PARALLEL_SEQ"
        let cases: [(String, [String: String], String)] = [
            ("auto", [:], "--shard auto: no job array index in the environment (\(looked))"),
            ("auto/4", [:], "--shard auto/4: no job array index in the environment (\(looked))"),
            ("auto/0", [:], "bad --shard 'auto/0': expected auto, auto/N with N >= 1, or K/N"),
            ("auto/x", [:], "bad --shard 'auto/x': expected auto, auto/N with N >= 1, or K/N"),
            ("auto", ["JOB_COMPLETION_INDEX": "1"],
             "--shard auto: JOB_COMPLETION_INDEX is set but gives no count; use --shard auto/N with N the number of tasks"),
            ("auto/4", ["PARALLEL_SEQ": "5"], "--shard auto/4: PARALLEL_SEQ=5 is out of range (1 to 4)"),
            ("auto/8", ["AWS_BATCH_JOB_ARRAY_INDEX": "8"], "--shard auto/8: AWS_BATCH_JOB_ARRAY_INDEX=8 is out of range (0 to 7)"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "1"], "--shard auto: SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "4"],
             "--shard auto: SLURM_ARRAY_TASK_ID='x' is not a whole number"),
            // An unset SLURM_ARRAY_TASK_MIN is said to be unset (it was named as if set to 0); a set one is named.
            ("auto", ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3"],
             "--shard auto: SLURM_ARRAY_TASK_ID=3 (SLURM_ARRAY_TASK_MIN unset, taken as 0) of SLURM_ARRAY_TASK_COUNT=3 is not "
                + "an index from 0 to 2 (an array like --array=0-7 or 5-12 is needed; use --shard K/N otherwise)"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_COUNT": "4"],
             "--shard auto: SLURM_ARRAY_TASK_ID=9 - SLURM_ARRAY_TASK_MIN=0 of SLURM_ARRAY_TASK_COUNT=4 is not an index "
                + "from 0 to 3 (an array like --array=0-7 or 5-12 is needed; use --shard K/N otherwise)"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "4"],
             "--shard auto: SLURM_ARRAY_TASK_ID=6 (SLURM_ARRAY_TASK_MIN unset, taken as 0) / SLURM_ARRAY_TASK_STEP=4 of "
                + "SLURM_ARRAY_TASK_COUNT=4 is not an index from 0 to 3 (an array like --array=0-7 or 5-12 is needed; use "
                + "--shard K/N otherwise)"),
            ("auto/3", ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "4"],
             "--shard auto/3: the Slurm array has SLURM_ARRAY_TASK_COUNT=4 tasks"),
            ("auto/4", ["SLURM_ARRAY_TASK_ID": "5"],
             "--shard auto/4: SLURM_ARRAY_TASK_ID=5 (SLURM_ARRAY_TASK_MIN unset, taken as 0) of 4 (SLURM_ARRAY_TASK_COUNT not "
                + "set) is not an index from 0 to 3 (an array like --array=0-7 or 5-12 is needed; use --shard K/N otherwise)"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_STEP": "0", "SLURM_ARRAY_TASK_COUNT": "4"],
             "--shard auto: SLURM_ARRAY_TASK_STEP=0, where Slurm sets at least 1"),
            ("auto", ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "0"],
             "--shard auto: SLURM_ARRAY_TASK_COUNT=0, where Slurm sets at least 1"),
        ]
        let output = root.file("out")
        for (value, environment, message) in cases {
            let result = try Imgfetch.runInProcess(["batch", list, "-O", output, "--shard", value], environment: environment)
            #expect(result.status == 2 && result.stderr == "imgfetch: \(message)\n", "\(value) \(environment): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    /// `-o` and `-O` that can't be written are refused naming the option, before anything is fetched (an empty `-O`,
    /// a script's unset variable, is not the working directory).
    @Test func outputPathRefusalsNameTheirOption() throws {
        let folder = root.file("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let cases: [([String], String)] = [
            (["http://127.0.0.1:1/a.jpg", "-o", ""], "-o needs a file name"),
            (["http://127.0.0.1:1/a.jpg", "-o", folder], "-o \(folder) is a directory; use -O DIR to write into it"),
            (["http://127.0.0.1:1/a.jpg", "-o", root.file("none/")], "-o \(root.file("none/")) names a directory; use -O DIR to write into it"),
            (["http://127.0.0.1:1/a.jpg", "-O", ""], "-O needs a directory name"),
            (["batch", list, "-O", ""], "-O needs a directory name"),
            (["batch", list, "-O", "-"], "-O - names a folder, not standard output"),
            (["http://127.0.0.1:1/a.jpg", "-O", "-"], "-O - names a folder, not standard output"),
        ]
        for (arguments, message) in cases {
            let result = try Imgfetch.runInProcess(arguments)
            #expect(result.status == 2 && result.stderr.contains("imgfetch: \(message)"), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: FileManager.default.currentDirectoryPath + "/-"), "no folder named '-'")
    }

    /// A batch line refused by `--deny-local` or by a name whose extension `--format` contradicts fails naming the
    /// option (on stderr and in the manifest), as a usage failure.
    @Test func lineRefusalsNameTheirOption() throws {
        let lines = "\(root.file("local.jpg"))\nhttp://127.0.0.1:1/a.jpg a.png\n"
        let named = root.file("named.txt")
        try lines.write(toFile: named, atomically: true, encoding: .utf8)
        let cases: [([String], [String])] = [
            (["--deny-local", "--format", "png"], ["refusing local input (--deny-local)"]),
            (["--format", "jpeg", "--deny-local"], ["the name 'a.png' says png but --format says jpeg"]),
            (["--format", "auto", "--deny-local"],
             ["the name 'a.png' says png but --format auto chooses the format: give the name without an extension"]),
        ]
        for (options, messages) in cases {
            let manifest = root.file("m.jsonl")
            let result = try Imgfetch.runInProcess(["batch", named, "-O", root.file("out"), "--no-cache", "--retry", "0",
                                                    "--manifest", manifest] + options)
            for message in messages {
                #expect(result.stderr.contains(": \(message) [usage, exit 2]"), "\(options): \(result.stderr)")
                #expect(try String(contentsOfFile: manifest, encoding: .utf8).contains(message), "\(options)")
            }
            try? FileManager.default.removeItem(atPath: manifest)
        }
    }

    /// Causes worded in place: the redirects' timeout, an untrusted format (with the server's type), an ignored
    /// setting, a query collision; ImgCore's own words name no option.
    @Test func causesAreWordedWithTheirOption() {
        let timeout = ImgError.network("timed out: the redirects took longer than the time allowed", cause: .redirectsTimedOut)
        #expect(timeout.commandLineMessage == "timed out: the redirects took longer than --timeout")
        #expect(timeout.isTransient && timeout.exitCode == 3)
        let untrusted = ImgError.untrustedFormat(loader: "svgload", contentType: "text/xml")
        #expect(untrusted.commandLineMessage
                == "refusing svgload from the network (an untrusted format); use --allow-untrusted-formats (Content-Type text/xml)")
        #expect(untrusted.message == "refusing svgload from the network (an untrusted format) (Content-Type text/xml)")
        #expect(untrusted.exitCode == 5 && untrusted.kind == "image")
        #expect(IgnoredSetting(.quality(auto: true), format: .png).commandLineMessage == "png has no quality setting: --quality auto ignored")
        #expect(IgnoredSetting(.qualityWhenLossless, format: .webp).commandLineMessage
                == "lossless webp has no quality setting: --quality ignored")
        let collision = QueryCollision.sameKey(earlier: "http://h/a.jpg?w=1", later: "http://h/a.jpg?w=2")
        #expect(collision.commandLineMessage == "warning: http://h/a.jpg?w=1 and http://h/a.jpg?w=2 differ only in their query, "
                + "which the cache key drops: they will get one image; give --keep-query (or --keep-query=NAME,NAME) if "
                + "the query chooses the image")
        for words in [untrusted.message, collision.message, IgnoredSetting(.lossless, format: .jpeg).message,
                      SettingProblem.outputFileIsDirectory(path: "/x").message, SettingProblem.localInputDenied.message] {
            #expect(!words.contains("--") && !words.contains("-o "), "\(words)")
        }
    }
}
