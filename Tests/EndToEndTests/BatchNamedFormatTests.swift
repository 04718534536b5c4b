import Foundation
import Testing
@testable import ImgCore

/// `batch --name` ending in an image format's extension (no `{ext}`) names every output's format, as `-o FILE` does
/// for one: a PNG original named `.jpg` is written as JPEG, and a `--format` that contradicts the name is refused
/// before anything is fetched (WebP and AVIF were written under `.jpg`).
@Suite("Batch: a name template's extension names the format")
struct BatchNamedFormatTests {
    @Test func theNamesExtensionIsTheFormatWritten() throws {
        let fixture = try BatchFixture(count: 1)
        try FileManager.default.copyItem(atPath: Paths.images + "/rgba.png", toPath: fixture.root.file("www/rgba.png"))
        let lines = [fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/rgba.png")]
        let result = try fixture.batch(lines, ["--resize", "40x", "--name", "{index}.jpg", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(fixture.outputs() == ["1.jpg", "2.jpg"])
        for name in fixture.outputs() {
            #expect(try fixture.probe(name).format == .jpeg, "\(name)")
        }
    }

    @Test(arguments: [(["--name", "{index}.jpg", "--format", "auto"],
                       "--name {index}.jpg names .jpg but --format auto chooses the format: use {ext} in the name"),
                      (["--name", "{index}.jpg", "--format", "png"],
                       "--name {index}.jpg names JPG but --format is png: give a matching extension, or {ext}"),
                      (["--name", "{index}.png", "--quality", "90"], "--quality doesn't apply to png")])
    func aFormatTheNameContradictsIsRefused(arguments: [String], says: String) throws {
        let fixture = try BatchFixture(count: 1)
        let result = try fixture.batch([fixture.server.url("/img/img1.jpg")], arguments)
        #expect(result.status == 2 && result.stderr.contains(says), "\(result.stderr)")
        #expect(try fixture.server.stats().total == 0 && fixture.outputs().isEmpty)
    }
}
