import Foundation
import Testing
@testable import ImgCLI

/// An empty path (a script's unset variable: `--cache-dir "$DIR"`) names no file: it is refused with exit 2 before
/// anything is read, fetched or written, never taken as the default cache, the working directory or a new manifest;
/// an empty input is no URL, for every command that takes inputs.
@Suite("Empty paths and inputs")
struct EmptyPathTests {
    @Test func anEmptyPathIsRefusedNamingItsOption() throws {
        let root = try TemporaryDirectory()
        let list = root.file("list.txt"), output = root.file("out"), cache = root.file("default-cache")
        try "http://127.0.0.1:1/a.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        try "kept".write(toFile: cache + "/entry", atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["cache", "clear", "--cache-dir"], "--cache-dir"),
            (["batch", list, "-O", output, "--cache-dir"], "--cache-dir"),
            (["batch", list, "-O", output, "--manifest"], "--manifest"),
            (["batch", list, "-O", output, "--resume"], "--resume"),
            (["batch", list, "-O", output, "--retry-failed"], "--retry-failed"),
            (["prefetch", "--from"], "--from"),
            (["http://127.0.0.1:1/a.jpg", "-o", root.file("a.jpg"), "--cacert"], "--cacert"),
            (["batch", list, "-O"], "-O"),
            // Accepted by every command, so refused by every one: these never read it and took it.
            (["renderer", "status", "--cache-dir"], "--cache-dir"),
            (["help", "--cache-dir"], "--cache-dir"),
            (["completions", "bash", "--cache-dir"], "--cache-dir"),
        ]
        for (arguments, option) in cases {
            let result = try Imgfetch.runInProcess(arguments + [""], environment: ["IMGFETCH_CACHE_DIR": cache])
            let message = option == "-O" ? "-O needs a directory name" : "bad \(option) '': expected a path (an empty value names none)"
            #expect(result.status == 2 && result.stderr == "imgfetch: \(message)\n", "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: output) && !FileManager.default.fileExists(atPath: root.file("a.jpg")))
        #expect(FileManager.default.fileExists(atPath: cache + "/entry"), "the default cache is not cleared")
    }

    @Test func anEmptyInputIsRefusedByEveryCommand() throws {
        for arguments in [[""], ["info", ""], ["prefetch", "http://127.0.0.1:1/a.jpg", ""], ["cache", "remove", ""]] {
            let result = try Imgfetch.runInProcess(arguments + ["--cache-dir", try TemporaryDirectory().path])
            #expect(result.status == 2 && result.stderr == "imgfetch: empty or malformed input ''\n", "\(arguments): \(result.stderr)")
        }
    }

    /// An empty `--cache-key` names no key: taken as one, every input given it shared one entry (another URL was
    /// served the first one's image).
    @Test func anEmptyCacheKeyIsRefused() throws {
        let root = try TemporaryDirectory()
        for arguments in [["http://127.0.0.1:1/a.jpg", "-o", root.file("a.jpg")], ["info", "http://127.0.0.1:1/a.jpg"],
                          ["cache", "inspect"], ["cache", "remove", "http://127.0.0.1:1/a.jpg"]] {
            let result = try Imgfetch.runInProcess(arguments + ["--cache-key=", "--cache-dir", root.file("cache")])
            #expect(result.status == 2
                    && result.stderr == "imgfetch: bad --cache-key '': expected a key (an empty value names none)\n",
                    "\(arguments): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty)
    }
}
