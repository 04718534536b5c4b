import Foundation
import Testing
@testable import ImgCore

/// Text a server or a file chose never reaches the terminal as control sequences: C0 and C1 controls, DEL and the
/// bidirectional overrides are written as escapes in every text report.
@Suite("terminal escapes")
struct TerminalEscapeTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

    /// The byte sequences a terminal acts on that the fixture's headers hold: ESC, BEL, U+009B and U+202E as UTF-8.
    static let unsafeSequences: [[UInt8]] = [[0x1B], [0x07], [0xC2, 0x9B], [0xE2, 0x80, 0xAE]]

    static func holdsUnsafeSequence(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        return unsafeSequences.contains { sequence in
            bytes.indices.contains { start in bytes[start...].starts(with: sequence) }
        }
    }

    @Test func c1ControlsAndBidiOverridesAreEscaped() {
        #expect("a\u{9B}2Jb".escapingControlCharacters == "a\\u{009B}2Jb")
        #expect("x\u{9D}0;t\u{07}".escapingControlCharacters == "x\\u{009D}0;t\\x07")
        #expect("gnp\u{202E}.exe \u{2066}i\u{2069}".escapingControlCharacters == "gnp\\u{202E}.exe \\u{2066}i\\u{2069}")
        #expect("café ✓ 日本".escapingControlCharacters == "café ✓ 日本", "printable text outside ASCII is kept")
        // Invisible ones a message would hide: a second byte-order mark before a URL's scheme, a zero-width space.
        #expect("\u{FEFF}http \u{200B}x \u{200F}".escapingControlCharacters == "\\u{FEFF}http \\u{200B}x \\u{200F}")
        #expect("👩\u{200D}💻".escapingControlCharacters == "👩\u{200D}💻", "an emoji's joiner is shown as it is")
        // Numbers as a person writes them; not Swift's hexadecimal, infinities or NaN.
        #expect(DecimalNumber.parse("2.5") == 2.5 && DecimalNumber.parse(".5") == 0.5 && DecimalNumber.parse("-1e3") == -1000)
        #expect(DecimalNumber.parse("1.") == 1 && DecimalNumber.parse("+3") == 3)
        for text in ["0x10", "0x1p4", "inf", "nan", "", ".", "1e", "e3", "1 ", " 1", "1,5", "١"] {
            #expect(DecimalNumber.parse(text) == nil, "\(text)")
        }
        #expect(!Unicode.Scalar(0xA0)!.isUnsafeForTerminal && Unicode.Scalar(0x85)!.isUnsafeForTerminal)
    }

    /// `info`'s text report quotes the ETag, Content-Type and Last-Modified escaped, from the server and, with
    /// `--only-from-cache`, from the entry a fetch stored.
    @Test func infoEscapesTheServersHeaders() throws {
        let url = server.url("/terminal-headers/sample.jpg")
        let live = try fetch(["info", url])
        #expect(live.status == 0, "\(live.stderr)")
        #expect(!Self.holdsUnsafeSequence(live.stdout), "\(live.stdoutText.debugDescription)")
        #expect(live.stdoutText.contains("ETag \"x\\x1B]0;owned\\x07y\""), "\(live.stdoutText)")
        #expect(live.stdoutText.contains("image/jpeg\\x1B[2J"), "\(live.stdoutText)")
        #expect(live.stdoutText.contains("\\u{009B}2J\\u{202E}gnp.exe"), "\(live.stdoutText)")

        let stored = try fetch([url, "-o", work.file("a.jpg")])
        #expect(stored.status == 0, "\(stored.stderr)")
        let cached = try fetch(["info", url, "--only-from-cache"])
        #expect(cached.status == 0, "\(cached.stderr)")
        #expect(cached.stdoutText.contains("ETag \"x\\x1B]0;owned\\x07y\""), "\(cached.stdoutText)")
        #expect(!Self.holdsUnsafeSequence(cached.stdout), "\(cached.stdoutText.debugDescription)")
    }

    /// `--json` records and manifest lines are shown on terminals too: what a terminal acts on and JSON leaves as
    /// it is (C1 controls, bidirectional overrides) is written as a `\uXXXX` escape, the same JSON value.
    @Test func jsonRecordsEscapeWhatJSONLeavesAsItIs() throws {
        #expect("{\"a\":\"x\u{9B}y\u{202E}z é\"}".escapingTerminalControlsInJSON == "{\"a\":\"x\\u009By\\u202Ez é\"}")
        let url = server.url("/terminal-headers/sample.jpg")
        let info = try fetch(["info", url, "--json"])
        #expect(info.status == 0 && !Self.holdsUnsafeSequence(info.stdout), "\(info.stdoutText.debugDescription)")
        let object = try #require(try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any])
        #expect((object["lastModified"] as? String)?.contains("\u{9B}2J\u{202E}gnp.exe") == true, "\(object)")
        let list = work.file("list.txt"), manifest = work.file("m.jsonl")
        try (server.url("/status/404/a\u{9B}2J\u{202E}b.jpg") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try fetch(["batch", list, "-O", work.file("out"), "--json", "--manifest", manifest, "--retry", "0"])
        #expect(batch.status == 1 && !Self.holdsUnsafeSequence(batch.stdout), "\(batch.stdoutText.debugDescription)")
        let lines = try Data(contentsOf: URL(fileURLWithPath: manifest))
        #expect(!Self.holdsUnsafeSequence(lines) && String(decoding: lines, as: UTF8.self).contains("\\u009B2J\\u202Eb"))
    }

    /// A profile whose `desc` tag (v4 `mluc`, UTF-16BE) is `text`: a 128-byte header, a one-tag table, the tag.
    static func profile(describedAs text: String) -> Data {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        let units = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let tag = Array("mluc".utf8) + be32(0) + be32(1) + be32(12) + Array("enUS".utf8) + be32(units.count) + be32(28)
            + units
        var bytes = [UInt8](repeating: 0, count: 128) + be32(1) + Array("desc".utf8) + be32(144) + be32(tag.count)
        bytes += tag
        return Data(bytes)
    }

    /// An ICC description drops what a terminal would act on, C1 controls and bidi overrides too.
    @Test func iccDescriptionsDropC1ControlsAndOverrides() {
        #expect(ICCProfileName.description(Self.profile(describedAs: "Display P3")) == "Display P3")
        #expect(ICCProfileName.description(Self.profile(describedAs: "sRGB\u{9B}31m\u{202E}x\u{9D}")) == "sRGB31mx")
    }
}
