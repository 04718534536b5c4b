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
            #expect(ASCIIBytes.trimmed(Substring(text)) == text.trimmingCharacters(in: .whitespacesAndNewlines),
                    "\(Array(text.unicodeScalars))")
        }
        #expect(ASCIIBytes.trimmed(" \t noai, noimageai \r\n") == "noai, noimageai")
    }

    @Test func blankLinesAreThoseFoundationTrimsToNothing() {
        var generator = SystemRandomNumberGenerator()
        let pieces = Self.pieces + [" ", "\t", "\u{2003}", "\u{3000}"]
        for _ in 0..<5_000 {
            let text = Self.randomText(&generator, from: pieces)
            #expect(ASCIIBytes.isBlank(text) == text.trimmingCharacters(in: .whitespaces).isEmpty, "\(Array(text.unicodeScalars))")
        }
    }

    /// Pieces of URLs, printable ASCII mostly, with what `URLSpelling` escapes, keeps or refuses.
    static let urlPieces = ["http://", "HTTPS://", "hTtP://", "://", "h", "Host", "u", "p", ":", "@", "[", "]", "::1", "[::1]",
                            "[fe80::1%25]", "127.0.0.1", ":8080", ":x", ":0", ":65535", ":65536", ":99999", ":00080", "%", "%4", "%41", "%zz", "%4G", "%C3%A4", "%2F", "!", "\\", "/", "?", "#",
                            " ", "\"", "<", ">", "^", "`", "{", "|", "}", "'", ";", "=", "a.jpg", "é", "\u{1}", "\u{7F}",
                            "\r\n", "~", "-", "_", "."]

    /// The byte path spells what the character path spells, and refuses (leaves to it) what it refuses.
    @Test func asciiURLsAreSpelledAsCharacterByCharacter() {
        var generator = SystemRandomNumberGenerator()
        var spelledByBytes = 0
        for round in 0..<20_000 {
            let input = (round % 2 == 0 ? "http://" : "") + Self.randomText(&generator, from: Self.urlPieces)
            let slow = Result { () throws(ImgError) in try URLSpelling.spellCharacters(input, shown: input) }
            if let fast = ASCIIURLSpelling.spell(input) {
                spelledByBytes += 1
                #expect(slow == .success(fast), "\(Array(input.unicodeScalars))")
            } else if case .success = slow {
                #expect(!input.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "printable ASCII left to the slow path: \(input)")
            }
        }
        // Hosts refuse libcurl's characters too (`'`, `;`, `=`, `!` among the pieces), so fewer are spelled.
        #expect(spelledByBytes > 1_000)
        #expect(ASCIIURLSpelling.spell("HTTP://u%40x:p w@Host:8080\\a\\b%zz?q=\\ '#f g") == "http://u%40x:p%20w@Host:8080/a/b%25zz?q=%5C%20%27#f%20g")
    }

    /// Keys read from a plain URL's text are those `URLComponents` gives, and the shortcuts on `?` and `@` hold.
    @Test func plainURLsAreKeyedAsURLComponentsKeysThem() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["h", "Host", "/", ":", ":80", ":443", ":0080", ":8080", ":", "%41", "%2F", "a.jpg", "~", "-", "@", "u:p@",
                      "[::1]", "?", "?b=1&a=2", "#f", "\\", " ", "é", ".", ";x=1"]
        var plain = 0
        for round in 0..<10_000 {
            let scheme = ["http://", "HTTPS://", "https://"][round % 3]
            guard case .remote(let url)? = try? ImageSource(parsing: scheme + Self.randomText(&generator, from: pieces)) else { continue }
            if PlainURLParts(url.absoluteString) != nil { plain += 1 }
            for query in [QueryInKey.none, .all] {
                #expect(CacheKey.original(for: url, query: query) == CacheKey.keyFromComponents(of: url, query: query),
                        "\(url.absoluteString)")
            }
            let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
            if !url.absoluteString.contains("?") { #expect(components.percentEncodedQuery == nil, "\(url.absoluteString)") }
            if !url.absoluteString.contains("@") {
                #expect(components.percentEncodedUser == nil && components.percentEncodedPassword == nil, "\(url.absoluteString)")
            }
        }
        #expect(plain > 500, "plain URLs among the random ones: \(plain)")
    }

    /// Stems made byte by byte from ASCII are those made scalar by scalar; a plain URL's name is its components'.
    @Test func stemsAndNamesAreThoseOfTheGeneralPath() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = Self.randomText(&generator, from: Self.urlPieces + [".", "..", "-x", "A9", "\u{301}"])
            let general = String(text.unicodeScalars.map { scalar -> Character in
                let allowed = (scalar.value < 128) && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar))
                return allowed ? Character(scalar) : "_"
            })
            var expected = general
            if let dot = expected.lastIndex(of: "."), dot != expected.startIndex { expected = String(expected[..<dot]) }
            if expected.allSatisfy({ $0 == "." }) { expected = "image" }
            if expected.hasPrefix(".") || expected.hasPrefix("-") { expected = "_" + expected.dropFirst() }
            #expect(OutputNaming.safeStem(text) == expected, "\(Array(text.unicodeScalars))")
            guard case .remote(let url)? = try? ImageSource(parsing: "http://h/" + text) else { continue }
            let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
            let last = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
            #expect(OutputNaming.fullBaseName(for: .remote(url)) == OutputNaming.safeStem(last.removingPercentEncoding ?? last))
        }
    }

    @Test func schemesAreMatchedAsLowerCasedPrefixes() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["h", "H", "t", "T", "p", "P", "s", "S", "f", "F", "i", "I", "l", "L", "e", "E", ":", "/", "İ", "\u{212A}", "x"]
        for _ in 0..<5_000 {
            let input = Self.randomText(&generator, from: pieces)
            for prefix: StaticString in ["http://", "https://", "file://"] {
                #expect(ImageSource.hasPrefix(prefix, input) == input.lowercased().hasPrefix("\(prefix)"), "\(input)")
            }
        }
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
