import Foundation
import Synchronization
import Testing
@testable import ImgCore

@Suite("Batch parts: templates, names, shards, list reading")
struct BatchPartsTests {
    @Test func templatesExpand() throws {
        let template = try NameTemplate("{name}_{variant}-{index}.{hash}.{ext}")
        #expect(template.render(name: "cat", variant: "t", index: 7, hash: "abc", ext: "webp") == "cat_t-7.abc.webp")
        #expect(NameTemplate.plain.render(name: "a", variant: "x", index: 1, hash: "h", ext: "jpg") == "a.jpg")
        #expect(throws: ImgError.self) { try NameTemplate("{nope}") }
        #expect(throws: ImgError.self) { try NameTemplate("x/{name}") }
        #expect(throws: ImgError.self) { try NameTemplate("..{name}") }
        #expect(throws: ImgError.self) { try NameTemplate("a\u{0}b.{ext}") }
        #expect(try NameTemplate.stem(fromColumn: "cat photo.jpg") == "cat_photo")
        #expect(throws: ImgError.self) { try NameTemplate.stem(fromColumn: "../x") }
        #expect(throws: ImgError.self) { try NameTemplate.stem(fromColumn: ".x") }
        #expect(!NameTemplate.isSafeFileName("..") && !NameTemplate.isSafeFileName("a/b") && NameTemplate.isSafeFileName("a..b.jpg"))
    }

    @Test func clashesGetNumberedInClaimOrder() {
        var registry = OutputNameRegistry()
        #expect(registry.claim("a.jpg") == "a.jpg")
        #expect(registry.claim("a.jpg") == "a-1.jpg")
        #expect(registry.claim("a-1.jpg") == "a-1-1.jpg")
        #expect(registry.claim("a.jpg") == "a-2.jpg")
        #expect(registry.claim("noext") == "noext")
        #expect(registry.claim("noext") == "noext-1")
    }

    /// The same names as numbering each clash from 1 again (names are never given back), with one look-up a claim
    /// however often a name came before: 20,000 lines of `image.jpg` (a crawl's commonest name) took 200 million
    /// look-ups, minutes of a batch's CPU.
    @Test func aNameClaimedOftenCostsOneLookUpAClaim() {
        var registry = OutputNameRegistry()
        var candidates = 0
        for index in 0..<20_000 {
            let name = registry.claim { counter in
                candidates += 1
                return OutputNameRegistry.numbered("image.jpg", counter)
            }
            #expect(name == (index == 0 ? "image.jpg" : "image-\(index).jpg"))
            if name != (index == 0 ? "image.jpg" : "image-\(index).jpg") { return }
        }
        #expect(candidates < 3 * 20_000, "\(candidates) candidates")
        // Against the plain search, over names that clash with each other's numbered forms.
        var generator = SplitMix(state: 11)
        var fast = OutputNameRegistry(), plain = Set<String>()
        for _ in 0..<5_000 {
            let name = ["a.jpg", "a-1.jpg", "A.JPG", "a-2.jpg", "b", "b-1", "a-1-1.jpg"].randomElement(using: &generator)!
            var counter = 0
            while plain.contains(OutputNameRegistry.numbered(name, counter).lowercased()) { counter += 1 }
            let expected = OutputNameRegistry.numbered(name, counter)
            plain.insert(expected.lowercased())
            let claimed = fast.claim(name)
            #expect(claimed == expected)
            if claimed != expected { return }
        }
    }

    @Test func namesAreClaimedBeforeTheFormatIsKnown() throws {
        var namer = BatchOutputNamer(template: .plain)
        let first = namer.claim(stem: "pic", shortenable: true, variants: ["original"], index: 1) { _ in "" }
        let second = namer.claim(stem: "pic", shortenable: true, variants: ["original"], index: 2) { _ in "" }
        #expect(try first[0].name(ext: "jpg") == "pic.jpg" && second[0].name(ext: "png") == "pic-1.png")
        var variants = BatchOutputNamer(template: .withVariants)
        let pair = variants.claim(stem: "a", shortenable: true, variants: ["s", "l"], index: 1) { _ in "" }
        #expect(try pair.map { try $0.name(ext: "webp") } == ["a-s.webp", "a-l.webp"])
        #expect(BatchOutputNamer.stem(input: "htp://x/a%20b.jpg?q=1#f", column: nil, source: nil) == ("a_b", false))
        #expect(BatchOutputNamer.stem(input: "htp://x/a.jpg", column: "../bad", source: nil) == ("a", false))
        #expect(BatchOutputNamer.stem(input: "htp://x/a.jpg", column: "good.png", source: nil) == ("good", true))
    }

    /// A template that begins with `{index}` (then its end, `{ext}` or text that starts with no digit) gives
    /// different lines different names (their numbers differ, through several inputs too), so the batch remembers
    /// none of them; a line's own outputs still get `-1`, … as before. Other templates remember them all.
    @Test func namesLedByTheLineNumberAreNotRemembered() throws {
        let delimited = ["{index}", "{index}.{ext}", "{index}-{name}.{ext}", "{index}{ext}", "{index}_{variant}.{ext}"]
        let open = ["{name}.{ext}", "{index}{name}.{ext}", "{index}1.{ext}", "{index}{hash}.{ext}", "a{index}.{ext}"]
        #expect(try delimited.allSatisfy { try NameTemplate($0).beginsWithDelimitedIndex })
        #expect(try !open.contains { try NameTemplate($0).beginsWithDelimitedIndex })
        func claimAll(_ template: String) throws -> (names: [String], remembered: Int) {
            var namer = BatchOutputNamer(template: try NameTemplate(template))
            let names = try (1...300).flatMap { line in
                try namer.claim(stem: "pic", shortenable: true, variants: ["s", "s"], index: line) { _ in "" }
                    .map { try $0.name(ext: "jpg") }
            }
            return (names, namer.rememberedNames)
        }
        let lineLed = try claimAll("{index}.{ext}")
        #expect(lineLed.remembered == 0 && Set(lineLed.names).count == 600)
        #expect(lineLed.names.prefix(4) == ["1.jpg", "1-1.jpg", "2.jpg", "2-1.jpg"])
        #expect(try claimAll("{name}.{ext}").remembered == 600)
    }

