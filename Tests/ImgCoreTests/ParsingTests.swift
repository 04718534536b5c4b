import Foundation
import Testing
@testable import ImgCore

@Suite("Parsing of sizes, durations, chains and keys")
struct ParsingTests {
    @Test func byteSizesArePowersOf1024() {
        #expect(ByteSize.parse("64M") == 64 << 20)
        #expect(ByteSize.parse("1g") == 1 << 30)
        #expect(ByteSize.parse("512K") == 512 << 10)
        #expect(ByteSize.parse("100") == 100)
        #expect(ByteSize.parse("12Q") == nil)
        #expect(ByteSize.parse("-1") == nil)
        #expect(ByteSize.parse("") == nil)
        #expect(ByteSize.parse("99999999999999999G") == nil)
    }

    @Test func durations() {
        #expect(TimeToLive.parse("7d") == .seconds(604_800))
        #expect(TimeToLive.parse("15m") == .seconds(900))
        #expect(TimeToLive.parse("2") == .seconds(2))
        #expect(TimeToLive.parse("never") == .never)
        #expect(TimeToLive.parse("3w") == nil)
        #expect(TimeToLive.parse("") == nil)
        // At most 100 years: a longer one ended past year 9999 and was stored as never expiring.
        #expect(TimeToLive.parse("36500d") == .seconds(36_500 * 86_400) && TimeToLive.parse("0") == .seconds(0))
        #expect(TimeToLive.parse("36501d") == nil && TimeToLive.parse("10000000d") == nil)
    }

    @Test func twoSpellingsOfOneChainShareAnIdentifier() throws {
        let spaced = try ProcessingChain.parse(" resize( 200x200 , fill ) |> round(12)|>blur(2.0) ")
        let tight = try ProcessingChain.parse("resize(200x200,fill)|>round(12)|>blur(2)")
        #expect(spaced.identifier == tight.identifier)
        #expect(tight.identifier == "resize(200x200,fill)|>round(12)|>blur(2)")
        let overlay1 = try ProcessingChain.parse("overlay(#ff000080,1)")
        let overlay2 = try ProcessingChain.parse("overlay(red,0.502)")
        #expect(overlay1.identifier == overlay2.identifier)
        #expect(try ProcessingChain.parse("crop(10x10,center)").identifier == "crop(10x10,centre)")
        #expect(try ProcessingChain.parse("resize(200x,fit,upscale)").identifier == "resize(200x,fit,upscale)")
        // Step names, anchors and resize modes all ignore case.
        #expect(try ProcessingChain.parse("Resize(100X100,FILL)").identifier == "resize(100x100,fill)")
        #expect(try ProcessingChain.parse("RESIZE(100x,Fit,UpScale)").identifier == "resize(100x,fit,upscale)")
        #expect(try ProcessingChain.parse("crop(10x10,CENTER)").identifier == "crop(10x10,centre)")
    }

    @Test(arguments: [
        ("resize(200x", "position 1"), ("round(x)", "round radius"), ("sharpen(2)", "unknown processing step"),
        ("resize(0x0)", "out of range"), ("blur(-1)", "out of range"), ("resize(200x200)|round(2)", "position 16"),
        ("", "empty chain"), ("resize(200x200,fill", "missing ')'"),
        ("resize(100x100,fill,fit)", "resize modes 'fill' and 'fit' contradict each other"),
        ("resize(100x100,exact,cover)", "resize modes 'exact' and 'cover' contradict each other"),
        ("resize(100x100,pad=red,pad=blue)", "resize modes 'pad=red' and 'pad=blue' contradict each other"),
    ])
    func malformedChainsNameTheProblem(chain: String, expected: String) {
        do {
            _ = try ProcessingChain.parse(chain)
            Issue.record("'\(chain)' parsed")
        } catch {
            #expect(error.exitCode == 2)
            #expect(error.message.contains(expected), "\(error.message)")
            #expect(chain.isEmpty || error.message.contains(chain))
        }
    }

    @Test func originalKeysDropQueryFragmentAndDefaultPort() throws {
        let url = try #require(URL(string: "https://Host.Example:443/a.jpg?sig=1#x"))
        #expect(CacheKey.original(for: url) == "https://host.example/a.jpg")
        let port = try #require(URL(string: "HTTP://h:8080"))
        #expect(CacheKey.original(for: port) == "http://h:8080/")
        let query = try #require(URL(string: "http://h/img?b=2&a=1"))
        #expect(CacheKey.original(for: query, query: .all) == "http://h/img?a=1&b=2")
        #expect(CacheKey.original(for: query) == "http://h/img")
    }

    @Test func inputsAreClassified() throws {
        #expect(try ImageSource(parsing: "-") == .standardInput)
        #expect(try ImageSource(parsing: "file:///tmp/a.png") == .file(path: "/tmp/a.png"))
        #expect(try ImageSource(parsing: "a.png") == .file(path: "a.png"))
        #expect(throws: ImgError.self) { try ImageSource(parsing: "ftp://h/a.png") }
        #expect(throws: ImgError.self) { try ImageSource(parsing: "http://") }
        #expect(throws: ImgError.self) { try ImageSource(parsing: "http://exa mple.com/a") }
    }

