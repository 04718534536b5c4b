import Foundation
import Testing

/// Combinations that would silently do something other than asked are refused (exit 2, one line, nothing fetched
/// or created), and every command that prints a report can print it as JSON.
@Suite("Refusals of the contract, and --json everywhere", .serialized)
struct ContractRefusalTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    /// `sh -c SCRIPT` in the work directory, with `$IMGFETCH` the binary.
    func inWork(_ script: String) throws -> CommandResult {
        try Imgfetch.run(["-c", "cd '\(work.path)' && " + script], environment: ["IMGFETCH": Paths.binary], program: "/bin/sh")
    }

    func expectRefused(_ result: CommandResult, saying text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 2, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(text), "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func aCacheKeyNamesOneInputOnly() throws {
        let a = server.url("/img/sample.jpg"), b = server.url("/img/sample.png")
        expectRefused(try fetch([a, b, "--cache-key", "k", "-O", work.file("out")]), saying: "--cache-key")
        let list = work.file("list.txt")
        try Data("\(a)\n\(b)\n".utf8).write(to: URL(fileURLWithPath: list))
        expectRefused(try fetch(["batch", list, "-O", work.file("out"), "--cache-key", "k"]), saying: "--cache-key")
        expectRefused(try fetch(["prefetch", a, "--cache-key", "k"]), saying: "--cache-key")
        #expect(try server.requests("/img/sample.jpg") == 0)
        #expect(!FileManager.default.fileExists(atPath: work.file("out")))
        #expect(try fetch([a, "--cache-key", "k", "-o", work.file("one.jpg")]).status == 0)
    }

    @Test func anOutputExtensionThatContradictsTheFormatIsRefused() throws {
        let url = server.url("/img/sample.jpg")
        let result = try fetch([url, "-o", work.file("x.png"), "--format", "jpeg"])
        expectRefused(result, saying: "--format")
        #expect(result.stderr.contains("-o"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("x.png")))
        #expect(try server.requests("/img/sample.jpg") == 0)
        for (name, format) in [("y.jpeg", "jpeg"), ("y.jpg", "jpeg"), ("z.heif", "heic"), ("w.bin", "png")] {
            let fine = try fetch([url, "-o", work.file(name), "--format", format])
            #expect(fine.status == 0, "\(name) --format \(format): \(fine.stderr)")
        }
    }

    /// curl's `-O URL` habit: -O takes a directory, and nothing named like the URL is made.
    @Test func aURLGivenToDashCapitalOIsRefused() throws {
        let a = server.url("/img/sample.jpg"), b = server.url("/img/sample.png")
        let result = try inWork("\"$IMGFETCH\" -O '\(a)' '\(b)' --no-cache")
        expectRefused(result, saying: "-O takes a directory")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty)
        #expect(try server.requests("/img/sample.png") == 0)
    }

    /// A batch refused once its output folder was prepared (an earlier manifest it cannot read, a manifest it cannot
    /// write) removes the folders it made for it, and keeps one that was there.
    @Test func aRefusedBatchLeavesNoOutputFolderItMade() throws {
        let url = server.url("/img/sample.jpg")
        let list = work.file("folders.txt")
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: list))
        let made = work.file("made/deeper")
        expectRefused(try fetch(["batch", list, "-O", made, "--resume", work.path]), saying: "it is a directory")
        let manifest = try fetch(["batch", list, "-O", made, "--manifest", work.path])
        #expect(manifest.status == 7 && manifest.stderr.contains("cannot write the manifest"), "\(manifest.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("made")))
        let kept = work.file("kept")
        try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        #expect(try fetch(["batch", list, "-O", kept, "--resume", work.path]).status == 2)
        #expect(FileManager.default.fileExists(atPath: kept))
        #expect(try server.requests("/img/sample.jpg") == 0)
    }

    /// A time to live beyond 100 years (`36500d`) is refused wherever it is given, before anything is fetched or
    /// made: one whose expiry passed year 9999 was taken and stored as never expiring. `36500d` is stored as it
    /// says, and `never` still asks for no expiry.
    @Test func aTimeToLiveBeyondAHundredYearsIsRefused() throws {
        let url = server.url("/img/sample.jpg"), output = work.file("a.jpg")
        let said = "at most 36500d (100 years), or never for no expiry"
        expectRefused(try fetch([url, "-o", output, "--ttl", "10000000d"]), saying: "bad ttl '10000000d' in --ttl: \(said)")
        expectRefused(try fetch([url, "-o", output, "--ttl", "36500.5d"]), saying: "bad ttl '36500.5d' in --ttl: \(said)")
        expectRefused(try Imgfetch.run([url, "-o", output, "--cache-dir", cache], environment: ["IMGFETCH_TTL": "99999999999"]),
                      saying: "bad ttl '99999999999' in IMGFETCH_TTL: \(said)")
        expectRefused(try fetch(["cache", "config", "ttl=10000000d"]), saying: "bad ttl '10000000d' in cache config: \(said)")
        #expect(try server.requests("/img/sample.jpg") == 0)
        #expect(!FileManager.default.fileExists(atPath: output) && !FileManager.default.fileExists(atPath: cache))

        #expect(try fetch([url, "-o", output, "--ttl", "36500d", "--no-auto-clean"]).status == 0)
        let entries = FileManager.default.enumerator(atPath: cache + "/entries")?.allObjects as? [String] ?? []
        let files = entries.filter { $0.hasSuffix("/original") || $0.hasSuffix(".variant") }
        #expect(files.count == 2, "\(entries)")
        let now = Date().timeIntervalSince1970
        for file in files {
            let expiry = try #require(try FileManager.default.attributesOfItem(atPath: cache + "/entries/" + file)[.modificationDate] as? Date)
            #expect(abs(expiry.timeIntervalSince1970 - now - 36_500 * 86_400) < 600, "\(file) expires \(expiry)")
        }
        #expect(try fetch(["cache", "config", "ttl=never"]).status == 0)
        #expect(try fetch([url, "-o", work.file("b.jpg"), "--ttl", "never"]).status == 0)
    }

    @Test func aMistypedCommandIsRefusedWithTheCommandMeant() throws {
        let url = server.url("/img/sample.jpg")
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: work.file("list.txt")))
        for (words, meant) in [("bacth list.txt -O out", "batch"), ("prefech '\(url)'", "prefetch"),
                               ("cache inspct", "inspect"), ("cahce prune", "cache"), ("renderer stauts", "status")] {
            let result = try inWork("\"$IMGFETCH\" \(words) --cache-dir cache")
            expectRefused(result, saying: "did you mean '\(meant)'?")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path) == ["list.txt"])
        #expect(try server.requests("/img/sample.jpg") == 0)
        // A file of that name is an input, as before.
        try FileManager.default.copyItem(atPath: Paths.images + "/sample.jpg", toPath: work.file("bacth"))
        let input = try inWork("\"$IMGFETCH\" bacth -o b.png --no-cache")
        #expect(input.status == 0, "\(input.stderr)")
    }

    @Test func everyCacheCommandPrintsJSON() throws {
        let url = server.url("/img/sample.jpg")
        #expect(try fetch([url, "-o", work.file("a.jpg"), "--no-auto-clean"]).status == 0)
        func document(_ arguments: [String]) throws -> [String: Any] {
            let result = try fetch(arguments + ["--json", "-q"])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(arguments)")
        }
        let config = try document(["cache", "config"])
        #expect(config["command"] as? String == "cache config" && config["ttl"] as? Int == 7 * 86_400)
        #expect(config["sizeLimitOrigin"] as? String == "default" && config["sizeLimit"] as? Int == 1 << 30, "the default limit is 1 GiB")
        // A download is cached as an original and a variant.
        let verify = try document(["cache", "verify"])
        #expect(verify["checked"] as? Int == 2 && (verify["damaged"] as? [Any])?.isEmpty == true)
        let expired = try document(["cache", "clean-expired"])
        #expect(expired["entries"] as? Int == 0 && expired["dryRun"] as? Bool == false)
        let pruned = try document(["cache", "prune", "--size-limit", "1G", "--dry-run"])
        #expect(pruned["sizeLimit"] as? Int == 1 << 30 && pruned["entries"] as? Int == 0)
        let removed = try document(["cache", "remove", url, "--dry-run"])
        #expect(removed["entries"] as? Int == 2 && (removed["paths"] as? [String])?.count == 2)
        let cleared = try document(["cache", "clear"])
        #expect(cleared["entries"] as? Int == 2 && cleared["command"] as? String == "cache clear")
        let status = try document(["renderer", "status"])
        #expect(status["running"] != nil)
    }

    @Test func countsAndSizesAreWordedRight() throws {
        // A local input is cached as its variant only: one entry of some 28 KiB.
        #expect(try fetch([Paths.images + "/sample.jpg", "-o", work.file("a.jpg"), "--no-auto-clean"]).status == 0)
        let inspect = try fetch(["cache", "inspect"])
        #expect(inspect.stdoutText.contains("(0 originals, 1 variant)"), "\(inspect.stdoutText)")
        let clear = try fetch(["cache", "clear"])
        #expect(clear.stdoutText.range(of: #"^removed 1 entry, [0-9]+\.[0-9] KiB\n$"#, options: .regularExpression) != nil,
                "\(clear.stdoutText)")
        let verify = try fetch(["cache", "verify"])
        #expect(verify.stdoutText == "checked 0 entries, all whole\n", "\(verify.stdoutText)")
    }
}
