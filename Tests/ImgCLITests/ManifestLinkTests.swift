import Foundation
import Testing
@testable import ImgCore

/// `--manifest` at a path where someone planted a symbolic link (issue #38, item 2): the link is replaced, never
/// written through, and a manifest appended to must be a regular file opened without following a link.
@Suite("Manifest: planted links")
struct ManifestLinkTests {
    static let victimText = "export PATH=$HOME/bin:$PATH\n"

    /// A victim file and a link to it at the manifest's path.
    static func plant(_ fixture: BatchFixture) throws -> (manifest: String, victim: String) {
        let victim = fixture.root.file("profile"), manifest = fixture.root.file("m.jsonl")
        try Self.victimText.write(toFile: victim, atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: manifest, withDestinationPath: victim)
        return (manifest, victim)
    }

    @Test func aLinkAtTheManifestsPathIsReplacedNotWrittenThrough() throws {
        let fixture = try BatchFixture(count: 2, inProcess: true)
        let (manifest, victim) = try Self.plant(fixture)
        let lines = (1...2).map { fixture.server.url("/img/img\($0).jpg") }
        let result = try fixture.batch(lines, ["--manifest", manifest, "--no-cache"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == Self.victimText)
        let kind = try FileManager.default.attributesOfItem(atPath: manifest)[.type] as? FileAttributeType
        #expect(kind == .typeRegular)
        #expect(try JSONLines.objects(inFile: manifest).count == 3)
        let strays = try FileManager.default.contentsOfDirectory(atPath: fixture.root.path).filter { $0.hasSuffix(".manifest") }
        #expect(strays.isEmpty)
    }

    @Test func aManifestResumedIntoThroughALinkIsRefusedBeforeAnyFetch() throws {
        let fixture = try BatchFixture(count: 2, inProcess: true)
        let (manifest, victim) = try Self.plant(fixture)
        let lines = (1...2).map { fixture.server.url("/img/img\($0).jpg") }
        let result = try fixture.batch(lines, ["--manifest", manifest, "--resume", manifest, "--no-cache"])
        #expect(result.status == 7, "\(result.stderr)")
        #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == Self.victimText)
        #expect(try fixture.server.stats().paths["/img/img1.jpg"] == nil)
    }
}
