import Foundation
import Testing
@testable import ImgCore

/// End-to-end: the built binary against the fixture server, with a fresh cache directory per test.
@Suite("Fetch end to end", .serialized)
struct FetchTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    func output(_ name: String) throws -> Data {
        try #require(FileManager.default.contents(atPath: work.file(name)), "missing \(name)")
    }

    @Test func fillGivesTheExactSizeEvenFromASmallerSource() throws {
        let result = try fetch([server.url("/img/sample.jpg"), "--resize", "600x500:fill", "-o", work.file("a.png")])
        #expect(result.status == 0, "\(result.stderr)")
        let probe = try Rendering.probe(try output("a.png"))
        #expect(probe.format == .png && probe.width == 600 && probe.height == 500)
        let fit = try fetch([server.url("/img/sample.jpg"), "--resize", "100x100", "-o", work.file("b.jpg")])
        #expect(fit.status == 0)
        let fitted = try Rendering.probe(try output("b.jpg"))
        #expect(fitted.height == 100 && fitted.width == 66 && fitted.format == .jpeg)
        let noEnlarge = try fetch([server.url("/img/sample.jpg"), "--resize", "1000x", "-o", work.file("c.jpg")])
        #expect(noEnlarge.status == 0)
        #expect(try Rendering.probe(try output("c.jpg")).width == 290)
        let enlarge = try fetch([server.url("/img/sample.jpg"), "-p", "resize(1000x,fit,upscale)", "-o", work.file("d.jpg")])
        #expect(enlarge.status == 0)
        #expect(try Rendering.probe(try output("d.jpg")).width == 1000)
        let exact = try fetch([server.url("/img/sample.jpg"), "--resize", "50x300:exact", "-o", work.file("e.webp")])
        #expect(exact.status == 0)
        let exactProbe = try Rendering.probe(try output("e.webp"))
        #expect(exactProbe.width == 50 && exactProbe.height == 300 && exactProbe.format == .webp)
    }

    @Test func roundedCornersAreTransparentOrBackground() throws {
        #expect(try fetch([server.url("/img/sample.jpg"), "--resize", "200x200:fill", "--round", "40", "-o", work.file("r.png")]).status == 0)
        let png = try output("r.png")
        #expect(try ImageInspection.pixel(png, x: 0, y: 0).last == 0)
        #expect(try ImageInspection.pixel(png, x: 100, y: 100).last == 255)
        #expect(try fetch([server.url("/img/sample.jpg"), "--resize", "200x200:fill", "--round", "40", "--background", "#0000ff", "-o", work.file("r.jpg")]).status == 0)
        let corner = try ImageInspection.pixel(try output("r.jpg"), x: 1, y: 1)
        #expect(corner.count == 3 && corner[2] > 200 && corner[0] < 60)
        #expect(try fetch([server.url("/img/sample.jpg"), "--circle", "-o", work.file("c.png")]).status == 0)
        let circle = try output("c.png")
        #expect(try Rendering.probe(circle).width == 290 && Rendering.probe(circle).height == 290)
        #expect(try ImageInspection.pixel(circle, x: 2, y: 2).last == 0)
    }

    @Test func blurLowersVarianceAndOverlayMovesTheMean() throws {
        #expect(try fetch([server.url("/img/sample.jpg"), "-o", work.file("plain.png")]).status == 0)
        #expect(try fetch([server.url("/img/sample.jpg"), "--blur", "4", "-o", work.file("blur.png")]).status == 0)
        #expect(try fetch([server.url("/img/sample.jpg"), "--overlay", "#ff0000:0.6", "-o", work.file("red.png")]).status == 0)
        #expect(try fetch([server.url("/img/sample.jpg"), "--grayscale", "-o", work.file("grey.png")]).status == 0)
        let plain = try ImageInspection.statistics(try output("plain.png"), band: 0)
        let plainVariation = try ImageInspection.localVariation(try output("plain.png"), band: 0)
        let blurredVariation = try ImageInspection.localVariation(try output("blur.png"), band: 0)
        #expect(blurredVariation < plainVariation * 0.5)
        let red = try ImageInspection.statistics(try output("red.png"), band: 0)
        let green = try ImageInspection.statistics(try output("red.png"), band: 1)
        let plainGreen = try ImageInspection.statistics(try output("plain.png"), band: 1)
        #expect(red.mean > plain.mean + 50)
        #expect(green.mean < plainGreen.mean * 0.6)
        #expect(try ImageInspection.bands(try output("grey.png")).count == 1)
        #expect(try fetch([server.url("/img/sample.jpg"), "--rotate", "90", "-o", work.file("rot.png")]).status == 0)
        let rotated = try Rendering.probe(try output("rot.png"))
        #expect(rotated.width == 442 && rotated.height == 290)
        #expect(try fetch([server.url("/img/sample.jpg"), "--crop", "100x50:attention", "-o", work.file("crop.png")]).status == 0)
        let cropped = try Rendering.probe(try output("crop.png"))
        #expect(cropped.width == 100 && cropped.height == 50)
    }

    /// What a variant's rendering noted (an animation written as its first frame) `-v` says again on a disk hit, as
    /// it does on a memory hit (it said nothing there).
    @Test func aDiskHitSaysWhatItsRenderingNoted() throws {
        let arguments = [server.url("/img/cogs.gif"), "--resize", "8", "-o", work.file("cogs.png"), "-v"]
        let first = try fetch(arguments), again = try fetch(arguments)
        #expect(first.status == 0 && again.status == 0, "\(first.stderr) \(again.stderr)")
        #expect(again.stderr.contains(": disk,"), "\(again.stderr)")
        for result in [first, again] {
            #expect(result.stderr.contains("png does not animate here: wrote the first of 5 frames"), "\(result.stderr)")
        }
    }

    @Test func cachedResultsNeedNoRequestNoLibvipsAndNoLibcurl() throws {
        let first = try fetch([server.url("/img/sample.jpg"), "--resize", "200x200:fill", "--round", "12", "-o", work.file("a.webp")])
        #expect(first.status == 0)
        #expect(try server.requests("/img/sample.jpg") == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache + "/locks") == [KeyLock.fileName], "no lock file per download")
        let sampleURL = try #require(URL(string: server.url("/img/sample.jpg")))
        let key = try #require(CacheKey.original(for: sampleURL))
        #expect(KeyLock.acquire(root: try CacheRoot.at(cache), key: key, timeout: 0) != nil, "no download lock is left held")
        let again = try fetch([server.url("/img/sample.jpg?sig=abc"), "-p", "resize(200x200,fill)|>round(12)", "-o", work.file("b.webp"), "-v"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains(": disk,"))
        #expect(again.stderr.contains("libvips: not started, libcurl: not loaded"), "\(again.stderr)")
        #expect(try server.requests("/img/sample.jpg") == 1)
        // Neither is linked: both are opened with dlopen when first needed.
        let linked = try Imgfetch.run([Paths.binary], program: "/usr/bin/ldd")
        #expect(linked.status == 0 && !linked.stdoutText.contains("libcurl") && !linked.stdoutText.contains("libvips"), "\(linked.stdoutText)")
        #expect(try output("a.webp") == output("b.webp"))
        let variant = try fetch([server.url("/img/sample.jpg"), "--resize", "50x50", "-o", work.file("c.jpg"), "-v"])
        #expect(variant.stderr.contains("disk-original"))
        #expect(try server.requests("/img/sample.jpg") == 1)
        let refreshed = try fetch([server.url("/img/sample.jpg"), "--resize", "50x50", "-o", work.file("c.jpg"), "--force-refresh", "-v"])
        #expect(refreshed.stderr.contains(": network,"))
        #expect(try server.requests("/img/sample.jpg") == 2)
        let twice = try fetch([server.url("/img/sample.jpg"), server.url("/img/sample.jpg"), "-O", work.file("out"), "--memory-only", "-v"])
        #expect(twice.status == 0)
        #expect(twice.stderr.contains(": memory,"))
        #expect(try server.requests("/img/sample.jpg") == 3)
        #expect(FileManager.default.fileExists(atPath: work.file("out/sample.jpg")))
        #expect(FileManager.default.fileExists(atPath: work.file("out/sample-1.jpg")))
    }

    @Test func expiredAndDamagedEntriesAreFetchedAgain() throws {
        #expect(try fetch([server.url("/noval/sample.jpg"), "--ttl", "1s", "-o", work.file("a.jpg")]).status == 0)
        #expect(try fetch([server.url("/noval/sample.jpg"), "-o", work.file("a.jpg")]).status == 0)
        #expect(try server.requests("/noval/sample.jpg") == 1)
        try CacheClock.advance(cache, by: 60)
        #expect(try fetch([server.url("/noval/sample.jpg"), "--ttl", "1h", "-o", work.file("a.jpg")]).status == 0)
        #expect(try server.requests("/noval/sample.jpg") == 2)
        let entries = try FileManager.default.subpathsOfDirectory(atPath: cache + "/entries").filter { $0.hasSuffix("/original") || $0.hasSuffix(".variant") }
        #expect(!entries.isEmpty)
        for entry in entries {
            let path = cache + "/entries/" + entry
            var bytes = try #require(FileManager.default.contents(atPath: path))
            bytes[bytes.count - 10] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        let damaged = try fetch([server.url("/noval/sample.jpg"), "-o", work.file("b.jpg"), "-v"])
        #expect(damaged.status == 0)
        #expect(damaged.stderr.contains(": network,"))
        #expect(try server.requests("/noval/sample.jpg") == 3)
        #expect(try Rendering.probe(try output("b.jpg")).width == 290)
    }

    @Test func exitCodesFromRealCauses() throws {
        #expect(try fetch([server.url("/img/sample.jpg"), "--bogus"]).status == 2)
        #expect(try fetch([server.url("/img/sample.jpg"), "--quality", "0", "-o", work.file("x.jpg")]).status == 2)
        #expect(try fetch(["http://127.0.0.1:1/a.jpg", "--retry", "0", "-o", work.file("x.jpg")]).status == 3)
        let missing = try fetch([server.url("/img/nope.jpg"), "-o", work.file("x.jpg")])
        #expect(missing.status == 4 && missing.stderr.contains("404"))
        let html = try fetch([server.url("/html"), "-o", work.file("x.jpg")])
        #expect(html.status == 5 && html.stderr.contains("text/html"))
        #expect(try fetch([server.url("/img/cogs.gif"), "--only-from-cache", "-o", work.file("x.jpg")]).status == 6)
        // Only the cache may answer and there is none: not cached, and no cache directory is made.
        let none = work.file("no-cache-here")
        let uncached = try Imgfetch.run([server.url("/img/cogs.gif"), "--only-from-cache", "--cache-dir", none, "-o", work.file("x.jpg")])
        #expect(uncached.status == 6 && !FileManager.default.fileExists(atPath: none), "\(uncached.stderr)")
        #expect(try fetch([server.url("/img/sample.jpg"), "-o", work.file("no/such/dir/x.jpg")]).status == 7)
        #expect(!FileManager.default.fileExists(atPath: work.file("x.jpg")))
        let several = try fetch([server.url("/img/sample.jpg"), server.url("/img/nope.jpg"), "-O", work.file("many")])
        #expect(several.status == 1)
        #expect(several.stderr.split(separator: "\n").count == 1)
    }

    @Test func stdoutStdinAndJSON() throws {
        let piped = try fetch([server.url("/img/sample.jpg"), "--resize", "40x40:fill", "--format", "png", "-o", "-"])
        #expect(piped.status == 0)
        #expect(ImageFormat.sniff(piped.stdout) == .png)
        let fromStdin = try Imgfetch.run(["-", "--format", "webp", "--resize", "30x30:fill", "--no-cache"], stdin: piped.stdout)
        #expect(fromStdin.status == 0)
        #expect(ImageFormat.sniff(fromStdin.stdout) == .webp)
        let json = try fetch([server.url("/img/sample.jpg"), "--json", "-O", work.file("j")])
        #expect(json.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect(object["status"] as? String == "ok")
        #expect(object["width"] as? Int == 290)
        #expect(object["output"] as? String == work.file("j/sample.jpg"))
        #expect(try fetch([server.url("/img/sample.jpg"), "--json"]).status == 2)
    }

    /// Standard input named twice is refused before anything is read, by fetch as by info (fetch used to read it
    /// for the first `-` and fail the second with "empty body", exit 1).
    @Test func standardInputTwiceIsAUsageError() throws {
        let image = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        for arguments in [["-", "-", "-O", work.file("twice")], ["info", "-", "-"]] {
            let run = try Imgfetch.run(arguments + ["--no-cache"], stdin: image)
            #expect(run.status == 2, "\(arguments): \(run.stderr)")
            #expect(run.stderr == "imgfetch: standard input (-) can be read only once\n", "\(arguments)")
            #expect(run.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: work.file("twice")))
    }

    @Test func tlsIsVerifiedAndCacertAddsTrust() throws {
        let tls = try TLSFixture()
        let untrusted = try fetch([tls.server.url("/img/sample.jpg"), "-o", work.file("t.jpg")])
        #expect(untrusted.status == 3, "\(untrusted.stderr)")
        let trusted = try fetch([tls.server.url("/img/sample.jpg"), "--cacert", tls.certificate, "-o", work.file("t.jpg")])
        #expect(trusted.status == 0, "\(trusted.stderr)")
    }
}
