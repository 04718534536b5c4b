import Foundation
import Testing
@testable import ImgCore

/// The container checks read large files through a window; whatever the window, they must judge as they do in memory.
@Suite("Streamed container checks")
struct StreamedCheckTests {
    /// Every fixture whose format the checks know, with its bytes.
    static func fixtures() throws -> [(name: String, path: String, data: Data, format: ImageFormat)] {
        var paths: [String] = []
        for folder in [Paths.images, Paths.fixtures + "/pngsuite"] {
            paths += try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map { folder + "/" + $0 }
        }
        return try paths.compactMap { path in
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { return nil }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let format = ImageFormat.sniff(data), [.jpeg, .png, .gif, .webp].contains(format) else { return nil }
            return ((path as NSString).lastPathComponent, path, data, format)
        }
    }

    @Test func tinyWindowsJudgeLikeMemory() throws {
        let fixtures = try Self.fixtures()
        #expect(fixtures.count > 150)
        var refused = 0
        for fixture in fixtures {
            let expected = try IntegrityCheck.damage(in: VipsInput(.memory(fixture.data)), format: fixture.format)
            if expected != nil { refused += 1 }
            let region = try #require(FileRegion.open(wholeFile: fixture.path))
            for windowSize in [1, 7, 64, 4099] {
                let reader = ByteReader(region: region, windowSize: windowSize)
                let found = try IntegrityCheck.damage(in: .region(region), format: fixture.format, reader: reader)
                #expect(found == expected, "\(fixture.name) through \(windowSize)-byte windows")
            }
        }
        #expect(refused >= 3, "the fixtures include truncated and corrupt files")
    }

    @Test func truncatedFixturesAreTruncatedThroughWindows() throws {
        for name in ["truncated.jpg", "truncated.gif"] {
            let region = try #require(FileRegion.open(wholeFile: Paths.images + "/" + name))
            let format = try #require(ImageFormat.sniff(region.prefix(64)))
            try VipsRuntime.start()  // the JPEG check reads the entropy-coded data with the libjpeg libvips loads
            let damage = try IntegrityCheck.damage(in: .region(region), format: format, reader: ByteReader(region: region, windowSize: 5))
            #expect(damage?.severity == .truncated, "\(name)")
        }
    }
}
