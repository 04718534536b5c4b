import Foundation
import Testing
@testable import ImgCore

/// URLs sent as curl and browsers send them, bytes written unchanged when no change is asked, sizes as GNU tools
/// write them, and curl's CA bundle variables.
@Suite("URLs, names and bytes", .serialized)
struct URLAndBytesTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

    @Test func urlsAreEscapedAsBrowsersEscapeThem() throws {
        #expect(try URLSpelling.spell("http://h/café%20photo.jpg", shown: { "" }) == "http://h/caf%C3%A9%20photo.jpg")
        #expect(try URLSpelling.spell("http://h/a b\"<>`{}.jpg?q=a b'\"#x y", shown: { "" })
                == "http://h/a%20b%22%3C%3E%60%7B%7D.jpg?q=a%20b%27%22#x%20y")
        #expect(try URLSpelling.spell("HTTP://u%40x:p w@Host:8080\\a\\b%zz", shown: { "" }) == "http://u%40x:p%20w@Host:8080/a/b%25zz")
        let unparsable = try fetch(["http://exa mple.com/a.jpg", "-o", work.file("a.jpg")])
        #expect(unparsable.status == 2)
        #expect(unparsable.stderr.contains("U+0020") && unparsable.stderr.contains("position 11"), "\(unparsable.stderr)")
        let port = try fetch(["http://127.0.0.1:8x/a.jpg", "-o", work.file("a.jpg")])
        #expect(port.status == 2 && port.stderr.contains("'x' (U+0078) at position 19"), "\(port.stderr)")
        // A port beyond 65535, or 0, is no port: refused before anything is asked (it failed as a network error,
        // exit 3, and in a batch as a transient one, exit 75, that a retry could never mend).
        for bad in ["99999", "65536", "0"] {
            let refused = try fetch(["http://127.0.0.1:\(bad)/a.jpg", "-o", work.file("a.jpg")])
            #expect(refused.status == 2 && refused.stderr.contains("port \(bad) is not a port number (1 to 65535)"), "\(refused.stderr)")
        }
        #expect(try URLSpelling.spell("http://h:65535/a.jpg", shown: { "" }) == "http://h:65535/a.jpg")
        let list = work.file("ports.txt")
        try "http://127.0.0.1:99999/a.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try fetch(["batch", list, "-O", work.file("ports"), "--json"])
        #expect(batch.status == 1 && batch.stdoutText.contains(#""kind":"usage""#), "\(batch.stdoutText) \(batch.stderr)")

        let mixed = try fetch([server.url("/img/café%20photo.jpg"), "-o", work.file("b.jpg")])
        #expect(mixed.status == 4, "\(mixed.stderr)") // no such file: what matters is what was asked for
        let paths = try server.stats().paths
        #expect(paths["/img/caf%C3%A9%20photo.jpg"] == 1, "\(paths)")
        _ = try fetch([server.url("/img/a b\"<>.jpg"), "-o", work.file("c.jpg")])
        let escaped = try server.stats().paths
        #expect(escaped["/img/a%20b%22%3C%3E.jpg"] == 1, "\(escaped)")
    }

    @Test func aFetchThatAsksForNoChangeWritesTheSourceBytes() throws {
        let source = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        let plain = try fetch([server.url("/img/sample.jpg"), "-o", work.file("a.jpg"), "-v"])
        #expect(plain.status == 0 && plain.stderr.contains("unchanged: the source's own bytes"), "\(plain.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.file("a.jpg"))) == source)
        // From the cache, and to a directory, the same bytes.
        #expect(try fetch([server.url("/img/sample.jpg"), "-O", work.file("out")]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.file("out/sample.jpg"))) == source)
        // A change asked for re-encodes.
        #expect(try fetch([server.url("/img/sample.jpg"), "--quality", "85", "-o", work.file("q.jpg")]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.file("q.jpg"))) != source)
        let png = try fetch([server.url("/img/sample.jpg"), "-o", work.file("p.png"), "-v"])
        #expect(png.status == 0 && !png.stderr.contains("unchanged: the source's own bytes"))
        #expect(try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: work.file("p.png")))).format == .png)
        // A truncated source is still refused, not written.
        let truncated = try fetch([server.url("/img/truncated.jpg"), "-o", work.file("t.jpg")])
        #expect(truncated.status == 5, "\(truncated.stderr)")
    }

    /// Written unchanged, the file keeps its orientation tag and is displayed upright whatever `--no-autorotate`
    /// says: the size reported is the displayed one either way (it was the stored one with `--no-autorotate`).
    @Test func theSizeOfSourceBytesIsTheDisplayedOneWithoutAutorotateToo() throws {
        for extra in [[], ["--no-autorotate"]] {
            let result = try fetch([server.url("/img/rotation/6.jpg"), "-o", work.file("r\(extra.count).jpg"), "--json"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdoutText.contains(#""width":231"#) && result.stdoutText.contains(#""height":308"#),
                    "\(extra): \(result.stdoutText)")
        }
    }

    @Test func aBatchNameChoosesTheFormatAsOutputDoes() throws {
        let list = work.file("list.txt")
        try "\(server.url("/img/sample.jpg")) thumb.png\n\(server.url("/img/rgba.png")) other\n"
            .write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try fetch(["batch", list, "-O", work.file("out"), "--resize", "20x20"])
        #expect(batch.status == 0, "\(batch.stderr)")
        let outputs = try FileManager.default.contentsOfDirectory(atPath: work.file("out")).sorted()
        #expect(outputs == ["other.png", "thumb.png"])
        #expect(try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: work.file("out/thumb.png")))).format == .png)
        let contradicted = try fetch(["batch", list, "-O", work.file("out2"), "--format", "webp"])
        #expect(contradicted.status == 1 && contradicted.stderr.contains("--format"), "\(contradicted.stderr)")
    }

    @Test func sizesFollowGNUHabits() throws {
        #expect(ByteSize.parse("1.5G") == 1_610_612_736)
        #expect(ByteSize.parse("64M") == 64 << 20 && ByteSize.parse("64MiB") == 64 << 20 && ByteSize.parse("64m") == 64 << 20)
        #expect(ByteSize.parse("64MB") == 64_000_000 && ByteSize.parse("2kB") == 2000 && ByteSize.parse("1TB") == 1_000_000_000_000)
        #expect(ByteSize.parse("512") == 512 && ByteSize.parse("512B") == 512)
        #expect(ByteSize.parse("1.5") == nil && ByteSize.parse("1.2.3M") == nil && ByteSize.parse("-1M") == nil && ByteSize.parse("5X") == nil)
        #expect(ByteSize.format(25_600) == "25.0 KiB" && ByteSize.format(1_048_575) == "1.0 MiB")

        let over = try fetch([server.url("/img/sample.jpg"), "--max-bytes", "10kB", "-o", work.file("a.jpg")])
        #expect(over.status == 3 && over.stderr.contains("--max-bytes 10000 bytes"), "\(over.stderr)")
        #expect(try fetch([server.url("/img/sample.jpg"), "--max-bytes", "0.5M", "--memory-limit", "1.5G", "-o", work.file("a.jpg")]).status == 0)
        let config = try fetch(["cache", "config", "size-limit=1.5GB"])
        #expect(config.status == 0 && config.stdoutText.contains("1.4 GiB"), "\(config.stdoutText)")
        let cleared = try fetch(["cache", "clear"])
        #expect(cleared.stdoutText.contains("KiB") && !cleared.stdoutText.contains("0.0 MiB"), "\(cleared.stdoutText)")
    }

    @Test func curlsCABundleVariablesAreHonoured() throws {
        let tls = try TLSFixture()
        let url = tls.server.url("/img/sample.jpg")
        let arguments = [url, "--no-cache", "-o", work.file("t.jpg")]
        #expect(try Imgfetch.runInProcess(arguments, environment: ["CURL_CA_BUNDLE": tls.certificate]).status == 0)
        #expect(try Imgfetch.runInProcess(arguments, environment: ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": tls.certificate]).status == 0)
        let wrong = work.file("missing.pem")
        #expect(try Imgfetch.runInProcess(arguments, environment: ["CURL_CA_BUNDLE": wrong]).status == 3)
        let wins = try Imgfetch.runInProcess(arguments + ["--cacert", tls.certificate], environment: ["CURL_CA_BUNDLE": wrong])
        #expect(wins.status == 0, "\(wins.stderr)")
    }
}
