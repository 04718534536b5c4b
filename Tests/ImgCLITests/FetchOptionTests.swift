import Foundation
import Testing
@testable import ImgCore

/// Network and cache-key options of fetch, run in process against the fixture server.
@Suite("Fetch options", .serialized)
struct FetchOptionTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

    @Test func oneConnectionServesSeveralURLsToAHost() throws {
        let urls = ["sample.jpg", "cogs.gif", "rgba.png"].map { server.url("/img/\($0)") }
        let result = try fetch(urls + ["-O", work.file("out")])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try server.stats()
        #expect(stats.total == 3)
        #expect(stats.connections == 1)
    }

    @Test func headersAndUserAgentAreSent() throws {
        let url = server.url("/echo-header/X-Token/sample.jpg")
        let missing = try fetch([url, "-o", work.file("a.jpg")])
        #expect(missing.status == 4, "\(missing.stderr)")
        #expect(try fetch([url, "-H", "X-Token: secret", "-o", work.file("a.jpg")]).status == 0)
        #expect(try fetch([url, "--header=X-Token: secret", "--no-cache", "-o", work.file("b.jpg")]).status == 0)
        #expect(try fetch([url, "-H", "no colon here", "-o", work.file("c.jpg")]).status == 2)
        let agent = server.url("/echo-header/User-Agent/sample.jpg")
        #expect(try fetch([agent, "--user-agent", "tester/1", "-o", work.file("d.jpg")]).status == 0)
    }

    @Test func retryAfterIsHonoured() throws {
        let started = Date()
        let result = try fetch([server.url("/status/503?retry_after=1"), "--retry", "1", "-o", work.file("a.jpg")])
        #expect(result.status == 4)
        #expect(Date().timeIntervalSince(started) >= 1.0)
        #expect(try server.requests("/status/503") == 2)
    }

    @Test func keepQueryAndCacheKeyChooseTheKey() throws {
        #expect(try fetch([server.url("/img/sample.jpg?v=1"), "--keep-query", "-o", work.file("a.jpg")]).status == 0)
        #expect(try fetch([server.url("/img/sample.jpg?v=2"), "--keep-query", "-o", work.file("a.jpg")]).status == 0)
        #expect(try fetch([server.url("/img/sample.jpg?v=1"), "--keep-query", "-o", work.file("a.jpg")]).status == 0)
        #expect(try server.requests("/img/sample.jpg") == 2)
        #expect(try fetch([server.url("/img/cogs.gif"), "--cache-key", "my-key", "-o", work.file("b.gif")]).status == 0)
        let other = try fetch([server.url("/img/rgba.png"), "--cache-key", "my-key", "-o", work.file("c.gif"), "-v"])
        #expect(other.stderr.contains(": disk"))
        #expect(try server.requests("/img/rgba.png") == 0)
    }

    @Test func anEditedLocalFileIsANewKey() throws {
        let path = work.file("input.jpg")
        try FileManager.default.copyItem(atPath: Paths.images + "/sample.jpg", toPath: path)
        let first = try fetch([path, "--resize", "20x20:fill", "-o", work.file("a.png"), "-v"])
        #expect(first.stderr.contains(": local,"))
        let second = try fetch([path, "--resize", "20x20:fill", "-o", work.file("a.png"), "-v"])
        #expect(second.stderr.contains(": disk,"))
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: Paths.images + "/rotation/1.jpg", toPath: path)
        let edited = try fetch([path, "--resize", "20x20:fill", "-o", work.file("a.png"), "-v"])
        #expect(edited.stderr.contains(": local,"))
    }

    @Test func unsafeOrUnusableCacheDirectoriesAreRefused() throws {
        let open = work.file("open")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        let refused = try Imgfetch.runInProcess([server.url("/img/sample.jpg"), "--cache-dir", open, "-o", work.file("a.jpg")])
        #expect(refused.status == 7 && refused.stderr.contains("writable"))
        #expect(try server.requests("/img/sample.jpg") == 0)
        let file = work.file("plain-file")
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try Imgfetch.runInProcess([server.url("/img/sample.jpg"), "--cache-dir", file, "-o", work.file("a.jpg")]).status == 7)
        let fine = try Imgfetch.runInProcess([server.url("/img/sample.jpg"), "--no-cache", "--cache-dir", open, "-o", work.file("a.jpg")])
        #expect(fine.status == 0)
        let created = work.file("new/cache")
        #expect(try Imgfetch.runInProcess([server.url("/img/sample.jpg"), "--cache-dir", created, "-o", work.file("b.jpg")]).status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: created)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(FileManager.default.fileExists(atPath: created + "/CACHEDIR.TAG"))
    }

    @Test func cacheDirectoryComesFromTheEnvironment() throws {
        let fromVariable = work.file("env-cache")
        let result = try Imgfetch.runInProcess([server.url("/img/sample.jpg"), "-o", work.file("a.jpg")],
                                               environment: ["IMGFETCH_CACHE_DIR": fromVariable])
        #expect(result.status == 0)
        #expect(FileManager.default.fileExists(atPath: fromVariable + "/CACHEDIR.TAG"))
        let xdg = work.file("xdg")
        #expect(try Imgfetch.runInProcess([server.url("/img/sample.jpg"), "-o", work.file("a.jpg")], environment: ["XDG_CACHE_HOME": xdg]).status == 0)
        #expect(FileManager.default.fileExists(atPath: xdg + "/imgfetch/CACHEDIR.TAG"))
    }

    @Test func helpAndVersion() throws {
        let version = try Imgfetch.runInProcess(["--version"])
        #expect(version.status == 0 && version.stdoutText.hasPrefix("imgfetch "))
        let help = try Imgfetch.runInProcess(["help", "fetch"])
        #expect(help.status == 0 && help.stdoutText.contains("--resize"))
        #expect(try Imgfetch.runInProcess(["--help"]).stdoutText.contains("usage"))
        #expect(try Imgfetch.runInProcess([]).status == 2)
        let ended = try Imgfetch.runInProcess(["--no-cache", "-o", work.file("dash.jpg"), "--", Paths.images + "/sample.jpg"])
        #expect(ended.status == 0)
    }
}
