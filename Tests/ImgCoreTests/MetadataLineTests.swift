import Foundation
import Testing
@testable import ImgCore

/// The cache entry's metadata line is written directly (`JSONObjectText`), and must be `JSONEncoder`'s text byte for
/// byte: other imgfetch versions share the cache, and `headerRoom` counts its bytes.
@Suite("Metadata line written directly")
struct MetadataLineTests {
    /// `JSONEncoder`'s text, as the line was written before.
    static func encoderLine(_ metadata: CacheEntryMetadata) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(metadata)
    }

    /// Every control character, both characters JSON escapes, the slash it may, DEL, line separators, accents, an
    /// emoji.
    static let awkward = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        + ["\"", "\\", "/", "\u{7F}", "\u{2028}", "\u{85}", "é", "😀", "a b", "%40@", ""]

    static func randomString(_ generator: inout some RandomNumberGenerator) -> String {
        (0..<Int.random(in: 0...6, using: &generator)).map { _ in awkward.randomElement(using: &generator)! }.joined()
    }

    static func randomMetadata(_ generator: inout some RandomNumberGenerator) -> CacheEntryMetadata {
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &generator) ? value : nil }
        let doubles = [0, -0.0, 1, 1764972803.123456, 1764972803, 0.1, 1e-7, 1e21, 1.2345678901234568e16,
                       .leastNonzeroMagnitude]
        var metadata = CacheEntryMetadata(
            url: randomString(&generator), key: randomString(&generator), variant: maybe(randomString(&generator)),
            kind: Bool.random(using: &generator) ? .original : .variant,
            size: Int.random(in: -5...Int.max, using: &generator),
            xxh3: randomString(&generator),
            created: Bool.random(using: &generator) ? doubles.randomElement(using: &generator)!
                : Double.random(in: -1e300...1e300, using: &generator))
        metadata.format = maybe(randomString(&generator))
        metadata.width = maybe(Int.random(in: Int.min...Int.max, using: &generator))
        metadata.height = maybe(Int.random(in: 0...70_000, using: &generator))
        metadata.sourceWidth = maybe(Int.random(in: 0...70_000, using: &generator))
        metadata.sourceHeight = maybe(Int.random(in: Int.min...Int.max, using: &generator))
        metadata.ttl = maybe(Int64.random(in: Int64.min...Int64.max, using: &generator))
        metadata.etag = maybe(randomString(&generator))
        metadata.lastModified = maybe(randomString(&generator))
        metadata.contentType = maybe(randomString(&generator))
        metadata.damage = maybe(randomString(&generator))
        metadata.checkedAt = maybe(FailOn.allCases.randomElement(using: &generator)!)
        let tagCount = Int.random(in: 0...3, using: &generator)
        metadata.robotsTags = maybe((0..<tagCount).map { _ in randomString(&generator) })
        metadata.httpStatus = maybe(Int.random(in: 100...599, using: &generator))
        return metadata
    }

    @Test func directLineIsTheEncodersTextByteForByte() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let metadata = Self.randomMetadata(&generator)
            let direct = try #require(CacheEntryFile.directLine(metadata))
            let expected = try Self.encoderLine(metadata)
            #expect(direct == expected, "\(String(decoding: direct, as: UTF8.self))")
            if direct != expected { return }
            #expect(try JSONDecoder().decode(CacheEntryMetadata.self, from: direct) == metadata)
        }
    }

    @Test func everyMemberPresentKeepsTheEncodersOrder() throws {
        var metadata = CacheEntryMetadata(url: "http://127.0.0.1/a.jpg", key: "k", variant: "v", kind: .variant,
                                          size: 3, xxh3: "x", created: 1.5)
        (metadata.format, metadata.width, metadata.height, metadata.ttl) = ("jpeg", 1, 2, 3)
        (metadata.etag, metadata.lastModified, metadata.contentType, metadata.damage) = ("e", "l", "c", "d")
        (metadata.checkedAt, metadata.robotsTags, metadata.httpStatus) = (.truncated, ["noai", ""], 404)
        #expect(CacheEntryFile.directLine(metadata) == (try Self.encoderLine(metadata)))
    }

    /// Nested members and doubles `JSONEncoder` refuses go through it, so the line is still its text.
    @Test func nestedMembersAndNonFiniteDoublesGoThroughTheEncoder() throws {
        var metadata = CacheEntryMetadata(url: "u", key: "k", kind: .variant, size: 1, xxh3: "0", created: 2)
        metadata.chosen = EncodingChoice(quality: 70, distance: 1.9876)
        #expect(CacheEntryFile.jsonLine(metadata) == (try Self.encoderLine(metadata)))
        metadata.chosen = nil
        metadata.created = .infinity
        #expect(CacheEntryFile.directLine(metadata) == nil)
        #expect(CacheEntryFile.jsonLine(metadata) == Data("{}".utf8))
    }
}
