import Foundation
import Testing
@testable import ImgCore

@Suite("ICC profile description")
struct ICCProfileNameTests {
    /// A profile of a 128-byte header, a one-tag table and the `desc` tag's bytes.
    static func profile(descTag: [UInt8]) -> Data {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        var bytes = [UInt8](repeating: 0, count: 128)
        bytes += be32(1) + Array("desc".utf8) + be32(144) + be32(descTag.count)
        return Data(bytes + descTag)
    }

    @Test func version2TextAndVersion4LocalizedDescriptions() {
        // textDescriptionType: 'desc', reserved, ASCII count (with its NUL), the text.
        let ascii = Array("sRGB IEC61966-2.1\0".utf8)
        let v2 = Self.profile(descTag: Array("desc".utf8) + [0, 0, 0, 0] + [0, 0, 0, UInt8(ascii.count)] + ascii)
        #expect(ICCProfileName.description(v2) == "sRGB IEC61966-2.1")
        // multiLocalizedUnicodeType: 'mluc', reserved, 1 record of 12 bytes: enUS, length, offset 28; UTF-16BE.
        let text = Array("Display P3".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let v4 = Self.profile(descTag: Array("mluc".utf8) + [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 12] + Array("enUS".utf8)
                              + [0, 0, 0, UInt8(text.count), 0, 0, 0, 28] + text)
        #expect(ICCProfileName.description(v4) == "Display P3")
        #expect(ICCProfileName.description(Data(count: 100)) == nil)
        #expect(ICCProfileName.description(Self.profile(descTag: Array("XYZ ".utf8) + [0, 0, 0, 0])) == nil)
    }
}
