import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// Names imgfetch makes up in `-O DIR` replace whatever is planted there (a symbolic link, a FIFO) without writing
/// through it or opening it, and no partial output outlives a `kill -9`.
@Suite("Output folders: planted names and killed runs")
struct OutputFolderTests {
    let fixture: BatchFixture
    init() throws { fixture = try BatchFixture(count: 6) }

    private func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    private func isRegular(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    @Test func fetchAndBatchReplaceAPlantedLinkAndFIFOInsteadOfWritingThroughThem() throws {
        let victim = fixture.root.path + "/important.txt"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createDirectory(atPath: fixture.output, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.output + "/img1.jpg", withDestinationPath: victim)
        #expect(mkfifo(fixture.output + "/img2.jpg", 0o600) == 0)
        let fetch = try Imgfetch.run(["fetch", fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/img2.jpg"), "-O", fixture.output,
                                      "--cache-dir", fixture.cache], program: "/usr/bin/timeout", prefix: ["-s", "KILL", "30", Paths.binary])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: victim)), as: UTF8.self) == "precious")
        #expect(isRegular(fixture.output + "/img1.jpg") && isRegular(fixture.output + "/img2.jpg"))

        unlink(fixture.output + "/img3.jpg")
        try FileManager.default.createSymbolicLink(atPath: fixture.output + "/img3.jpg", withDestinationPath: victim)
        #expect(mkfifo(fixture.output + "/img4.jpg", 0o600) == 0)
        let lines = (1...4).map { fixture.server.url("/img/img\($0).jpg") }
        let batch = try Imgfetch.run(["batch", try fixture.list(lines), "-O", fixture.output, "--cache-dir", fixture.cache,
                                      "--no-progress"], program: "/usr/bin/timeout", prefix: ["-s", "KILL", "30", Paths.binary])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: victim)), as: UTF8.self) == "precious")
        #expect((1...4).allSatisfy { isRegular(fixture.output + "/img\($0).jpg") })
        #expect(fixture.outputs().allSatisfy { !$0.hasPrefix(".imgfetch-") })
    }

    @Test func anOutputDirectoryThatIsASymbolicLinkIsRefused() throws {
        let real = fixture.root.path + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: fixture.output, withDestinationPath: real)
        for arguments in [["fetch", fixture.server.url("/img/img1.jpg")], ["batch", try fixture.list([fixture.server.url("/img/img1.jpg")])]] {
            for output in [fixture.output, fixture.output + "/"] {
                let result = try Imgfetch.run(arguments + ["-O", output, "--cache-dir", fixture.cache, "--no-progress"])
                #expect(result.status == 7, "\(result.stderr)")
                #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: real).isEmpty)
        #expect(try fixture.server.requests("/img/img1.jpg") == 0)
    }

    /// A batch killed while finished outputs wait for an earlier line (stalled by the server) leaves no temporary
    /// behind once any later batch has written into the same folder, and abandoned ones of named temporaries (what
    /// a file system without unnamed files, or an older imgfetch, leaves) are removed too; live ones stay.
    @Test func noTemporaryOutlivesAKilledBatch() throws {
        try FileManager.default.createDirectory(atPath: fixture.output, withIntermediateDirectories: true)
        let lines = [fixture.server.url("/stall/img1.jpg?seconds=60")] + (2...6).map { fixture.server.url("/img/img\($0).jpg") }
        let process = try Imgfetch.launch(["batch", try fixture.list(lines), "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress", "-j", "4"])
        // Wait until a temporary output exists: a named one in the folder, or an unnamed one held open.
        let deadline = Date().addingTimeInterval(60)
        func temporaryExists() -> Bool {
            if fixture.outputs().contains(where: { $0.hasPrefix(".imgfetch-") }) { return true }
            let descriptors = "/proc/\(process.processIdentifier)/fd"
            return ((try? FileManager.default.contentsOfDirectory(atPath: descriptors)) ?? []).contains { name in
                ((try? FileManager.default.destinationOfSymbolicLink(atPath: descriptors + "/" + name)) ?? "").hasPrefix(fixture.output + "/")
            }
        }
        while !temporaryExists(), Date() < deadline { usleep(10_000) }
        #expect(temporaryExists(), "no temporary output appeared")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        // Named temporaries: one of a process that is gone, one of a live process (this one).
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let abandoned = ".imgfetch-\(gone.processIdentifier)-1234.part", live = ".imgfetch-\(getpid())-5678.part"
        for name in [abandoned, live] { try Data("partial".utf8).write(to: URL(fileURLWithPath: fixture.output + "/" + name)) }

        let next = try fixture.batch([fixture.server.url("/img/img2.jpg")])
        #expect(next.status == 0, "\(next.stderr)")
        let left = fixture.outputs().filter { $0.hasPrefix(".imgfetch-") }
        #expect(left == [live], "left: \(left)")
    }
}
