import Foundation
import Testing
@testable import ImgCore

/// A complete tar takes its name only where nothing has it: a file that appeared at its name (another process
/// writing into the folder) is never replaced, and the tar fails loudly instead.
@Suite("a tar never replaces a file at its name")
struct TarShardNoReplaceTests {
    @Test func aTarWhoseNameIsTakenFailsAndLeavesWhatIsThere() throws {
        let work = try TemporaryDirectory()
        let folder = try OutputFolder(opening: work.path)
        let tar = try TarShard(name: "00000.tar", folder: folder, table: true)
        try tar.add(key: "000000001", ext: "jpg", image: .memory(Data([0xFF, 0xD8, 0xFF, 0xD9])), caption: nil,
                    metadata: Data("{}".utf8), row: [])
        // Another process completed a tar of that name meanwhile.
        let theirs = Data("another run's tar".utf8)
        try theirs.write(to: URL(fileURLWithPath: work.file("00000.tar")))
        #expect {
            _ = try tar.complete { _ in Data("{}\n".utf8) }
        } throws: { error in
            (error as? ImgError)?.message.contains("a file of that name appeared while it was written") == true
        }
        #expect(FileManager.default.contents(atPath: work.file("00000.tar")) == theirs)
        // Nothing of this tar is left: neither its stats nor its table, nor a temporary.
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path) == ["00000.tar"])
    }

    @Test func aTarIdIsAlwaysSixteenHexDigits() {
        #expect(TarShard.idText(0) == "0000000000000000")
        #expect(TarShard.idText(0xabc) == "0000000000000abc")
        #expect(TarShard.idText(0x0fff_ffff_ffff_ffff) == "0fffffffffffffff")
        #expect(TarShard.idText(.max) == "ffffffffffffffff")
    }

    @Test func aStagedOutputTakesOnlyAFreeName() throws {
        let work = try TemporaryDirectory()
        let folder = try OutputFolder(opening: work.path)
        try Data("kept".utf8).write(to: URL(fileURLWithPath: work.file("taken")))
        let staged = try folder.stage(.memory(Data("new".utf8)))
        #expect(throws: ImgError.self) { try folder.commitNew(staged, as: "taken") }
        #expect(FileManager.default.contents(atPath: work.file("taken")) == Data("kept".utf8))
        try folder.commitNew(try folder.stage(.memory(Data("new".utf8))), as: "free")
        #expect(FileManager.default.contents(atPath: work.file("free")) == Data("new".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted() == ["free", "taken"])
    }
}
