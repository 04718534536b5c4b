import Foundation
import Testing
@testable import ImgCore

/// The per-line string work written without Foundation's general routines gives what those routines gave.
@Suite("String work of a line, without Foundation's general routines")
struct StringFastPathTests {
    static let pieces = ["a", "Z", "%", "@", "%40", "/", ":", " ", "\t", "\r", "\n", "\u{0B}", "\u{0C}", "\u{1F}",
                         "\u{85}", "\u{A0}", "\u{2028}", "\u{3000}", "é", "e\u{301}", "%\u{301}", "😀", "://"]

    static func randomText(_ generator: inout some RandomNumberGenerator, from pieces: [String] = pieces) -> String {
        (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    @Test func headerValuesAreTrimmedAsFoundationTrimsThem() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = Self.randomText(&generator)
            #expect(Transfer.trimmed(Substring(text)) == text.trimmingCharacters(in: .whitespacesAndNewlines),
                    "\(Array(text.unicodeScalars))")
        }
        #expect(Transfer.trimmed(" \t noai, noimageai \r\n") == "noai, noimageai")
    }

    @Test func originalKeysAreEscapedAsByReplacement() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let key = Self.randomText(&generator)
            let replaced = key.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "@", with: "%40")
            #expect(CacheKey.escapingAtSigns(key) == replaced, "\(Array(key.unicodeScalars))")
        }
        let variant = CacheKey.variant(original: "http://u@127.0.0.1/a%40b.jpg", variantIdentifier: "id")
        #expect(variant == "variant:http://u%40127.0.0.1/a%2540b.jpg@id")
        #expect(CacheKey.original(ofVariant: variant) == "http://u@127.0.0.1/a%40b.jpg")
    }

    @Test func coloursAreWrittenInLowerCaseHex() {
        let channels = [(0, 0, 0, 255), (255, 255, 255, 255), (1, 0xAB, 0x10, 0), (0x0F, 0xF0, 7, 128)]
        for (red, green, blue, alpha) in channels {
            let colour = Color(red: UInt8(red), green: UInt8(green), blue: UInt8(blue), alpha: UInt8(alpha))
            let expected = String(format: "#%02x%02x%02x", red, green, blue)
                + (alpha == 255 ? "" : String(format: "%02x", alpha))
            #expect(colour.description == expected)
        }
    }

    @Test func loaderNamesAndStrippedMetadata() {
        #expect(ImageDecoder.loaderName("VipsForeignLoadJpegBuffer") == "jpeg")
        #expect(ImageDecoder.loaderName("VipsForeignLoadNsgifSource") == "gif")
        #expect(ImageDecoder.loaderName("VipsForeignLoadPngFile") == "pngfile")
        #expect(ImageDecoder.loaderName("VipsForeignLoadPdfiumBuffer") == "pdf")
        #expect(ImageEncoder.isStrippedMetadata("jpeg-comment"))
        #expect(ImageEncoder.isStrippedMetadata("exif-ifd0-Orientation"))
        #expect(ImageEncoder.isStrippedMetadata("png-comment-0-x"))
        #expect(!ImageEncoder.isStrippedMetadata("png-note-0-x"))
        #expect(!ImageEncoder.isStrippedMetadata("resolution-unit"))
    }

    @Test func commentFieldsAreFoundAsFoundationFindsThem() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["comment", "comm", "ent", "-", "c", "o", "jpeg", "exif", "0", "Comment"]
        for _ in 0..<3_000 {
            let name = Self.randomText(&generator, from: pieces)
            #expect(ImageEncoder.containsComment(name) == name.contains("comment"), "\(name)")
        }
    }

    /// Every marker becomes the extension, byte for byte, even one a combining mark follows (which Foundation's
    /// replacement, matching by composed character, left in the name as a NUL).
    @Test func extensionsTakeEveryMarkersPlace() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let pieces = Self.pieces + [ClaimedOutputName.extensionMarker, "\u{0}\u{301}"]
            let pattern = Self.randomText(&generator, from: pieces)
            let name = try ClaimedOutputName(pattern: pattern).name(ext: "webp")
            let expected = Array(pattern.utf8).split(separator: 0, omittingEmptySubsequences: false)
                .joined(separator: Array("webp".utf8))
            #expect(Array(name.utf8) == Array(expected), "\(Array(pattern.unicodeScalars))")
        }
        #expect(try ClaimedOutputName(pattern: "a.\u{0}\u{301}").name(ext: "jpg") == "a.jpg\u{301}")
    }
}
