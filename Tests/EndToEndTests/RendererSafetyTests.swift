import Foundation
import Testing
@testable import ImgCore
@testable import ImgRenderer

/// #14 and #19.2/#19.10: nothing starts a renderer unless asked; no other user can plant or squat its socket; a
/// renderer that stops answering costs a command seconds, never the result; `renderer status|stop` find and end
/// renderers of older builds; no zombie is left under a parent that doesn't reap.
@Suite("Warm renderer: opt-in and hardening", .serialized)
struct RendererSafetyTests: RendererSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    /// The processes running this build's binary whose environment carries `marker` (so that imgfetch processes
    /// of other tests and other helpers' builds are never counted).
    func processes(marked marker: String) -> [Int32] {
        let binary = URL(fileURLWithPath: Paths.binary).resolvingSymlinksInPath().path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap(Int32.init).filter { pid in
            guard RendererAddress.link("/proc/\(pid)/exe").map({ $0.replacingOccurrences(of: " (deleted)", with: "") }) == binary,
                  let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") else { return false }
            return environ.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == "IMGFETCH_TEST_MARK=\(marker)" }
        }
    }

    @Test func fetchesWithDefaultSettingsLeaveNoProcess() throws {
        let marker = UUID().uuidString
        // No IMGFETCH_RENDERER at all: the default.
        func plain(_ arguments: [String]) throws -> CommandResult {
            try Imgfetch.run(arguments, environment: ["IMGFETCH_TEST_MARK": marker, "XDG_RUNTIME_DIR": runtime],
                             program: "/usr/bin/env", prefix: ["-u", "IMGFETCH_RENDERER", Paths.binary])
        }
        let url = server.url("/img/sample.jpg")
        #expect(try plain([url, "--resize", "64x64", "-o", work.file("a.jpg"), "--no-cache"]).status == 0)
        #expect(try plain([url, "--resize", "32x32", "-o", work.file("b.jpg"), "--cache-dir", cache]).status == 0)
        #expect(try plain([Paths.images + "/sample.png", "--resize", "20x20", "-o", work.file("c.png"), "--no-cache"]).status == 0)
        #expect(try plain([server.url("/img/truncated.jpg"), "--resize", "20x20", "-o", work.file("d.jpg"), "--no-cache"]).status == 5)
        #expect(try plain([server.url("/status/404/missing.jpg"), "-o", work.file("e.jpg"), "--no-cache"]).status == 4)
        // As cron runs it: no environment at all (but the marker).
        let bare = try Imgfetch.run([url, "--resize", "48x48", "-o", work.file("f.jpg"), "--no-cache"], program: "/usr/bin/env",
                                    prefix: ["-i", "IMGFETCH_TEST_MARK=\(marker)", Paths.binary])
        #expect(bare.status == 0, "\(bare.stderr)")
        let failed = try Imgfetch.run([server.url("/img/truncated.gif"), "-o", work.file("g.gif"), "--no-cache"], program: "/usr/bin/env",
                                      prefix: ["-i", "IMGFETCH_TEST_MARK=\(marker)", Paths.binary])
        #expect(failed.status == 5)
        #expect(processes(marked: marker).isEmpty, "a fetch left a process behind")
        #expect(!FileManager.default.fileExists(atPath: folder), "a fetch made the renderer's folder")
    }

    @Test func aStoppedRendererCostsSecondsAndStopEndsIt() throws {
        #expect(try run(["renderer", "start", "--idle", "60"]).status == 0)
        #expect(try waitUntil(running: true))
        let pid = Int32(try #require(try status()?["process"] as? Int))
        defer { if !Self.hasEnded(pid) { kill(pid, SIGKILL) } }
        kill(pid, SIGSTOP)

        // Under a parent that never reaps orphans: the fetch renders by itself, and starts no second renderer
        // (one runs), so no zombie is left there.
        let arguments = [server.url("/img/sample.jpg"), "--resize", "64x64", "--no-cache", "-v"]
        let harness = try Imgfetch.run([Paths.fixtures + "/server/subreaper.py", Paths.binary] + arguments + ["-o", work.file("out.jpg")],
                                       environment: environment, program: "/usr/bin/env", prefix: ["python3"])
        let report = try #require(try JSONSerialization.jsonObject(with: harness.stdout) as? [String: Any], "\(harness.stderr)")
        #expect(report["status"] as? Int == 0, "\(report)")
        #expect((report["stderr"] as? String)?.contains("did not answer within 3 s: rendered in this process") == true, "\(report)")
        #expect(report["zombies"] as? Int == 0, "a zombie was left under the non-reaping parent")
        #expect(try inProcess(arguments + ["-o", work.file("local.jpg")]).status == 0)
        #expect(FileManager.default.contents(atPath: work.file("out.jpg")) == FileManager.default.contents(atPath: work.file("local.jpg")))

        let shown = try run(["renderer", "status"])
        #expect(shown.status == 0 && shown.stdoutText.contains("running but not answering: pid \(pid)"), "\(shown.stdoutText)")
        let stopped = try run(["renderer", "stop"])
        #expect(stopped.status == 0 && stopped.stdoutText.contains("stopping: pid \(pid)"), "\(stopped.stdoutText)")
        // It returned once the renderer had exited.
        #expect(stopped.stdoutText.contains("stopped: pid \(pid)"), "\(stopped.stdoutText)")
        #expect(!RendererClient.isRunning(pid), "renderer stop returned while the renderer ran")
        #expect(Self.waitForEnd(of: pid), "renderer stop did not end a stopped renderer")
        #expect(!FileManager.default.fileExists(atPath: socketPath), "the renderer left its socket behind")
    }

    @Test func aListenerThatNeverAcceptsCostsNothing() throws {
        let squatter = try fake("noaccept")
        defer { end(squatter) }
        let result = try run([server.url("/img/sample.jpg"), "--resize", "64x64", "--no-cache", "-o", work.file("out.jpg"), "-v"])
        #expect(result.status == 0 && !result.stderr.contains("rendered by the warm renderer"), "\(result.stderr)")
        // It holds no renderer's lock: the renderer that fetch started as it ended takes the name over.
        defer { stopRenderer() }
        #expect(try waitUntil(running: true))
        #expect(try status()?["process"] as? Int != Int(squatter.processIdentifier))
        let served = try run([server.url("/img/sample.jpg"), "--resize", "64x64", "--no-cache", "-o", work.file("again.jpg"), "-v"])
        #expect(served.stderr.contains("rendered by the warm renderer"), "\(served.stderr)")
    }

    @Test(.enabled(if: getuid() == 0, "needs root to act as another user"))
    func anotherUserCanNeitherPlantNorSquatTheSocket() throws {
        mkdir(folder, 0o700)
        let setpriv = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c",
                       "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])"]
        let planted = try Imgfetch.run(setpriv + [folder + "/" + name], program: "/usr/bin/setpriv")
        #expect(planted.status != 0, "another user made a socket in the renderer's folder")

        // A folder others may write to is refused; another user's listener there that never accepts costs nothing.
        let shared = folderOpenToAll()
        let squatter = try fake("noaccept", user: 65534, at: shared + "/r.sock")
        defer { end(squatter) }
        let there = ["IMGFETCH_RENDERER_SOCKET": shared + "/r.sock"]
        let fetched = try run([server.url("/img/sample.jpg"), "--resize", "64x64", "--no-cache", "-o", work.file("out.jpg"), "-v"],
                              environment: there)
        #expect(fetched.status == 0 && !fetched.stderr.contains("warm renderer"), "\(fetched.stderr)")
        // Nor is one started there; -v says why (it said it started one, which ended at once).
        #expect(fetched.stderr.contains("no renderer started (--renderer auto): refusing the renderer folder \(shared): "
                                        + "others may write to it"), "\(fetched.stderr)")
        for command in ["status", "start", "stop"] {
            let refused = try run(["renderer", command], environment: there)
            #expect(refused.status == 7, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("refusing the renderer folder \(shared): others may write to it"), "\(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1)
        }
    }

    @Test func statusAndStopFindRenderersOfOlderBuildsOfThePath() throws {
        let bin = work.file("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let program = bin + "/imgfetch"
        try Imgfetch.copyBinary(to: program)
        // The family of renderers of one path: no socket name of the test's own.
        let family = ["IMGFETCH_RENDERER_SOCKET": "", "XDG_RUNTIME_DIR": runtime]
        func copy(_ arguments: [String]) throws -> CommandResult {
            try Imgfetch.run(arguments, environment: family, program: program)
        }
        func statusObject() throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: copy(["renderer", "status", "--json"]).stdout) as? [String: Any])
        }
        #expect(try copy(["renderer", "start", "--idle", "60"]).status == 0)
        var old: Int32 = 0
        for _ in 0..<200 where old == 0 {
            old = try (statusObject()["process"] as? Int).map { Int32($0) } ?? 0
            usleep(50_000)
        }
        #expect(old > 0, "the renderer did not start")
        defer { if old > 0, !Self.hasEnded(old) { kill(old, SIGKILL) } }

        // An upgrade: another file at the same path.
        try Imgfetch.copyBinary(to: program + ".new")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000_000)], ofItemAtPath: program + ".new")
        #expect(rename(program + ".new", program) == 0)
        let found = try statusObject()
        #expect(found["running"] as? Bool == false, "\(found)")
        let renderers = found["renderers"] as? [[String: Any]] ?? []
        #expect(renderers.count == 1 && renderers.first?["process"] as? Int == Int(old) && renderers.first?["this_build"] as? Bool == false,
                "\(found)")
        let text = try copy(["renderer", "status"]).stdoutText
        #expect(text.hasPrefix("older build running: pid \(old)") && text.contains("(deleted)"), "\(text)")
        let stopped = try copy(["renderer", "stop"])
        #expect(stopped.stdoutText.contains("stopping: pid \(old) (an older build)"), "\(stopped.stdoutText)")
        #expect(Self.waitForEnd(of: old))
    }

    /// A client that goes away, before its rendering starts or while it runs, costs the renderer nothing more: the
    /// rendering is stopped (libvips killed, as by --max-render-time), counted as abandoned, nothing is sent, and
    /// the one rendering slot is free for the next client. The rendering asked for (a small SVG drawn 9000 px wide
    /// and blurred) runs for minutes unless it is stopped; the time bounds here are only for a test that fails.
    @Test func theRendererGivesUpWorkWhoseClientHasGone() throws {
        let address = RendererAddress(directory: work.file("inproc"), name: "r.sock")
        let renderer = RendererServer(address: address, idleLimit: 120, slots: 1)
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = try? renderer.serve()
            finished.signal()
        }
        // Patient: a loaded machine may take seconds to answer a status (the renderer here is this very process).
        var client = RendererClient(address: address)
        client.patience = 30
        let bound = Date().addingTimeInterval(120)
        while client.status() == nil, Date() < bound { usleep(20_000) }
        let svg = ##"<svg xmlns="http://www.w3.org/2000/svg" width="90" height="90"><rect width="90" height="90" fill="#c33"/><circle cx="45" cy="45" r="30" fill="#36c"/></svg>"##
        var long = ImageRequest(source: .standardInput)
        long.chain = try ProcessingChain.parse("resize(9000x9000,fit,upscale)|>blur(8)")
        long.encoding = OutputEncoding(format: .png)
        let job = RendererRequest(command: .render, job: WireJob(long))

        do {
            // Sent whole, then the client goes at once (before the rendering starts, or just after).
            let connection = try #require(client.connect())
            #expect(connection.socket.send(job.fields, body: Data(svg.utf8), patience: 30))
        }
        let first = Self.waitFor(abandoned: 1, client: client)
        #expect(first?.abandoned == 1 && first?.renderings == 0, "\(String(describing: first))")

        do {
            // The client goes while the rendering runs: a keep-alive says it has started (the only slot was free).
            let connection = try #require(client.connect())
            #expect(connection.socket.send(job.fields, body: Data(svg.utf8), patience: 30))
            let frame = connection.socket.receive(maxBody: 0, patience: 60)
            #expect(frame?.fields["alive"] != nil, "no keep-alive while rendering")
        }
        let second = Self.waitFor(abandoned: 2, client: client)
        #expect(second?.abandoned == 2 && second?.renderings == 0, "the rendering was not stopped: \(String(describing: second))")

        // The slot is free: the next client is served (by the renderer, not by itself).
        var small = ImageRequest(source: .standardInput)
        small.chain = try ProcessingChain.parse("resize(40x40,fit)")
        small.encoding = OutputEncoding(format: .png)
        let input = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        var next = try #require(client.connect())
        next = RendererConnection(socket: next.socket, patience: 60)
        guard case .rendered(let image) = try next.render(input, job: WireJob(small)) else {
            Issue.record("the next client was not served")
            return
        }
        #expect(image.format == .png && max(image.width, image.height) == 40)
        #expect(client.status()?.renderings == 1)
        // (Not `client.stop()`: one that found no answer would send SIGTERM to the renderer's process, this one.)
        renderer.stop()
        #expect(finished.wait(timeout: .now() + 60) == .success)
    }

    /// The renderer's status once it has abandoned `count` renderings (or after two minutes, for a test that fails).
    static func waitFor(abandoned count: Int, client: RendererClient) -> RendererStatus? {
        let bound = Date().addingTimeInterval(120)
        var status = client.status()
        while status?.abandoned ?? 0 < count, Date() < bound {
            usleep(20_000)
            status = client.status()
        }
        return status
    }

    /// The children of this process that have ended and wait to be reaped.
    func zombieChildren() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 1 else { return false }
            return fields[0] == "Z" && Int32(fields[1]) == getpid()
        }
    }

    /// #19.10: what the launcher starts is never a child of the process that started it (a double fork): a
    /// process that does not reap (this test runner reaps only the processes it runs itself) is left no zombie.
    @Test func aDetachedStartLeavesNoChildToReap() throws {
        let marker = work.file("ran")
        let pid = try #require(RendererLauncher.spawnDetached("/bin/sh", arguments: ["-c", "echo > \(marker)"]))
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: marker) || !Self.hasEnded(pid), Date() < deadline { usleep(20_000) }
        #expect(FileManager.default.fileExists(atPath: marker), "the detached process did not run")
        #expect(Self.hasEnded(pid))
        #expect(!zombieChildren().contains(pid), "the detached process was left a zombie child of its starter")
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == -1 && errno == ECHILD, "the detached process is a child of its starter")
    }
}
