import Foundation
import Testing
@testable import ImgCore
@testable import ImgRenderer

/// Inputs the fuzz targets of Fuzz/README.md found; each is also under Fuzz/regressions/<target>/.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    private func remoteURL(_ text: String) throws -> URL {
        guard case .remote(let url) = try ImageSource(parsing: text) else {
            Issue.record("'\(text)' is not remote")
            throw ImgError.usage("not remote")
        }
        return url
    }

    /// Fuzz/regressions/url/host-percent-space: the key was built from the decoded host, so `%20` became a space
    /// and the key was no longer a URL. Such a host is now refused as the input is read (libcurl refuses `=` and an
    /// escaped space in a host); an escape a host may hold stays encoded, its key a fixed point.
    @Test func percentEncodedHostStaysEncodedInKey() throws {
        #expect(throws: ImgError.self) { try ImageSource(parsing: "http://example.comq=%20") }
        #expect(throws: ImgError.self) { try ImageSource(parsing: "http://example.com%20") }
        let url = try remoteURL("http://example.co%6D")
        let key = try #require(CacheKey.original(for: url))
        #expect(key.hasPrefix("http://example.co%6") && key.hasSuffix("/"), "\(key)")
        let again = try remoteURL(key)
        #expect(CacheKey.original(for: again) == key)
    }

    /// Fuzz/regressions/url/host-percent-slash-collision: a decoded `%2F` in the host made two different URLs share a
    /// key. An escaped `/` in a host is now refused as the input is read (libcurl refuses it).
    @Test func encodedSlashInHostDoesNotCollide() throws {
        #expect(throws: ImgError.self) { try ImageSource(parsing: "http://a.com%2Fb.png/x") }
        let plain = try #require(CacheKey.original(for: try remoteURL("http://a.com/b.png/x")))
        #expect(plain == "http://a.com/b.png/x")
    }

    /// Upper-case hosts still fold to lower case; IPv6 literals keep their brackets.
    @Test func hostNormalisationStillHolds() throws {
        #expect(CacheKey.original(for: try remoteURL("HTTP://EXAMPLE.com:80/A")) == "http://example.com/A")
        #expect(CacheKey.original(for: try remoteURL("http://[::1]:8080/x")) == "http://[::1]:8080/x")
    }

    /// Fuzz/regressions/renderer/carriage-return-before-newline: "\r\n" is one Character, so splitting a renderer
    /// header into lines on Characters merged a value ending in "\r" with the next line.
    @Test func rendererHeaderValuesKeepCarriageReturns() throws {
        var fields = RendererFields()
        fields.set("failure", "ends in a carriage return\r")
        fields.set("width", "60")
        let parsed = try #require(RendererFields(fields.data))
        #expect(parsed["failure"] == "ends in a carriage return\r" && parsed["width"] == "60")
        let raw = try #require(RendererFields(Data("a=1\r\nb=2\n".utf8)))
        #expect(raw.pairs.count == 2 && raw["a"] == "1\r")
        #expect(RendererFields(raw.data)?["a"] == "1\r")
    }

    /// Fuzz/regressions/renderer/newline-before-combining-mark: Foundation's `replacingOccurrences` left a newline
    /// that a combining mark follows unescaped, so the value broke the header in two.
    @Test func rendererHeaderEscapesANewlineBeforeACombiningMark() throws {
        var fields = RendererFields()
        fields.set("failure", "line\n\u{FC6}next")
        fields.set("width", "1")
        let parsed = try #require(RendererFields(fields.data))
        #expect(parsed["failure"] == "line\n\u{FC6}next" && parsed["width"] == "1")
    }

    /// Fuzz/regressions/renderer/combining-mark-after-equals: "=" and a combining mark after it are one Character,
    /// so the separator was not found on Characters.
    @Test func rendererHeaderValueMayStartWithACombiningMark() throws {
        var fields = RendererFields()
        fields.set("note", "\u{301}x")
        let parsed = try #require(RendererFields(fields.data))
        #expect(parsed["note"] == "\u{301}x")
    }

    /// Fuzz/regressions/parquet/string-lengths-past-the-page: a dictionary page whose strings' lengths took its
    /// values past its end was read beyond its bytes (a trap); now the list ends with a failure naming the page.
    @Test func stringsPastTheirPageEndTheListWithAFailure() throws {
        let file = try ParquetFile(path: Paths.packageRoot + "/Fuzz/regressions/parquet/string-lengths-past-the-page")
        // Its flat columns: the damage reaches a nested one's pages too, in an earlier row group.
        let rows = ParquetRows(file, columns: file.columns.filter { $0.unreadableReason == nil && $0.maxRepetition == 0 }.map(\.name))
        var reason = ""
        do {
            while try rows.next() != nil {}
        } catch {
            reason = error.reason
        }
        #expect(reason.hasSuffix("values beyond their page"), "\(reason)")
    }
}
