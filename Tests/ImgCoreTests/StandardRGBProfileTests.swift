import CVips
import Foundation
import Testing
@testable import ImgCore

/// An 8-bit sRGB image whose embedded profile is sRGB's is not converted through it (`StandardRGBProfile`): the
/// sRGB profiles real files carry are recognised, others are not, and converting through a recognised one changes
/// no value, so skipping it leaves every output byte as it was.
@Suite("sRGB profiles")
struct StandardRGBProfileTests {
    /// The fixtures' embedded profiles: HP's, the ICC's "black scaled" sRGB, Adobe RGB (1998) and Apple's Generic RGB.
    static let standard = [Paths.fixtures + "/pillow/rgb.jpg", Paths.images + "/rotation/1.jpg"]
    static let other = [Paths.images + "/sample.jpg", Paths.fixtures + "/pillow/truncated_exif_dpi.jpg"]

    @Test func theSRGBProfilesFilesCarryAreRecognisedAndOthersAreNot() throws {
        for path in Self.standard {
            #expect(StandardRGBProfile.matches(try #require(try DecodedFixture.decoded(path).iccProfile)), "\(path)")
        }
        for path in Self.other {
            #expect(!StandardRGBProfile.matches(try #require(try DecodedFixture.decoded(path).iccProfile)), "\(path)")
        }
    }

    /// What the recognition rests on: converting such an image through its profile to sRGB changes no value.
    @Test func convertingThroughARecognisedProfileChangesNoValue() throws {
        for path in Self.standard {
            let image = try DecodedFixture.decoded(path)
            let converted = try image.derive("colour profile") { imgf_icc_to_srgb($0, $1) }
            let (before, after) = (try DecodedFixture.pixels(image), try DecodedFixture.pixels(converted))
            #expect(!before.isEmpty && before == after, "\(path)")
        }
    }

    /// A matrix/TRC profile: header (RGB, XYZ), the three colorants and curves given.
    static func profile(colorants: [[Double]], curve: [UInt8], extraTags: [String] = []) -> Data {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        func xyz(_ values: [Double]) -> [UInt8] { Array("XYZ ".utf8) + be32(0) + values.flatMap { be32(Int(($0 * 65536).rounded())) } }
        var tags: [(String, [UInt8])] = zip(["rXYZ", "gXYZ", "bXYZ"], colorants).map { ($0, xyz($1)) }
        tags += ["rTRC", "gTRC", "bTRC"].map { ($0, curve) } + extraTags.map { ($0, Array("mft2".utf8) + be32(0)) }
        var header = [UInt8](repeating: 0, count: 128)
        header.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        header.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        var table = be32(tags.count), data: [UInt8] = []
        let start = 128 + 4 + 12 * tags.count
        for (signature, bytes) in tags {
            table += Array(signature.utf8) + be32(start + data.count) + be32(bytes.count)
            data += bytes
        }
        return Data(header + table + data)
    }

    static func parametric(_ type: Int, _ parameters: [Double]) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        return Array("para".utf8) + be32(0) + [0, UInt8(type), 0, 0] + parameters.flatMap { be32(Int(($0 * 65536).rounded())) }
    }

    @Test func colorantsCurvesAndLookupTablesDecide() {
        let srgb = StandardRGBProfile.colorants
        let colorants = [srgb["rXYZ"]!, srgb["gXYZ"]!, srgb["bXYZ"]!]
        let curve = Self.parametric(3, [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])
        #expect(StandardRGBProfile.matches(Self.profile(colorants: colorants, curve: curve)))
        // A gamma of 2.2 is not the sRGB curve.
        #expect(!StandardRGBProfile.matches(Self.profile(colorants: colorants, curve: Self.parametric(0, [2.2]))))
        // Display P3's colorants with the sRGB curve.
        let p3 = [[0.5151, 0.2412, -0.0011], [0.2920, 0.6922, 0.0419], [0.1571, 0.0666, 0.7841]]
        #expect(!StandardRGBProfile.matches(Self.profile(colorants: p3, curve: curve)))
        // A lookup table, which a perceptual conversion uses instead of the matrix.
        #expect(!StandardRGBProfile.matches(Self.profile(colorants: colorants, curve: curve, extraTags: ["A2B0"])))
        #expect(!StandardRGBProfile.matches(Data(count: 200)))
    }
}
