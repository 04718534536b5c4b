import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// Habits a user relies on: display options everywhere, paths as written, settings reset, docs that match output.
@Suite("reports and habits")
struct ReportHabitsTests {
    /// The bold words of a man page section (`.SS TITLE` to the next `.SS` or `.SH`): where JSON keys are named.
    private func boldWords(inSection title: String) throws -> Set<String> {
        let page = try String(contentsOfFile: Paths.packageRoot + "/man/imgfetch.1", encoding: .utf8)
        var words = Set<String>(), inside = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".SS ") || line.hasPrefix(".SH ") { inside = line == ".SS \(title)" }
            guard inside, line.hasPrefix(".B ") || line.hasPrefix(".BR ") else { continue }
            let separators = CharacterSet(charactersIn: " \",()")
            let text = String(line.dropFirst(3)).replacingOccurrences(of: "\\(dq", with: " ")
            for word in text.components(separatedBy: separators) where !word.isEmpty { words.insert(word) }
        }
        return words
    }

    private func keys(_ data: Data) throws -> [Set<String>] {
        try String(decoding: data, as: UTF8.self).split(separator: "\n").map { line in
            Set(try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).keys)
        }
    }

    @Test func everyJSONKeyACommandPrintsIsInTheManPage() throws {
        let fixture = try CacheFixture(inProcess: true)
        let url = fixture.server.url("/img/sample.jpg")
        let list = fixture.home.file("urls.txt")
        try url.write(toFile: list, atomically: true, encoding: .utf8)
        let runs: [(section: String, arguments: [String])] = [
            ("fetch, batch and prefetch", ["fetch", url, "-o", fixture.home.file("a.png"), "--facts"]),
            ("fetch, batch and prefetch", ["batch", list, "-O", fixture.home.file("out")]),
            ("info", ["info", url, "--facts"]),
            ("cache inspect", ["cache", "inspect"]),
            ("cache clean\\-expired, prune, clear and remove", ["cache", "clean-expired"]),
            ("cache clean\\-expired, prune, clear and remove", ["cache", "prune", "--size-limit", "1G"]),
            ("cache clean\\-expired, prune, clear and remove", ["cache", "clear", "--dry-run"]),
            ("cache verify", ["cache", "verify"]),
            ("cache config", ["cache", "config"]),
        ]
        for run in runs {
            let fetching = ["fetch", "batch"].contains(run.arguments[0])
            let result = try fixture.run(run.arguments + ["--json"] + (fetching ? ["--no-auto-clean"] : []))
            #expect(result.status == 0, "\(run.arguments): \(result.stderr)")
            let documented = try boldWords(inSection: run.section)
            #expect(!documented.isEmpty, "no section \(run.section)")
            for printed in try keys(result.stdout) {
                let missing = printed.subtracting(documented)
                #expect(missing.isEmpty, "\(run.arguments.prefix(2)) prints \(missing.sorted()), not in JSON OUTPUT's \(run.section)")
            }
        }
    }

    @Test func displayOptionsAreAcceptedByEveryCommand() throws {
        let fixture = try CacheFixture(inProcess: true)
        for command in [["cache", "inspect"], ["cache", "config"], ["info", fixture.server.url("/img/sample.jpg")],
                        ["completions", "bash"], ["renderer", "status"], ["help"]] {
            let result = try fixture.run(["--no-progress"] + command + ["-q"], environment: ["IMGFETCH_PROGRESS": "0"])
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
    }

    @Test func outputFolderPathsAreReportedNormalised() throws {
        let fixture = try CacheFixture(inProcess: true)
        let folder = fixture.home.file("thumbs")
        let list = fixture.home.file("urls.txt")
        try fixture.server.url("/img/sample.jpg").write(toFile: list, atomically: true, encoding: .utf8)
        let manifest = fixture.home.file("m.jsonl")
        let result = try fixture.run(["batch", list, "-O", folder + "//./", "--manifest", manifest, "--json", "--no-auto-clean"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.contains("\"output\":\"\(folder)/sample.jpg\""), "\(result.stdoutText)")
        let written = try String(contentsOfFile: manifest, encoding: .utf8)
        #expect(written.contains("\"path\":\"\(folder)/sample.jpg\""), "\(written)")
        #expect(!written.contains("//sample") && !written.contains("/./"), "\(written)")
    }

    @Test func aSettingSetToDefaultIsReset() throws {
        let fixture = try CacheFixture(inProcess: true)
        #expect(try fixture.run(["cache", "config", "keep-query=img", "ttl=2d"]).status == 0)
        let reset = try fixture.run(["cache", "config", "keep-query=default", "ttl=DEFAULT", "--json"])
        #expect(reset.status == 0, "\(reset.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: reset.stdout) as? [String: Any])
        #expect(document["keepQuery"] as? String == "none" && document["keepQueryOrigin"] as? String == "default", "\(document)")
        #expect(document["ttlOrigin"] as? String == "default", "\(document)")
        let config = try String(contentsOfFile: fixture.cache + "/config", encoding: .utf8)
        #expect(!config.contains("keep-query") && !config.contains("ttl="), "\(config)")
    }

    @Test func valueCompletionOffersTheValuesOfFormatFailOnAndShard() throws {
        let bash = try Imgfetch.runInProcess(["completions", "bash"]).stdoutText
        #expect(bash.contains("--format) COMPREPLY=($(compgen -W \"jpeg png webp avif heic gif tiff jxl auto\""), "\(bash)")
        #expect(bash.contains("--fail-on) COMPREPLY=($(compgen -W \"none truncated error warning\""))
        #expect(bash.contains("--shard) COMPREPLY=($(compgen -W \"auto auto/\""))
    }

    /// With the source's format (`-O DIR`, no `--format`), a setting it has no use for is ignored and `-v` notes it,
    /// on a cache hit too (a format named refuses it: EncodingTests).
    @Test func settingsTheSourcesFormatLacksAreNotedOnACacheHitToo() throws {
        let fixture = try CacheFixture(inProcess: true)
        for round in 0..<2 {
            let jpeg = try fixture.run(["fetch", fixture.server.url("/img/sample.jpg"), "-O", fixture.home.file("j\(round)"),
                                        "--resize", "20x", "--lossless", "-v", "--no-auto-clean"])
            #expect(jpeg.status == 0 && jpeg.stderr.contains("note: jpeg has no lossless mode: --lossless ignored"),
                    "round \(round): \(jpeg.stderr)")
            let png = try fixture.run(["fetch", fixture.server.url("/img/sample.png"), "-O", fixture.home.file("p\(round)"),
                                       "--resize", "20x", "--quality", "10", "-v", "--no-auto-clean"])
            #expect(png.status == 0 && png.stderr.contains("note: png has no quality setting: --quality ignored"),
                    "round \(round): \(png.stderr)")
            if round == 1 { #expect(png.stderr.contains(": disk, png"), "\(png.stderr)") }
        }
    }
}
