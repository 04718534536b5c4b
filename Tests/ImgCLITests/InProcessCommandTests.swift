import Foundation
import Testing
@testable import ImgCLI
@testable import ImgCore

/// Commands run in this process through the CLI front as a library, each with its own console.
@Suite("Commands in process")
struct InProcessCommandTests {
    @Test func aCommandWritesToItsConsoleOnly() throws {
        let help = try Imgfetch.runInProcess(["help", "batch"])
        #expect(help.status == 0 && help.stdoutText.contains("--manifest") && help.stderr.isEmpty)
        let words = help.stdoutText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("(default {name}.{ext}, {name}-{variant}.{ext} with variants)"), "\(help.stdoutText)")
        // The general help names every other command's help, info's too.
        let general = try Imgfetch.runInProcess(["help"])
        #expect(general.stdoutText.contains("Other commands: imgfetch help batch|prefetch|info|cache|renderer|completions"),
                "\(general.stdoutText)")
        let refused = try Imgfetch.runInProcess(["batch", "--no-such-option"])
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        #expect(refused.stderr.split(separator: "\n").count == 1 && refused.stderr.hasPrefix("imgfetch: "), "\(refused.stderr)")
    }

    @Test func commandsRunAtOnceKeepTheirOutputsApart() async throws {
        let words = ["fetch", "batch", "cache", "info", "renderer", "prefetch", "completions", "help"]
        let expected = try Dictionary(uniqueKeysWithValues: words.map { ($0, try Imgfetch.runInProcess(["help", $0]).stdout) })
        try await withThrowingTaskGroup(of: (String, CommandResult).self) { group in
            for word in words + words {
                group.addTask { (word, try Imgfetch.runInProcess(["help", word])) }
            }
            for try await (word, result) in group {
                #expect(result.status == 0 && result.stdout == expected[word], "help \(word) mixed with another's")
            }
        }
    }

    @Test func aLocalRenderingInProcessWritesItsFileAndItsJSONRecord() throws {
        let work = try TemporaryDirectory()
        let result = try Imgfetch.runInProcess([Paths.images + "/sample.jpg", "--no-cache", "--resize", "20x20",
                                                "-o", work.file("s.png"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        #expect(record["status"] as? String == "ok" && record["output"] as? String == work.file("s.png"))
        let written = try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: work.file("s.png"))))
        #expect(written.format == .png && written.width == 13 && written.height == 20)  // 290 × 442 within 20 × 20
    }
}
