import Foundation
import Testing
@testable import ImgCore

/// Messages are one line that says each thing once, the man page says what the program does, and the progress
/// lines fit the terminal.
@Suite("Messages, man page and progress lines", .serialized)
struct MessageAndHelpTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    @Test func libvipsErrorsAreSaidOnce() {
        #expect(VipsErrorText.oneLine("gifload_buffer: Invalid frame data\nvips2png: unable to write to target target\n")
                == "gifload_buffer: Invalid frame data")
        #expect(VipsErrorText.oneLine(String(repeating: "VipsJpeg: Premature end of input file\n", count: 4))
                == "VipsJpeg: Premature end of input file")
        #expect(VipsErrorText.oneLine("source: bad seek to 162011\nsource: bad seek to 159809\nheif: Unexpected end of file\n(2.100)\n")
                == "source: bad seek to 162011; heif: Unexpected end of file")
        #expect(VipsErrorText.oneLine("vips2png: unable to write to target target\n") == "vips2png: unable to write to target target")
        #expect(VipsErrorText.oneLine("") == "libvips gave no detail")
    }

    /// A GIF whose frame data is damaged fails while it is saved: one line, without libvips' follow-on lines.
    @Test func aDecodeFailureFoundWhileSavingIsOneLine() throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Paths.images + "/cogs.gif")))
        for index in stride(from: 200, to: bytes.count - 10, by: 53) { bytes[index] ^= 0x5A }
        let damaged = work.file("damaged.gif")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let result = try fetch([damaged, "-o", work.file("out.png"), "--no-cache"])
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("target target") && !result.stderr.contains("unable to write"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("out.png")))
    }

    @Test func anUnreadableLocalInputSaysWhyOnce() throws {
        let missing = try fetch([work.file("missing.jpg"), "-o", work.file("a.png"), "--no-cache"])
        #expect(missing.status == 7, "\(missing.stderr)")
        #expect(missing.stderr.components(separatedBy: "No such file or directory").count == 2, "\(missing.stderr)")
        #expect(missing.stderr.components(separatedBy: "missing.jpg").count == 2, "\(missing.stderr)")
        let directory = try fetch([work.path, "-o", work.file("b.png"), "--no-cache"])
        #expect(directory.status == 7 && directory.stderr.contains("Is a directory"), "\(directory.stderr)")
        #expect(directory.stderr.split(separator: "\n").count == 1, "\(directory.stderr)")
    }

    @Test func theManPageSaysWhatTheProgramDoes() throws {
        let page = try String(contentsOfFile: Paths.packageRoot + "/man/imgfetch.1", encoding: .utf8)
        let synopsis = try #require(page.components(separatedBy: ".SH SYNOPSIS").last?.components(separatedBy: ".SH ").first)
        #expect(synopsis.contains(".B imgfetch batch\n.IR LIST .\\|.\\|.|\\-\n.B \\-O\n.I DIR"), "batch's -O DIR is required")
        let exits = try #require(page.components(separatedBy: ".SH EXIT STATUS").last?.components(separatedBy: ".SH ").first)
        let seven = try #require(exits.components(separatedBy: ".B 7\n").last?.components(separatedBy: ".TP").first)
        #expect(seven.contains("local input cannot be read"), "\(seven)")
        #expect(page.contains(".B \\-\\-resize 200\nfits the image in 200\\(mu200."))
        // NO_COLOR is documented only if the program reads it (it prints no colour).
        let sources = try FileManager.default.subpathsOfDirectory(atPath: Paths.packageRoot + "/Sources")
        let readsNoColor = try sources.filter { $0.hasSuffix(".swift") }.contains { path in
            try String(contentsOfFile: Paths.packageRoot + "/Sources/" + path, encoding: .utf8).contains("\"NO_COLOR\"")
        }
        #expect(page.contains("NO_COLOR") == readsNoColor)
        // --resize 200 is the box 200x200.
        let result = try fetch([Paths.images + "/sample.jpg", "--resize", "200", "-o", work.file("r.png"), "--no-cache"])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Runs `arguments` under a pseudo-terminal `columns` wide, made `newColumns` wide after `resizeAfter` seconds.
    func onTerminal(_ arguments: [String], columns: Int, resizeAfter: Double = 0, newColumns: Int = 0) throws
        -> (before: [String], after: [String], status: Int) {
        let script = Paths.fixtures + "/tty/pty_run.py"
        let run = try Imgfetch.run([script, String(columns), String(resizeAfter), String(newColumns), Paths.binary]
                                   + arguments + ["--cache-dir", cache], program: "/usr/bin/python3")
        let object = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], "\(run.stderr)")
        // Each redraw starts with a carriage return and clears the line.
        func lines(_ key: String) -> [String] {
            (object[key] as? String ?? "").components(separatedBy: "\r").map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
                .map { $0.trimmingCharacters(in: .newlines) }.filter { !$0.isEmpty }
        }
        return (lines("before"), lines("after"), object["status"] as? Int ?? -1)
    }

    @Test func theDownloadBarFitsTheTerminalAndShowsRateAndTimeLeft() throws {
        let url = server.url("/slow/sample.jpg?delay=0.1")
        let run = try onTerminal([url, "-o", work.file("slow.jpg")], columns: 100, resizeAfter: 1.2, newColumns: 40)
        #expect(run.status == 0, "\(run.before) \(run.after)")
        let bars = run.before.filter { $0.hasPrefix("downloading") }
        #expect(!bars.isEmpty, "no progress bar drawn: \(run.before)")
        for bar in bars { #expect(bar.count < 100, "\(bar.count) columns: \(bar)") }
        #expect(bars.contains { $0.contains("%") && $0.contains("/s") && $0.contains("left") && $0.contains("[") }, "\(bars)")
        // Redrawn after the resize, the bar fits the new width (the first may have been drawn just before it).
        let later = run.after.filter { $0.hasPrefix("downloading") }.dropFirst()
        #expect(!later.isEmpty, "no bar after the resize: \(run.after)")
        for bar in later { #expect(bar.count < 40, "\(bar.count) columns after the resize: \(bar)") }
    }

    @Test func aBatchOnATerminalShowsOneLineOfDoneTotalFailuresRateAndTimeLeft() throws {
        let list = work.file("list.txt")
        let lines = (0..<6).map { server.url("/slow/sample.jpg?delay=0.05&n=\($0)") } + [server.url("/status/404")]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: list))
        let run = try onTerminal(["batch", list, "-O", work.file("out"), "-j", "1", "--name", "{index}.{ext}", "--keep-query"],
                                 columns: 60)
        let drawn = run.before.filter { $0.contains(" done, ") }
        #expect(!drawn.isEmpty, "no progress line: \(run.before)")
        for line in drawn { #expect(line.count < 60, "\(line.count) columns: \(line)") }
        #expect(drawn.contains { $0.range(of: #"^\d+/7 done, \d+ failed, [0-9.]+/s, \d+:\d\d left$"#, options: .regularExpression) != nil },
                "\(drawn)")
    }
}
