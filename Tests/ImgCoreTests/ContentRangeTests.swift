import Foundation
import Testing
@testable import ImgCore

@Suite("Content-Range of a 206")
struct ContentRangeTests {
    @Test func theFormsAServerSends() throws {
        let known = try #require(RangedDownload.contentRange("bytes 0-65535/107470"))
        #expect(known.first == 0 && known.last == 65_535 && known.total == 107_470)
        let unknown = try #require(RangedDownload.contentRange("bytes 65536-131071/*"))
        #expect(unknown.first == 65_536 && unknown.last == 131_071 && unknown.total == nil)
        for bad in [nil, "", "bytes */5000", "items 0-1/2", "bytes 9-1/20", "bytes 0-1/x", "bytes 0-22950/10",
                    "bytes 0-10/10"] {
            #expect(RangedDownload.contentRange(bad) == nil, "\(bad ?? "nil")")
        }
    }
}