    @Test func stemsAreShortenedBetweenCharacters() {
        #expect(BatchOutputNamer.shortened("abcdef", by: 2) == "abcd")
        #expect(BatchOutputNamer.shortened("aé€x", by: 2) == "aé")
        #expect(BatchOutputNamer.shortened("€€", by: 5) == "€")
        var namer = BatchOutputNamer(template: try! NameTemplate("{name}_{name}.{ext}"))
        let stem = String(repeating: "s", count: 200)
        let names = (0..<2).map { _ in namer.claim(stem: stem, shortenable: true, variants: ["original"], index: 1) { _ in "" }[0] }
        #expect(names.allSatisfy { $0.pattern.utf8.count - 1 + BatchOutputNamer.longestExtensionBytes <= 255 })
        #expect(names[1].pattern.hasSuffix("-1.\u{0}"))
    }

    @Test func shardsPartitionKeys() throws {
        let keys = (0..<300).map { "http://host/img\($0).jpg" }
        let shards = try (0..<3).map { try Shard(parsing: "\($0)/3") }
        for key in keys { #expect(shards.filter { $0.contains(key: key) }.count == 1) }
        #expect(shards.allSatisfy { shard in keys.filter { shard.contains(key: $0) }.count > 50 })
        for bad in ["3/3", "1", "-1/3", "0/0", "a/b", "+0/2", "0/+2", " 0/2", "0/2 "] { #expect(throws: ImgError.self) { try Shard(parsing: bad) } }
    }

    @Test func listsAreReadLineByLine() throws {
        let directory = try TemporaryDirectory()
        var text = "# header\n\n  http://a/1.jpg  \nhttp://a/2.jpg\tname2\r\n"
        for index in 0..<20_000 { text += "http://a/x\(index).jpg\n" }
        text += "http://a/last.jpg" // no final newline
        try text.write(toFile: directory.file("list"), atomically: true, encoding: .utf8)
        let reader = BatchListReader([.words(["http://w/1.jpg"]), .file(directory.file("list"))])
        let first = try #require(reader.nextLine())
        #expect(first.first == "http://w/1.jpg" && first.line == 1)
        let second = try #require(reader.nextLine())
        #expect(second.first == "http://a/1.jpg" && second.line == 3 && second.second == nil)
        let third = try #require(reader.nextLine())
        #expect(third.first == "http://a/2.jpg" && third.second == "name2")
        var count = 0
        var last = ""
        while let line = reader.nextLine() {
            count += 1
            last = line.first
        }
        #expect(count == 20_001 && last == "http://a/last.jpg")
    }

    @Test func aByteOrderMarkIsDroppedOnlyAtTheStartOfEachInput() throws {
        let directory = try TemporaryDirectory()
        let mark = "\u{FEFF}"
        try "\(mark)http://a/1.jpg one\n\(mark)http://a/2.jpg\n".write(toFile: directory.file("a"), atomically: true, encoding: .utf8)
        try "\(mark)# comment\nhttp://b/1.jpg\n".write(toFile: directory.file("b"), atomically: true, encoding: .utf8)
        let reader = BatchListReader([.file(directory.file("a")), .file(directory.file("b"))])
        var lines: [String] = []
        while let line = reader.nextLine() { lines.append(line.first) }
        // Inside a list it is no byte order mark but part of the line, and left for the URL parser to refuse.
        #expect(lines == ["http://a/1.jpg", "\(mark)http://a/2.jpg", "http://b/1.jpg"])
    }

    @Test func variantsParse() throws {
        let variant = try BatchVariant(parsing: "thumb=resize(200x200,fill)|>round(8)")
        #expect(variant.name == "thumb" && variant.chain.identifier == "resize(200x200,fill)|>round(8)")
        for bad in ["thumb", "=resize(1x1)", "../x=resize(1x1)", "t=resize(", ".t=blur(1)"] {
            #expect(throws: ImgError.self) { try BatchVariant(parsing: bad) }
        }
    }

    /// Files get names claimed from the list (remembered for the whole batch, so that none is given twice); WebDataset
    /// samples are named by their keys, so a dataset batch claims and remembers none.
    @Test func onlyFileOutputsClaimNames() throws {
        let doubled = try DoubledPipeline()
        let requests = BatchRequests(template: try DoubledPipeline.request(), variants: [], originalsOnly: false)
        func claimedNames(_ options: BatchOptions) throws -> Int {
            var maker = BatchItemMaker(options: options, requests: requests, pipeline: doubled.pipeline, judge: nil)
            let line = try #require(ListRowReader([.words([DoubledPipeline.url])], layout: options.listLayout).nextRow())
            let item = maker.item(for: line, sequence: 0)
            return try #require(item).outputNames.count
        }
        var options = BatchOptions()
        options.outputDirectory = "/nonexistent/out"
        #expect(try claimedNames(options) == 1)
        options.webDataset = WebDatasetLayout(shard: nil)
        #expect(try claimedNames(options) == 0)
    }
}
