import Foundation
import Testing
@testable import ImgCore

/// An entry's metadata line stays within its 64 KiB limit whatever the server sends (issue #38 item 11).
@Suite("Entry metadata limit")
struct EntryMetadataLimitTests {
    /// Before: an ETag over 64 KiB, or 11,000 control characters (6 bytes each once escaped), made a metadata line
    /// over the limit; the entry read as damaged and `cache verify` exited 8 for everyone. Now the validators that
    /// don't fit are not stored: the entry is whole, served from the cache, and only not revalidated.
    @Test func validatorsThatWontFitAreNotStored() throws {
        let fixture = try CacheFixture(inProcess: true)
        for path in ["/long-etag/70000/plain/sample.jpg", "/long-etag/11000/control/rgba.png"] {
            try fixture.fetch(path)
            try fixture.fetch(path)
            #expect(try fixture.requests(path) == 1, "\(path): the second fetch is served from the cache")
        }
        try fixture.fetch("/img/sample.png")
        let verified = try fixture.run(["cache", "verify"])
        #expect(verified.status == 0, "\(verified.stdoutText) \(verified.stderr)")
        #expect(verified.stdoutText.contains("checked 6 entries"), "\(verified.stdoutText)")

        var metadata = CacheEntryMetadata(url: "u", key: "k", kind: .original, size: 1, xxh3: "0", created: 0)
        metadata.etag = String(repeating: "e", count: 70_000)
        metadata.lastModified = "Mon, 01 Jan 2024 00:00:00 GMT"
        let line = CacheEntryFile.metadataLine(metadata)
        #expect(line.count <= CacheEntryFile.maxMetadataBytes)
        #expect(!String(decoding: line, as: UTF8.self).contains("lastModified"))
        metadata.etag = "\"short\""
        #expect(String(decoding: CacheEntryFile.metadataLine(metadata), as: UTF8.self).contains("\"short\\\""))
    }
}
