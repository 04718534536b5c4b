import Foundation
import Testing
@testable import ImgCore

/// Real-world files from Pillow's test suite (Tests/Fixtures/pillow): imgfetch refuses none that libvips decodes
/// without a warning, and with `--fail-on none` thumbnails every one vipsthumbnail thumbnails, in bounded memory
/// and time (issue #13). Which files libvips decodes cleanly, and which vipsthumbnail thumbnails, was measured with
/// libvips 8.14 itself and is listed in `libvips-clean.txt` and `vipsthumbnail-ok.txt` (see the README there).
@Suite("Real-world corpus", .serialized)
struct CorpusTests {
    static let folder = Paths.fixtures + "/pillow"

    static func list(_ name: String) throws -> [String] {
        try String(contentsOfFile: folder + "/" + name, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    static func images() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { ["png", "jpg", "jpeg", "gif", "webp"].contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
    }

    @Test func nothingLibvipsDecodesCleanlyIsRefused() throws {
        let clean = try Self.list("libvips-clean.txt")
        #expect(clean.count > 200)
        for name in clean {
            let data = try Data(contentsOf: URL(fileURLWithPath: Self.folder + "/" + name))
            var input = VipsInput(.memory(data))
            do {
                _ = try ImageDecoder.checkHeader(&input, isRemote: false, options: DecodeOptions())
            } catch {
                Issue.record("\(name) is decoded by libvips without a warning but refused: \(error.message)")
            }
        }
    }

    @Test func failOnNoneThumbnailsWhatVipsthumbnailThumbnailsInBoundedMemory() throws {
        let work = try TemporaryDirectory()
        let images = try Self.images()
        let listPath = work.file("list.txt")
        try images.map { Self.folder + "/" + $0 }.joined(separator: "\n").write(toFile: listPath, atomically: true, encoding: .utf8)
        let outputs = work.file("out")
        // One batch over every file: its peak RSS and its time, measured by the parent, bounded generously.
        let measured = try Imgfetch.run(["-c", """
            import resource, subprocess, sys, time
            start = time.monotonic()
            try:
                r = subprocess.run(sys.argv[2:], stdout=open(sys.argv[1], "wb"), stderr=subprocess.DEVNULL, timeout=900)
                code = r.returncode
            except subprocess.TimeoutExpired:
                code = -999
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, code, int(time.monotonic() - start))
            """, work.file("report.jsonl"), Paths.binary, "batch", listPath, "-O", outputs, "--name", "{index}.{ext}",
            "--format", "png", "--resize", "64x64", "--fail-on", "none", "--no-cache", "-j", "2", "--json"],
            program: "/usr/bin/env", prefix: ["python3"])
        let fields = measured.stdoutText.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(fields.count == 3, "\(measured.stdoutText) \(measured.stderr)")
        #expect(fields[1] == 0 || fields[1] == 1, "the batch ends normally (1: some inputs failed), not \(fields[1])")
        #expect(fields[0] < 1536 * 1024, "peak RSS \(fields[0]) KiB")
        #expect(fields[2] < 900, "\(fields[2]) s")
        struct Record: Decodable { var input: String?; var status: String }
        let report = try String(contentsOfFile: work.file("report.jsonl"), encoding: .utf8)
        let made = Set(report.split(separator: "\n").compactMap { line in
            (try? JSONDecoder().decode(Record.self, from: Data(line.utf8))).flatMap { $0.status == "ok" ? $0.input : nil }
        })
        let thumbnailed = try Self.list("vipsthumbnail-ok.txt")
        #expect(thumbnailed.count > 200)
        for name in thumbnailed {
            #expect(made.contains(Self.folder + "/" + name), "vipsthumbnail thumbnails \(name), imgfetch --fail-on none does not")
        }
    }
}