    /// A host libcurl would refuse is refused as the input is read (exit 2; a permanent failure in a batch), never
    /// sent: a percent-encoded international name, an escape of a byte no host may hold, a character libcurl
    /// refuses in a host. An escape of a letter is sent (libcurl decodes it).
    @Test func hostsLibcurlRefusesAreRefusedAsTheInputIsRead() throws {
        let refused: [(String, String)] = [
            ("http://ex%C3%A4mple.invalid/x", "'%' (U+0025) at position 10 escapes a byte of a non-ASCII character (give an international name in its xn-- form)"),
            ("http://a%2Fb.invalid/x", "'%' (U+0025) at position 9 escapes a character that can't be in a host name"),
            ("http://a%20b.invalid/x", "escapes a character that can't be in a host name"),
            ("http://a%zzb.invalid/x", "starts no escape (%XX) and can't be in a host name"),
            ("http://ab.invalid%/x", "at position 18 starts no escape (%XX) and can't be in a host name"),
            ("http://a!b.invalid/x", "'!' (U+0021) at position 9 can't be in a host name"),
            ("http://a(b).invalid/x", "can't be in a host name"),
            ("http://a$b.invalid:80/x", "can't be in a host name"),
        ]
        for (input, problem) in refused {
            let message = UsageError.message { () throws(ImgError) in _ = try ImageSource(parsing: input) }
            #expect(message == "malformed URL '\(input)': \(problem)" || message?.hasSuffix(problem) == true,
                    "\(input): \(message ?? "accepted") (\(problem))")
            #expect(ASCIIURLSpelling.spell(input) == nil, "\(input)")
        }
        #expect(try ImageSource(parsing: "http://ex%41mple.invalid/x") == .remote(URL(string: "http://ex%41mple.invalid/x")!))
    }

    @Test func colours() {
        #expect(Color(parsing: "#fff") == .white)
        #expect(Color(parsing: "red") == Color(red: 255, green: 0, blue: 0))
        #expect(Color(parsing: "#11223344") == Color(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44))
        #expect(Color(parsing: "#12345") == nil)
        #expect(Color(parsing: "notacolour") == nil)
    }
}

@Suite("Output names and the memory cache")
struct NamingAndMemoryTests {
    @Test func namesAreSafeAndUnique() throws {
        let url = try #require(URL(string: "http://h/dir/c%C3%A4t%20photo.jpg?x=1"))
        #expect(OutputNaming.baseName(for: .remote(url)) == "c_t_photo")
        let dots = try #require(URL(string: "http://h/../..//"))
        #expect(OutputNaming.baseName(for: .remote(dots)) == "image")
        let traversal = try #require(URL(string: "http://h/a/%2e%2e%2f%2e%2e%2fetc%2fpasswd"))
        let name = OutputNaming.baseName(for: .remote(traversal))
        #expect(!name.contains("/") && !name.hasPrefix("."))
        // A fetch's name from a URL is cut at 200 characters; safeStem itself doesn't shorten (a batch fits its names).
        let long = try #require(URL(string: "http://h/" + String(repeating: "a", count: 5000) + ".jpg"))
        #expect(OutputNaming.baseName(for: .remote(long)) == String(repeating: "a", count: 200))
        #expect(OutputNaming.safeStem(String(repeating: "a", count: 5000)).count == 5000)
        var naming = OutputNaming()
        #expect(naming.claim(stem: "cat", fileExtension: "webp") == "cat.webp")
        #expect(naming.claim(stem: "cat", fileExtension: "webp") == "cat-1.webp")
        #expect(naming.claim(stem: "cat", fileExtension: "webp") == "cat-2.webp")
        #expect(naming.claim(stem: "cat", fileExtension: "png") == "cat.png")
    }

    @Test func leastRecentlyUsedIsEvictedFirst() {
        let cache = MemoryCache(limit: 30)
        func image(_ size: Int) -> ImagePayload { ImagePayload(data: Data(count: size), format: .png) }
        cache.store(image(10), forKey: "a")
        cache.store(image(10), forKey: "b")
        cache.store(image(10), forKey: "c")
        _ = cache.value(forKey: "a")
        cache.store(image(10), forKey: "d")
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.value(forKey: "a") != nil)
        #expect(cache.totalBytes == 30)
        cache.store(image(31), forKey: "huge")
        #expect(cache.value(forKey: "huge") == nil)
    }

    @Test func entryFilesRoundTripAndRejectDamage() {
        let body = Data("hello image".utf8)
        let metadata = CacheEntryMetadata(url: "u", key: "k", variant: nil, kind: .original, size: body.count,
                                          xxh3: Digest.integrity(body), format: "png", width: 1, height: 1, created: 1,
                                          ttl: 60, etag: "\"e\"", lastModified: nil, contentType: "image/png")
        var file = CacheEntryFile.encode(metadata, body: body)
        #expect(CacheEntryFile.decode(file)?.body == body)
        file[file.count - 1] ^= 0x01
        #expect(CacheEntryFile.decode(file) == nil)
        #expect(CacheEntryFile.decode(file.prefix(file.count - 3)) == nil)
        #expect(CacheEntryFile.decode(Data("garbage".utf8)) == nil)
    }

    /// XXH3-128 as xxHash's reference prints it (`xxh128sum`), and the streamed digest equal to the one-shot one.
    @Test func integrityDigestsAreXXH3Of128Bits() {
        #expect(Digest.integrity(Data()) == "99aa06d3014798d86001c324468d497f")
        #expect(Digest.integrity(Data("imgfetch".utf8)) == "578cfb5c0e193b9d311aaff5a95b84ba")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let stream = DigestStream()
        for start in stride(from: 0, to: bytes.count, by: 70_001) {
            bytes[start..<min(bytes.count, start + 70_001)].withUnsafeBytes { stream.update($0) }
        }
        #expect(stream.finish() == Digest.integrity(bytes))
    }
}
