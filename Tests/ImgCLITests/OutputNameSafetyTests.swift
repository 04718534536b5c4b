import Foundation
import Testing
@testable import ImgCore

/// Output names that a later command in the folder can't take for options, and that stay distinct on a
/// case-insensitive file system (issue #38 item 11).
@Suite("Output name safety")
struct OutputNameSafetyTests {
    /// In process: a URL's leading '-' becomes '_' (as a leading '.'); a list's name, a --name template or a
    /// variant name starting with '-' is refused; names that differ only in case clash.
    @Test func aLeadingHyphenIsNeverWrittenAndCaseIsAside() {
        #expect(OutputNaming.safeStem("-rf.jpg") == "_rf")
        #expect(OutputNaming.safeStem("--help") == "_-help")
        #expect(throws: ImgError.self) { try NameTemplate.stem(fromColumn: "-rf") }
        #expect(throws: ImgError.self) { try NameTemplate("-{name}.{ext}") }
        #expect(throws: ImgError.self) { try BatchVariant(parsing: "-x=resize(10x10)") }
        var registry = OutputNameRegistry()
        #expect(registry.claim("Cat.jpg") == "Cat.jpg")
        #expect(registry.claim("cat.jpg") == "cat-1.jpg")
        #expect(registry.claim("CAT-1.JPG") == "CAT-1-1.JPG")
        var naming = OutputNaming()
        #expect(naming.claim(stem: "Cat", fileExtension: "jpg") == "Cat.jpg")
        #expect(naming.claim(stem: "cat", fileExtension: "jpg") == "cat-1.jpg")
    }

    /// End to end: before, `/-rf.jpg` was written as `-rf.jpg` (`rm *` in the folder then read it as options), a
    /// list's name `-rf` likewise, and the names `Cat` and `cat` gave two files that a case-insensitive file system
    /// holds as one.
    @Test func aBatchWritesNoNameAnOptionParserWouldTake() throws {
        let fixture = try BatchFixture(count: 3, inProcess: true)
        try FileManager.default.copyItem(atPath: fixture.root.path + "/www/img1.jpg", toPath: fixture.root.path + "/www/-rf.jpg")
        let result = try fixture.batch([fixture.server.url("/img/-rf.jpg"),
                                        fixture.server.url("/img/img1.jpg") + "\tCat",
                                        fixture.server.url("/img/img2.jpg") + "\tcat",
                                        fixture.server.url("/img/img3.jpg") + "\t-rf"], ["--no-cache"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("unsafe output name '-rf'"), "\(result.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: fixture.output).sorted()
        #expect(written == ["Cat.jpg", "_rf.jpg", "cat-1.jpg"], "\(written) \(result.stderr)")
    }
}
