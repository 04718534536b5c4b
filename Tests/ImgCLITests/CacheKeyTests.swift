import Foundation
import Testing
@testable import ImgCore

/// Keys that can't collide: originals and variants apart, entries served only for their own key, credentials and
/// kept query parameters in the key.
@Suite("Cache keys", .serialized)
struct CacheKeyTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

    func size(_ path: String) throws -> (Int, Int) {
        let probe = try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: path)))
        return (probe.width, probe.height)
    }

    @Test func aURLEndingLikeAVariantKeyIsNotAnotherURLsVariant() throws {
        let plain = server.url("/by-query/a.png?img=rgba.png")
        let lookalike = server.url("/by-query/a.png@resize(10x10,fit)@png?img=sample.png")
        let result = try fetch([lookalike, plain, "--resize", "10x10", "--format", "png", "-O", work.file("out"), "-v"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try server.requests("/by-query/a.png") == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("rgba.png: memory"), "\(result.stderr)")
        // Unit: the two namespaces never meet.
        let original = "http://h/a.png@resize(10x10,fit)@png"
        #expect(CacheKey.variant(original: "http://h/a.png", variantIdentifier: "resize(10x10,fit)@png") != original)
        #expect(CacheKey.inMemory(original: original) != CacheKey.variant(original: "http://h/a.png", variantIdentifier: "resize(10x10,fit)@png"))
        let escaped = CacheKey.variant(original: "http://h/a%40b@c", variantIdentifier: "original@png")
        #expect(CacheKey.original(ofVariant: escaped) == "http://h/a%40b@c")
    }

    /// The entry path of an input's original.
    func originalPath(_ url: String, query: QueryInKey = .none) throws -> String {
        let key = try #require(CacheKey.original(for: URL(string: url)!, query: query))
        return cache + "/entries/" + DiskCache.entryFolder(originalKey: key) + "/original"
    }

    @Test func anEntryCopiedOverAnothersPathIsAMissAndMisplaced() throws {
        let a = server.url("/img/sample.jpg"), b = server.url("/img/rgba.png")
        #expect(try fetch([a, b, "-O", work.file("out")]).status == 0)
        try FileManager.default.removeItem(atPath: try originalPath(b))
        try FileManager.default.copyItem(atPath: try originalPath(a), toPath: try originalPath(b))
        let verify = try fetch(["cache", "verify"])
        #expect(verify.status == 8 && verify.stdoutText.contains("misplaced"), "\(verify.stdoutText)\(verify.stderr)")
        // cache inspect B shows the copy in B's place as damaged, not as B's original.
        let inspected = try fetch(["cache", "inspect", b, "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any])
        let items = try #require(document["items"] as? [[String: Any]])
        #expect(items.contains { $0["kind"] as? String == "original" && $0["damaged"] as? Bool == true }, "\(items)")
        let again = try fetch([b, "--format", "png", "-o", work.file("b.png"), "-v"])
        #expect(again.status == 0 && again.stderr.contains(": network"), "\(again.stderr)")
        #expect(try size(work.file("b.png")) == (try size(Paths.images + "/rgba.png")))
        #expect(try server.requests("/img/rgba.png") == 2)
    }

    /// Format 1 (keys that could collide) and format 2 (SHA-256 digests): an entry that is whole in its own
    /// format, with only the header line changed, is never read as a format-3 entry.
    @Test(arguments: [1, 2]) func anEntryOfAnOldFormatIsAMiss(format: Int) throws {
        let a = server.url("/img/sample.jpg")
        #expect(try fetch([a, "-o", work.file("a.jpg")]).status == 0)
        let folder = (try originalPath(a) as NSString).deletingLastPathComponent
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let path = folder + "/" + name
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(bytes.starts(with: Data("IMGFETCH-ENTRY 3\n".utf8)))
            let (metadata, offset) = try #require(CacheEntryFile.parseHeader(bytes))
            let body = bytes.subdata(in: offset..<bytes.count)
            var header = String(decoding: bytes.prefix(offset), as: UTF8.self)
            header = header.replacingOccurrences(of: "IMGFETCH-ENTRY 3\n", with: "IMGFETCH-ENTRY \(format)\n")
            if format == 2 {
                header = header.replacingOccurrences(of: "\"xxh3\":\"\(metadata.xxh3)\"",
                                                     with: "\"sha256\":\"\(Digest.sha256(body))\"")
            }
            bytes = Data(header.utf8) + body
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        let verify = try fetch(["cache", "verify"])
        #expect(verify.status == 8 && verify.stdoutText.contains("old format"), "\(verify.stdoutText)\(verify.stderr)")
        let again = try fetch([a, "-o", work.file("a.jpg"), "-v"])
        #expect(again.stderr.contains(": network"), "\(again.stderr)")
    }

    @Test func credentialsArePartOfTheKey() throws {
        let basic = Data("alice:s3cret".utf8).base64EncodedString()
        let url = server.url("/basic-auth/\(basic)/sample.jpg")
        let withUser = url.replacingOccurrences(of: "://", with: "://alice:s3cret@")
        #expect(try fetch([withUser, "-o", work.file("a.jpg")]).status == 0)
        #expect(try fetch([url, "-o", work.file("b.jpg")]).status == 4, "served the private image without credentials")
        #expect(try fetch([url, "-H", "Authorization: Basic \(basic)", "-o", work.file("c.jpg")]).status == 0)
        #expect(try fetch([url, "-o", work.file("d.jpg")]).status == 4, "served the private image without Authorization")
        let cookie = server.url("/echo-header/Cookie/rgba.png")
        #expect(try fetch([cookie, "-H", "Cookie: session=1", "-o", work.file("e.png")]).status == 0)
        #expect(try fetch([cookie, "-o", work.file("f.png")]).status == 4, "served the private image without Cookie")
        // The same credentials again are a hit.
        let hit = try fetch([withUser, "-o", work.file("g.jpg"), "-v"])
        #expect(hit.stderr.contains(": disk"), "\(hit.stderr)")
        #expect(!hit.stderr.contains("s3cret"))
    }

    @Test func keptRepeatedParametersKeepTheirOrder() throws {
        let first = CacheKey.original(for: URL(string: "http://h/a?id=1&b=0&id=2")!, query: .all)
        let second = CacheKey.original(for: URL(string: "http://h/a?id=2&id=1&b=0")!, query: .all)
        #expect(first == "http://h/a?b=0&id=1&id=2")
        #expect(second == "http://h/a?b=0&id=2&id=1")
        let one = server.url("/by-query/x?img=sample.jpg&id=1&id=2")
        let two = server.url("/by-query/x?id=2&img=sample.jpg&id=1")
        #expect(try fetch([one, "--keep-query", "-o", work.file("a.jpg")]).status == 0)
        #expect(try fetch([two, "--keep-query", "-o", work.file("b.jpg")]).status == 0)
        #expect(try server.requests("/by-query/x") == 2)
    }

    @Test func keepQueryNamesKeepsOnlyThoseParameters() throws {
        #expect(CacheKey.original(for: URL(string: "http://h/i.php?w=2&sig=9&img=a&img=b")!, query: QueryInKey(names: "img,w")!)
                == "http://h/i.php?img=a&img=b&w=2")
        let a1 = server.url("/by-query/i.php?img=sample.jpg&sig=1")
        let a2 = server.url("/by-query/i.php?sig=2&img=sample.jpg")
        let b = server.url("/by-query/i.php?img=rgba.png&sig=3")
        for url in [a1, a2, b] {
            #expect(try fetch([url, "--keep-query=img", "-O", work.file("out")]).status == 0)
        }
        #expect(try server.requests("/by-query/i.php") == 2)
        #expect(try fetch([b, "--keep-query=", "-O", work.file("out")]).status == 2)

        // Stored per cache: the same keys without the option, for fetch and cache inspect alike.
        let config = try fetch(["cache", "config", "keep-query=img"])
        #expect(config.status == 0 && config.stdoutText.contains("keep-query img (from the directory's config)"), "\(config.stdoutText)")
        let hit = try fetch([server.url("/by-query/i.php?img=rgba.png&sig=4"), "-O", work.file("out"), "-v"])
        #expect(hit.stderr.contains(": disk"), "\(hit.stderr)")
        let inspect = try fetch(["cache", "inspect", server.url("/by-query/i.php?img=rgba.png"), "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: inspect.stdout) as? [String: Any])
        let urls = (document["items"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
        #expect(urls.contains(b), "\(urls)")
    }

    @Test func inputsThatWouldShareAKeyAreNamedOnce() throws {
        let a = server.url("/by-query/x?img=sample.jpg"), b = server.url("/by-query/x?img=rgba.png")
        let fetched = try fetch([a, b, a, "-q", "-O", work.file("out")])
        #expect(fetched.status == 0)
        let lines = fetched.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(a) && lines[0].contains(b) && lines[0].contains("--keep-query"),
                "\(fetched.stderr)")
        let list = work.file("list.txt")
        try [a, b, server.url("/by-query/x?img=cogs.gif")].joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try fetch(["batch", list, "-O", work.file("batch"), "-q"])
        #expect(batch.stderr.split(separator: "\n").count == 1 && batch.stderr.contains("--keep-query"), "\(batch.stderr)")
        let prefetch = try fetch(["prefetch", "--from", list, "-q", "--force-refresh"])
        #expect(prefetch.stderr.contains("--keep-query"), "\(prefetch.stderr)")
        let kept = try fetch(["batch", list, "-O", work.file("kept"), "--keep-query"])
        #expect(!kept.stderr.contains("warning"), "\(kept.stderr)")
    }

    /// The watch remembers a key as hashes (and the first input's query as written), not as strings of the key and
    /// URL (~300 bytes a line, 5 MiB at 20,000): its warning still names the earlier URL with its query and the
    /// later one, without credentials, once per key; a reordered query is the same; past its capacity, new keys are
    /// not remembered.
    @Test func theQueryWatchKeepsHashesAndStillNamesBothURLs() throws {
        let watch = QueryCollisionWatch(capacity: 3)
        func note(_ text: String) throws -> String? {
            let request = ImageRequest(source: .remote(try #require(URL(string: text))))
            return watch.note(request, key: try #require(try CacheKey.original(for: request.source)))?.message
        }
        #expect(try note("http://bob:pw@h/a.jpg?w=1&h=2") == nil)
        #expect(try note("http://bob:pw@h/a.jpg?h=2&w=1") == nil, "the same parameters")
        let warning = try #require(try note("http://bob:pw@h/a.jpg?w=3"))
        #expect(warning.hasPrefix("warning: http://h/a.jpg?w=1&h=2 and http://h/a.jpg?w=3 differ only in their query"), "\(warning)")
        #expect(try note("http://bob:pw@h/a.jpg?w=4") == nil, "once per key")
        #expect(try note("http://h/b.jpg") == nil)
        let noQuery = try #require(try note("http://h/b.jpg?v=2"))
        #expect(noQuery.hasPrefix("warning: http://h/b.jpg and http://h/b.jpg?v=2 differ"), "\(noQuery)")
        #expect(try note("http://h/c.jpg") == nil && watch.count == 3)
        #expect(try note("http://h/d.jpg") == nil && watch.count == 3)
        #expect(try note("http://h/d.jpg?x=1") == nil, "a key past the capacity is not watched")
        var kept = ImageRequest(source: .remote(try #require(URL(string: "http://h/e.jpg?x=1"))))
        kept.query = .all
        #expect(watch.note(kept, key: "http://h/e.jpg?x=1") == nil && watch.count == 3)
    }

    /// The watch's table is made whole at the first key, so a long list's memory doesn't step up when it would grow.
    @Test func theQueryWatchTableIsMadeWholeAtTheFirstKey() throws {
        let watch = QueryCollisionWatch(capacity: 5_000)
        #expect(watch.tableCapacity == 0)
        let request = ImageRequest(source: .remote(try #require(URL(string: "http://h/a.jpg"))))
        #expect(watch.note(request, key: try #require(try CacheKey.original(for: request.source))) == nil)
        #expect(watch.tableCapacity >= 5_000 && watch.count == 1)
    }

    @Test func cacheInspectShowsTheFullURLWithoutCredentials() throws {
        let url = server.url("/by-query/x?img=sample.jpg&w=3")
        #expect(try fetch([url.replacingOccurrences(of: "://", with: "://bob:pw@") + "#top", "-o", work.file("a.jpg")]).status == 0)
        let inspect = try fetch(["cache", "inspect", "--all", "--json"])
        let document = try #require(try JSONSerialization.jsonObject(with: inspect.stdout) as? [String: Any])
        let urls = (document["items"] as? [[String: Any]] ?? []).compactMap { $0["url"] as? String }
        #expect(!urls.isEmpty && Set(urls) == [url], "\(urls)")
    }

    @Test func aSymlinkedLocalInputIsKeyedByItsTarget() throws {
        let target = work.file("a.jpg"), link = work.file("cur")
        try FileManager.default.copyItem(atPath: Paths.images + "/sample.jpg", toPath: target)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "a.jpg")
        #expect(try fetch([link, "--resize", "8x8", "-o", work.file("one.png")]).status == 0)
        try FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: Paths.images + "/rgba.png", toPath: target)
        let second = try fetch([link, "--resize", "8x8", "-o", work.file("two.png"), "-v"])
        #expect(second.stderr.contains(": local"), "\(second.stderr)")
        let inspect = try fetch(["cache", "inspect", link])
        #expect(inspect.status == 0 && inspect.stdoutText.contains("variant"), "\(inspect.stdoutText)")
        let removed = try fetch(["cache", "remove", link])
        #expect(removed.status == 0 && !removed.stdoutText.contains("removed 0"), "\(removed.stdoutText)")
        #expect(try CacheKey.original(forLocalFile: link) == (try CacheKey.original(forLocalFile: target)))
    }
}
