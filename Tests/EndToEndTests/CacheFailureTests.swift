import Foundation
import Testing
@testable import ImgCore

/// A cache on a full or read-only file system must not fail fetches that could otherwise succeed.
/// These tests mount a small tmpfs, so they run where mounting is allowed (root in CI).
@Suite("Unwritable cache", .serialized, .enabled(if: TmpfsMount.isAvailable))
struct CacheFailureTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    @Test func aFullDiskWarnsAndStillWritesTheOutput() throws {
        let mount = try TmpfsMount(kilobytes: 300)
        let cache = mount.path + "/cache"
        #expect(try Imgfetch.run([server.url("/img/cogs.gif"), "--cache-dir", cache, "-o", work.file("a.gif")]).status == 0)
        // Fill what is left.
        let filler = mount.path + "/filler"
        _ = FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        let block = Data(count: 4096)
        do { while true { try handle.write(contentsOf: block) } } catch {}
        try handle.close()
        let result = try Imgfetch.run([server.url("/img/sample.jpg"), "--cache-dir", cache, "-o", work.file("b.jpg")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("caching failed"))
        #expect(try Rendering.probe(try #require(FileManager.default.contents(atPath: work.file("b.jpg")))).width == 290)
        #expect((try FileManager.default.contentsOfDirectory(atPath: cache + "/tmp")).isEmpty)
        let verify = try Imgfetch.run(["cache", "verify", "--cache-dir", cache])
        #expect(verify.status == 0, "\(verify.stderr)")
    }

    /// A body over 8 MiB spooled into a cache whose file system fills up part way moves to $TMPDIR (or, when that is
    /// full too, into memory): the fetch warns that caching failed and exits 0.
    @Test(arguments: [false, true])
    func aLargeBodyThatFillsTheCacheFileSystemStillFetches(temporaryDirectoryFullToo: Bool) throws {
        let mount = try TmpfsMount(kilobytes: 2048)
        let cache = mount.path + "/cache"
        try StoredPNG.write(width: 2000, height: 2000, to: work.file("large.png"))
        let large = try FixtureServer(root: work.path)
        var environment: [String: String] = [:]
        if temporaryDirectoryFullToo {
            environment["TMPDIR"] = mount.path + "/tmpdir"
            try FileManager.default.createDirectory(atPath: mount.path + "/tmpdir", withIntermediateDirectories: true)
        }
        let output = work.file("large-\(temporaryDirectoryFullToo).png")
        let result = try Imgfetch.run([large.url("/img/large.png"), "--cache-dir", cache, "-o", output, "--resize", "100x"],
                                      environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("caching failed"), "\(result.stderr)")
        #expect(try Rendering.probe(try #require(FileManager.default.contents(atPath: output))).width == 100)
        #expect((try FileManager.default.contentsOfDirectory(atPath: cache + "/tmp")).isEmpty)
    }

    @Test func aReadOnlyCacheWarnsAndStillWritesTheOutput() throws {
        let mount = try TmpfsMount(kilobytes: 2048)
        let cache = mount.path + "/cache"
        #expect(try Imgfetch.run([server.url("/img/cogs.gif"), "--cache-dir", cache, "-o", work.file("a.gif")]).status == 0)
        try mount.remountReadOnly()
        let result = try Imgfetch.run([server.url("/img/sample.jpg"), "--cache-dir", cache, "-o", work.file("b.jpg")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("caching failed"))
        #expect(FileManager.default.fileExists(atPath: work.file("b.jpg")))
        let hit = try Imgfetch.run([server.url("/img/cogs.gif"), "--cache-dir", cache, "-o", work.file("c.gif"), "-v"])
        #expect(hit.status == 0 && hit.stderr.contains(": disk,"))
        let missing = mount.path + "/never/created"
        let uncreatable = try Imgfetch.run([server.url("/img/sample.jpg"), "--cache-dir", missing, "-o", work.file("d.jpg")])
        #expect(uncreatable.status == 0 && uncreatable.stderr.contains("caching disabled"))
        // Only the cache may answer, and there is none to read (none is made for it): not cached, exit 6.
        let required = try Imgfetch.run([server.url("/img/sample.jpg"), "--cache-dir", missing, "--only-from-cache", "-o", work.file("e.jpg")])
        #expect(required.status == 6 && !FileManager.default.fileExists(atPath: missing), "\(required.stderr)")
    }
}

/// A small tmpfs mounted for one test and unmounted on deinit.
final class TmpfsMount: @unchecked Sendable { // only a path; unmounted once
    let path: String

    static let isAvailable: Bool = {
        guard getuid() == 0, let probe = try? TmpfsMount(kilobytes: 64) else { return false }
        _ = probe
        return true
    }()

    init(kilobytes: Int) throws {
        path = NSTemporaryDirectory() + "imgfetch-mount-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard TmpfsMount.shell("mount -t tmpfs -o size=\(kilobytes)k tmpfs '\(path)'") == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw TestFailure("cannot mount tmpfs")
        }
    }

    func remountReadOnly() throws {
        guard TmpfsMount.shell("mount -o remount,ro '\(path)'") == 0 else { throw TestFailure("cannot remount read-only") }
    }

    deinit {
        _ = TmpfsMount.shell("umount -l '\(path)'")
        try? FileManager.default.removeItem(atPath: path)
    }

    static func shell(_ command: String) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
