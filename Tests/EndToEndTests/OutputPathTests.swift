import Foundation
import Testing
@testable import ImgCore

/// Where outputs and reports go: `-o` paths of every kind, stdout and stderr that fail, and the words of the
/// command line that decide them.
@Suite("Output paths and standard streams")
struct OutputPathTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory
    var sample: String { Paths.images + "/sample.jpg" }

    /// Runs `script` with `/bin/sh -c`, `$IMGFETCH` naming the binary: for redirections Process can't make.
    func shell(_ script: String) throws -> CommandResult {
        try Imgfetch.run(["-c", script], environment: ["IMGFETCH": Paths.binary], program: "/bin/sh")
    }

    @Test func outputsThatCantBeWrittenAreRefusedBeforeAnyDownload() throws {
        try FileManager.default.createDirectory(atPath: work.file("folder"), withIntermediateDirectories: true)
        let cases: [(String, Int32)] = [(".", 2), ("", 2), (work.file("folder"), 2), (work.file("folder") + "/", 2),
                                        (work.file("none/x.png"), 7), (work.file("new/"), 2)]
        let url = server.url("/img/sample.jpg")
        for (output, status) in cases {
            let result = try fetch([url, "-o", output])
            #expect(result.status == status, "-o '\(output)': \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        #expect(try server.requests("/img/sample.jpg") == 0)
    }

    /// A folder that lets its writer in but makes no file (procfs, to root) is named as what refused: the file it
    /// said "No such file or directory" of exists (the output is written beside it first).
    @Test(.enabled(if: geteuid() == 0)) func aFolderThatMakesNoFileIsNamed() throws {
        let result = try fetch([sample, "-o", "/proc/version", "--no-cache"])
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write /proc/version: no file can be made in /proc (No such file or directory)"),
                "\(result.stderr)")
    }

    /// A path checked before the fetch that is a directory by the time the output is written (another process made
    /// it meanwhile) is an I/O failure, exit 7 as a batch's line says, not the usage error of the check (exit 2).
    @Test func aPathThatBecameADirectoryIsAnIOFailure() throws {
        let path = work.file("later")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(throws: ImgError.io("cannot write \(path): it is a directory now")) {
            try OutputWriter.write(Data([1, 2, 3]), to: path)
        }
        #expect(throws: ImgError.setting(.outputFileIsDirectory(path: path))) { try OutputWriter.check(path) }
    }

    @Test func aFIFOAndDevNullAreWrittenWhereTheyAre() throws {
        let fifo = work.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "exec cat '\(fifo)' > '\(work.file("received.png"))'"]
        try reader.run()
        #expect(try fetch([sample, "-o", fifo, "--format", "png"]).status == 0)
        reader.waitUntilExit()
        let received = try #require(FileManager.default.contents(atPath: work.file("received.png")))
        #expect(try Rendering.probe(received).width == 290)
        // No reader comes: the command waits for one, and an interrupt ends the wait.
        let waiting = Process()
        waiting.executableURL = URL(fileURLWithPath: Paths.binary)
        waiting.arguments = [sample, "-o", fifo, "--no-cache"]
        waiting.environment = Paths.childEnvironment
        waiting.standardError = FileHandle.nullDevice
        try waiting.run()
        usleep(1_500_000)
        #expect(waiting.isRunning)
        kill(waiting.processIdentifier, SIGINT)
        let deadline = Date().addingTimeInterval(5)
        while waiting.isRunning, Date() < deadline { usleep(20_000) }
        if waiting.isRunning { kill(waiting.processIdentifier, SIGKILL) }
        waiting.waitUntilExit()
        #expect(waiting.terminationStatus == 130)
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "the FIFO was replaced")

        let null = try fetch([sample, "-o", "/dev/null", "--format", "png"])
        #expect(null.status == 0, "\(null.stderr)")
        #expect(lstat("/dev/null", &status) == 0 && (status.st_mode & S_IFMT) == S_IFCHR)
        let viaStdout = try fetch([sample, "-o", "/dev/stdout", "--format", "png"])
        let piped = try Rendering.probe(viaStdout.stdout)
        #expect(viaStdout.status == 0 && piped.width == 290)
    }

    /// `/dev/stdout` and `/proc/self/fd/N` are the descriptor itself: appended to when the shell appends, and a
    /// socket (a service's stdout) works; a regular file is replaced whole wherever it is, under /dev/shm too.
    @Test func descriptorNamesAreTheDescriptorsAndRegularFilesAreReplacedAnywhere() throws {
        let appended = work.file("appended")
        let result = try shell("echo hello > '\(appended)' && \"$IMGFETCH\" '\(sample)' --no-cache --format png -o /dev/stdout >> '\(appended)'")
        #expect(result.status == 0, "\(result.stderr)")
        let bytes = try #require(FileManager.default.contents(atPath: appended))
        let image = try Rendering.probe(Data(bytes.dropFirst(6)))
        #expect(bytes.prefix(6) == Data("hello\n".utf8) && image.width == 290)

        let script = """
            import os, socket, subprocess, sys
            a, b = socket.socketpair()
            p = subprocess.Popen([sys.argv[1], sys.argv[2], "--no-cache", "--format", "png", "-o", "/proc/self/fd/1"], stdout=b)
            b.close()
            data = b""
            while True:
                chunk = a.recv(65536)
                if not chunk: break
                data += chunk
            print(p.wait(timeout=30), len(data))
            """
        let socket = try Imgfetch.run(["-c", script, Paths.binary, sample], program: "/usr/bin/env", prefix: ["python3"])
        let fields = socket.stdoutText.split(separator: " ").map { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1 }
        #expect(fields.count == 2 && fields[0] == 0 && fields[1] > 1000, "\(socket.stdoutText) \(socket.stderr)")

        var shm = stat()
        guard stat("/dev/shm", &shm) == 0, access("/dev/shm", W_OK) == 0 else { return }
        let file = "/dev/shm/imgfetch-test-\(UUID().uuidString).png", link = file + ".link"
        defer { unlink(file); unlink(link) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: file))
        #expect(Glibc.link(file, link) == 0)
        #expect(try fetch([sample, "-o", file]).status == 0)
        #expect(FileManager.default.contents(atPath: link) == Data("old".utf8), "the file was written in place")
        #expect(try Rendering.probe(try #require(FileManager.default.contents(atPath: file))).width == 290)
    }

    @Test func aLinkIsFollowedAndAFileKeepsItsPermissions() throws {
        let target = work.file("target.png"), link = work.file("link.png")
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        #expect(chmod(target, 0o600) == 0)
        #expect(symlink("target.png", link) == 0)
        #expect(try fetch([sample, "-o", link]).status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.png")
        let written = try #require(FileManager.default.contents(atPath: target))
        #expect(try Rendering.probe(written).format == .png)
        var status = stat()
        #expect(stat(target, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).allSatisfy { !$0.hasSuffix(".part") })
        // A name near the 255-byte limit: the temporary beside it must fit too.
        let long = work.file(String(repeating: "x", count: 251) + ".png")
        #expect(try fetch([sample, "-o", long]).status == 0)
        #expect(FileManager.default.fileExists(atPath: long))
        #expect(symlink(work.file("nothing"), work.file("dangling.png")) == 0)
        #expect(try fetch([sample, "-o", work.file("dangling.png")]).status == 7)
    }

    /// A full disk or a closed descriptor on stdout is one line and exit 7, never a trap; a closed stderr loses
    /// the message but not the exit code.
    @Test func standardStreamsThatFailAreReported() throws {
        let cache = " --cache-dir '\(cache)'"
        // The fetch with --json first: it makes the cache that inspect then reads (of a missing one, inspect says so).
        for script in ["\"$IMGFETCH\" '\(sample)' -o '\(work.file("j.png"))' --json\(cache) >/dev/full",
                       "\"$IMGFETCH\" '\(sample)' -o - >/dev/full", "\"$IMGFETCH\" '\(sample)' -o - >&-",
                       "\"$IMGFETCH\" --version >/dev/full", "\"$IMGFETCH\" help cache >/dev/full",
                       "\"$IMGFETCH\" cache inspect\(cache) >/dev/full", "\"$IMGFETCH\" cache inspect --json\(cache) >&-"] {
            let result = try shell(script)
            #expect(result.status == 7, "\(script): \(result.status) \(result.stderr)")
            #expect(result.stderr.hasPrefix("imgfetch: ") && result.stderr.split(separator: "\n").count == 1, "\(script): \(result.stderr)")
            #expect(result.stderr.contains("cannot write to standard output"), "\(script): \(result.stderr)")
        }
        #expect(try shell("\"$IMGFETCH\" --bogus 2>&-").status == 2)
        #expect(try shell("\"$IMGFETCH\" --bogus 2>/dev/full").status == 2)
        #expect(try shell("\"$IMGFETCH\" '\(sample)' -o '\(work.file("e.png"))' -v\(cache) 2>&-").status == 0)
    }

    /// Standard output that can't take the image, or that takes the reports too, is refused before the download:
    /// a closed one (exit 7), and `-o /dev/stdout` or `/proc/self/fd/1` with `--json` (exit 2: the two would mix).
    @Test func standardOutputIsJudgedBeforeTheDownload() throws {
        let url = server.url("/img/sample.jpg"), cache = " --cache-dir '\(cache)'"
        let closed = try shell("\"$IMGFETCH\" '\(url)' -o -\(cache) >&-")
        #expect(closed.status == 7 && closed.stderr.contains("cannot write to standard output: it is closed"), "\(closed.stderr)")
        for alias in ["/dev/stdout", "/proc/self/fd/1"] {
            let report = work.file("report.jsonl")
            let mixed = try shell("\"$IMGFETCH\" '\(url)' -o \(alias) --json\(cache) > '\(report)'")
            #expect(mixed.status == 2 && mixed.stderr.contains("--json prints reports on stdout, which -o \(alias) is too"),
                    "\(mixed.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: report)).isEmpty)
        }
        #expect(try server.requests("/img/sample.jpg") == 0)
        // A device is no stream the two would mix in: the report alone is wanted.
        let discarded = try shell("\"$IMGFETCH\" '\(url)' -o /dev/null --json\(cache)")
        #expect(discarded.status == 0 && discarded.stdoutText.contains("\"status\":\"ok\""), "\(discarded.stderr)")
    }

    @Test func aBatchWhoseReportsCantBeWrittenStopsWithOneLine() throws {
        let list = work.file("list.txt")
        try (1...30).map { _ in server.url("/img/sample.jpg") }.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let full = try shell("\"$IMGFETCH\" batch '\(list)' -O '\(work.file("out"))' --json --cache-dir '\(cache)' >/dev/full")
        #expect(full.status == 7, "\(full.stderr)")
        #expect(full.stderr.contains("cannot write to standard output: No space left on device"), "\(full.stderr)")
        // stderr to a reader that goes away: no trap, and no staged file left behind.
        let status = work.file("status")
        _ = try shell("{ \"$IMGFETCH\" batch '\(list)' -O '\(work.file("out2"))' -v --cache-dir '\(cache)'; echo $? > '\(status)'; } 2>&1 | head -c 1")
        let code = try String(contentsOfFile: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code == "0", "a batch whose stderr closed ended with \(code)")
        let names = try FileManager.default.contentsOfDirectory(atPath: work.file("out2"))
        #expect(!names.contains { $0.hasSuffix(".part") }, "\(names)")
    }

    @Test func wordsAfterDashDashAreInputsAndHelpTopicsAreChecked() throws {
        try FileManager.default.copyItem(atPath: sample, toPath: work.file("help"))
        let input = try shell("cd '\(work.path)' && \"$IMGFETCH\" -o h.png --no-cache -- help")
        #expect(input.status == 0, "\(input.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.file("h.png")))
        let word = try shell("cd '\(work.path)' && \"$IMGFETCH\" -o w.png --no-cache -- cache")
        #expect(word.status == 7 && word.stderr.contains("cache: No such file or directory ["), "\(word.stderr)")
        let unknown = try Imgfetch.run(["help", "bogus"])
        #expect(unknown.status == 2 && unknown.stderr.contains("no help on 'bogus'"), "\(unknown.stderr)")
        let two = try Imgfetch.run(["help", "fetch", "batch"])
        #expect(two.status == 2 && two.stderr.contains("help is on one command at a time") && two.stdout.isEmpty, "\(two.stderr)")
        // A command and its subcommand: the command's help, which covers it (it suggested 'help status', no topic).
        let sub = try Imgfetch.run(["help", "renderer", "status"])
        let whole = try Imgfetch.run(["help", "renderer"])
        #expect(sub.status == 0 && sub.stdoutText == whole.stdoutText, "\(sub.stderr)")
        for (typo, meant) in [("--no-progres", "--no-progress"), ("--no-cahce", "--no-cache"), ("--max-byte", "--max-bytes"), ("--jsno", "--json")] {
            let result = try Imgfetch.run([sample, typo])
            #expect(result.status == 2 && result.stderr.contains("did you mean \(meant)?"), "\(result.stderr)")
        }
        #expect(!(try Imgfetch.run([sample, "--zzzzzzzz"]).stderr.contains("did you mean")))
    }

    @Test func aMessageIsOneLineWhateverTheInputIsCalled() throws {
        let result = try Imgfetch.run(["we\"ird\n\r\u{1B}.jpg", "-o", work.file("x.png"), "--no-cache"])
        #expect(result.status == 7)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("we\"ird\\n\\r\\x1B.jpg"), "\(result.stderr)")
    }
}
