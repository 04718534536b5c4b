import Foundation
import Testing
@testable import ImgCore
@testable import ImgRenderer

/// The warm renderer: a later command is served by it, with the same bytes and the same failures as rendering in
/// its own process; a renderer that is another user's, hangs up or babbles is never trusted with the result.
@Suite("Warm renderer", .serialized)
struct RendererTests: RendererSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    @Test func aCommandThatLoadedLibvipsLeavesARendererForTheNext() throws {
        defer { stopRenderer() }
        let url = server.url("/img/sample.jpg")
        // --renderer off (or IMGFETCH_RENDERER=off) never starts one, and a cache hit loads no libvips to begin with.
        #expect(try inProcess([url, "--resize", "64x64", "-o", work.file("off.jpg"), "--cache-dir", cache]).status == 0)
        #expect(try run([url, "--resize", "64x64", "-o", work.file("hit.jpg"), "--cache-dir", cache]).status == 0)
        usleep(300_000)
        #expect(try status() == nil, "a renderer was started by --renderer off or by a cache hit")

        let first = try run([url, "--resize", "64x64", "-o", work.file("first.jpg"), "--no-cache", "-v"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("libvips: started"))
        #expect(!first.stderr.contains("warm renderer"))
        #expect(try waitUntil(running: true), "the first command started no renderer")
        // Detached: its own session, in /, its standard streams on /dev/null, a socket file in a 0700 folder.
        let pid = try #require(try status()?["process"] as? Int)
        // -v says it was started (once it holds the address, as `renderer start` says it), and how it ends.
        #expect(first.stderr.contains("renderer (--renderer auto): started: pid \(pid), exits after 30 s idle, "
                                      + "or with 'imgfetch renderer stop'"), "\(first.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd") == "/")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/1") == "/dev/null")
        #expect(getsid(pid_t(pid)) == pid_t(pid))
        var folderStatus = stat()
        #expect(lstat(folder, &folderStatus) == 0 && folderStatus.st_mode & 0o7777 == 0o700)
        #expect(lstat(socketPath, &folderStatus) == 0 && folderStatus.st_mode & S_IFMT == S_IFSOCK)

        let second = try run([url, "--resize", "64x64", "-o", work.file("second.jpg"), "--no-cache", "-v"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("rendered by the warm renderer"), "\(second.stderr)")
        #expect(second.stderr.contains("libvips: not started"), "\(second.stderr)")
        #expect(!second.stderr.contains("renderer (--renderer auto)"), "\(second.stderr)")
        #expect(FileManager.default.contents(atPath: work.file("first.jpg")) == FileManager.default.contents(atPath: work.file("second.jpg")))
        #expect(try renderings() == 1)

        // With the renderer off, nothing is handed to it.
        let off = try inProcess([url, "--resize", "64x64", "-o", work.file("third.jpg"), "--no-cache", "-v"])
        #expect(off.stderr.contains("libvips: started") && !off.stderr.contains("warm renderer"))
        #expect(try renderings() == 1)

        stopRenderer()
        #expect(try status() == nil)
    }

    @Test(arguments: [
        (input: "sample.jpg", arguments: ["--resize", "120x80:fill", "--round", "12"], output: "a.webp"),
        (input: "rgba.png", arguments: ["--circle", "--background", "#336699"], output: "b.jpg"),
        (input: "cogs.gif", arguments: ["--resize", "60x60:fill"], output: "c.gif"),
        (input: "rotation/6.jpg", arguments: ["--resize", "50x", "--grayscale"], output: "d.png"),
        (input: "sample.png", arguments: [], output: "e.webp"),
        (input: "1.webp", arguments: ["--quality", "40"], output: "f.jpg"),
    ])
    func theRendererMakesTheSameBytes(input: String, arguments: [String], output: String) throws {
        defer { stopRenderer() }
        try startRenderer()
        for remote in [true, false] {
            let source = remote ? server.url("/img/\(input)") : Paths.images + "/\(input)"
            let served = try run([source] + arguments + ["-o", work.file("r-" + output), "--no-cache", "-v"])
            #expect(served.status == 0, "\(served.stderr)")
            #expect(served.stderr.contains("rendered by the warm renderer"), "\(served.stderr)")
            let local = try inProcess([source] + arguments + ["-o", work.file("l-" + output), "--no-cache"])
            #expect(local.status == 0, "\(local.stderr)")
            let rendered = FileManager.default.contents(atPath: work.file("r-" + output))
            #expect(rendered != nil && rendered == FileManager.default.contents(atPath: work.file("l-" + output)), "\(input) remote=\(remote)")
        }
    }

    @Test func badImagesFailTheSameWayInTheRenderer() throws {
        defer { stopRenderer() }
        try startRenderer()
        var gif = Data("GIF89a".utf8) + Data([0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF])
        gif += Data([0x2C, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B])
        try gif.write(to: URL(fileURLWithPath: work.file("giant.gif")))
        let bad = [
            [server.url("/img/truncated.jpg")], [server.url("/img/truncated.gif")], [server.url("/img/logo.svg")],
            [server.url("/type/text%2Fhtml/truncated.jpg")], [work.file("giant.gif")],
            [Paths.fixtures + "/pngsuite/xhdn0g08.png"], [Paths.images + "/sample.jpg", "--max-pixels", "1000"],
        ]
        let output = work.file("out.jpg")
        for (round, input) in (0..<10).flatMap({ round in bad.map { (round, $0) } }) {
            let arguments = input + ["--resize", round.isMultiple(of: 2) ? "50x50" : "40x30:fill", "-o", output, "--cache-dir", cache]
            let served = try run(arguments)
            let local = try inProcess(arguments)
            #expect(served.status == 5 && served.status == local.status, "\(input): \(served.stderr) vs \(local.stderr)")
            #expect(served.stderr == local.stderr && served.stderr.split(separator: "\n").count == 1, "\(served.stderr)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let entries = (FileManager.default.subpaths(atPath: cache + "/entries") ?? []).filter { $0.hasSuffix("original") || $0.hasSuffix(".variant") }
        #expect(entries.isEmpty, "\(entries)")
        #expect(try renderings() == 10 * bad.count, "not every bad input went through the renderer")
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run the fake renderer as another user"))
    func aRendererOfAnotherUserIsNeverTrusted() throws {
        // Another user can't make a socket in the renderer's folder: let it listen in a folder open to all, and
        // move its socket into ours (as only a bug or root could): the peer's user is still checked.
        let shared = folderOpenToAll()
        let impostor = try fake("forged", user: 65534, at: shared + "/impostor.sock")
        defer { end(impostor) }
        #expect(rename(shared + "/impostor.sock", socketPath) == 0)
        let result = try run([server.url("/img/sample.jpg"), "--resize", "64x64", "-o", work.file("out.jpg"), "--no-cache", "-v"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("libvips: started") && !result.stderr.contains("warm renderer"), "\(result.stderr)")
        let written = try Data(contentsOf: URL(fileURLWithPath: work.file("out.jpg")))
        #expect(written != Data("FORGED".utf8))
        let size = try Rendering.probe(written)
        #expect(max(size.width, size.height) == 64)
    }

    /// A renderer that hangs up, babbles, or replies with bytes that are not what it says (#19.10: the reply's
    /// format magic and the size in its header are checked before anything is cached).
    @Test(arguments: ["hangup", "garbage", "forged", "mislabel", "resized"])
    func aRendererThatFailsIsReplacedByTheCommandItself(mode: String) throws {
        let broken = try fake(mode)
        defer { end(broken) }
        let arguments = [server.url("/img/sample.jpg"), "--resize", "64x64", "--format", "jpeg", "--cache-dir", cache, "-v"]
        let result = try run(arguments + ["-o", work.file("out.jpg")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("libvips: started") && !result.stderr.contains("rendered by the warm renderer"), "\(result.stderr)")
        #expect(result.stderr.contains("rendered in this process"), "\(result.stderr)")
        // What is cached is the image made here: a later hit serves it.
        #expect(try Imgfetch.run(arguments + ["-o", work.file("hit.jpg")]).status == 0)
        #expect(FileManager.default.contents(atPath: work.file("hit.jpg")) == FileManager.default.contents(atPath: work.file("out.jpg")))
        let alone = [server.url("/img/sample.jpg"), "--resize", "64x64", "--format", "jpeg", "--no-cache", "-o", work.file("local.jpg")]
        #expect(try inProcess(alone).status == 0)
        #expect(FileManager.default.contents(atPath: work.file("out.jpg")) == FileManager.default.contents(atPath: work.file("local.jpg")))
    }

    /// The fake renderer takes the request and then sends a keep-alive every 0.2 s and never a result, so the
    /// command's 3 s patience never runs out: the wait can end only by the signal. The command ends with 128 + N
    /// and "interrupted by", writes nothing, and the renderer is still there (still sending keep-alives) after it.
    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptEndsTheWaitForARenderer(signal: Int32) throws {
        let taken = work.file("request-taken-\(signal)")
        let busy = try fake("busy", options: ["--got-request", taken])
        defer { end(busy) }
        let output = work.file("out.jpg")
        let errors = try CapturedOutput()
        defer { errors.remove() }
        let process = try Imgfetch.launch([server.url("/img/sample.jpg"), "--resize", "64x64", "--no-cache", "-o", output],
                                          environment: environment, errors: errors)
        // Bounds on waiting, not on the behaviour: the request reaches the renderer, then the command ends.
        var deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: taken), process.isRunning, Date() < deadline { usleep(20_000) }
        #expect(FileManager.default.fileExists(atPath: taken), "the renderer never got the request")
        kill(process.processIdentifier, signal)
        deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        let endless = process.isRunning
        if endless { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let stderr = String(decoding: try errors.collect(), as: UTF8.self)
        #expect(!endless, "the signal did not end the wait for a renderer that keeps saying it is alive")
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal, "\(stderr)")
        #expect(stderr.contains("interrupted by \(signal == SIGINT ? "SIGINT" : "SIGTERM")"), "\(stderr)")
        #expect(busy.isRunning, "the renderer went away, so its hang-up may have ended the wait")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func oneRendererServesConcurrentCommandsAndExitsWhenIdle() throws {
        defer { stopRenderer() }
        #expect(try run(["renderer", "start", "--idle", "60"]).status == 0)
        #expect(try waitUntil(running: true))
        let pid = try status()?["process"] as? Int
        let again = try run(["renderer", "start"])
        #expect(again.stdoutText.contains("already running: pid \(pid ?? -1)"), "\(again.stdoutText)")

        let results = Locked([Int: CommandResult]())
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            let size = 40 + index * 10
            let result = try? run([server.url("/img/sample.jpg"), "--resize", "\(size)x\(size)", "-o", work.file("c\(index).png"), "--no-cache", "-v"])
            results.withLock { $0[index] = result }
        }
        for index in 0..<6 {
            let result = results.withLock { $0[index] }
            #expect(result?.status == 0 && result?.stderr.contains("warm renderer") == true, "\(result?.stderr ?? "no result")")
            let data = FileManager.default.contents(atPath: work.file("c\(index).png")) ?? Data()
            #expect((try? Rendering.probe(data)).map { max($0.width, $0.height) } == 40 + index * 10)
        }
        #expect(try renderings() == 6)

        // A frame announcing a 4 GiB header, and a request of another imgfetch version, are dropped without an
        // answer; the renderer stays up.
        for mode in ["junk", "old"] {
            let junk = try Imgfetch.run([Paths.fixtures + "/server/fake_renderer.py", socketPath, mode], program: "/usr/bin/env", prefix: ["python3"])
            #expect(junk.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "closed", "\(mode): \(junk.stdoutText) \(junk.stderr)")
        }
        #expect(try status() != nil)

        // batch renders in its own process: the renderer is not asked.
        let list = work.file("list.txt")
        try server.url("/img/sample.jpg").write(toFile: list, atomically: true, encoding: .utf8)
        let batch = try run(["batch", list, "-O", work.file("batch"), "--resize", "30x30", "--no-cache", "-v"])
        #expect(batch.status == 0 && !batch.stderr.contains("warm renderer"), "\(batch.stderr)")
        #expect(try renderings() == 6)

        // A renderer idle for its --idle time (asking for its status is not work) exits by itself.
        stopRenderer()
        let idle = try run(["renderer", "start", "--idle", "2"]).stdoutText
        let idlePid = try #require(idle.split(separator: " ").dropFirst(2).first.flatMap { Int32($0.trimmingCharacters(in: .punctuationCharacters)) },
                                   "\(idle)")
        #expect(Self.waitForEnd(of: idlePid, seconds: 30), "the renderer outlived its idle limit")
        #expect(try status() == nil)
    }

    @Test func framesAndAddresses() throws {
        var fields = RendererFields()
        fields.set("note", "two\nlines and a \\ backslash")
        fields.set("note", "=")
        let parsed = try #require(RendererFields(fields.data))
        #expect(parsed.all("note") == ["two\nlines and a \\ backslash", "="])
        #expect(RendererFields(Data("no equals sign\n".utf8)) == nil)
        #expect(RendererFields(Data("a=bad \\q escape\n".utf8)) == nil)

        var request = ImageRequest(source: .standardInput)
        request.chain = try ProcessingChain.parse("resize(200x200,fill)|>round(12)")
        request.encoding = OutputEncoding(format: .webp, quality: 70)
        request.encoding.background = Color(red: 1, green: 2, blue: 3, alpha: 4)
        request.decoding.maxPixels = 1234
        request.decoding.firstFrame = true
        let job = WireJob(request)
        let decoded = try #require(RendererRequest(fields: RendererRequest(command: .render, job: job).fields))
        #expect(decoded.command == .render && decoded.job == job)

        let plain = RendererAddress.current(environment: ["HOME": "/home/u"])
        #expect(plain.name.hasPrefix("renderer-") && plain.name.hasSuffix(".sock") && plain.directory == "/home/u/.cache/imgfetch/renderer")
        #expect(RendererAddress.current(environment: ["HOME": "/home/u", "PATH": "/x"]) == plain)
        let tuned = RendererAddress.current(environment: ["HOME": "/home/u", "VIPS_CONCURRENCY": "1"])
        #expect(tuned != plain && tuned.pathPrefix == plain.pathPrefix, "another libvips setting is another build of the same path")
        #expect(plain.otherBuilds(in: [plain.name, tuned.name, tuned.name + ".lock", "renderer-0-0.sock"]) == [tuned.name])
        #expect(RendererAddress.current(environment: ["XDG_RUNTIME_DIR": "/run/user/7"]).directory == "/run/user/7/imgfetch")
        let mine = RendererAddress.current(environment: ["XDG_RUNTIME_DIR": "/run/user/7", "IMGFETCH_RENDERER_SOCKET": "mine"])
        #expect(mine.path == "/run/user/7/imgfetch/mine" && mine.pathPrefix == nil)
        #expect(RendererAddress.current(environment: ["IMGFETCH_RENDERER_SOCKET": "/srv/r/x.sock"]).path == "/srv/r/x.sock")
    }
}
