import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgRenderer

/// The renderers of this executable's path are found by their lock file (which holds the pid), not only by their
/// socket: one whose socket file was deleted, or that listens at a socket named by `IMGFETCH_RENDERER_SOCKET` in
/// the same folder, is seen by `status` and `start` and ended by `stop`; of several starts at once, one says
/// `started` and the others name the winner.
@Suite("Renderers found by their lock", .serialized)
struct RendererLockTests: RendererSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    /// The default socket name of this executable (no `IMGFETCH_RENDERER_SOCKET`), in this test's folder.
    private var plain: [String: String] {
        ["IMGFETCH_RENDERER": "auto", "XDG_RUNTIME_DIR": runtime, "IMGFETCH_RENDERER_IDLE": "60"]
    }

    private func plainRun(_ arguments: [String], _ extra: [String: String] = [:]) throws -> CommandResult {
        try Imgfetch.run(arguments, environment: plain.merging(extra) { $1 })
    }

    private func pid(in text: String, after prefix: String) -> Int32? {
        guard let range = text.range(of: prefix) else { return nil }
        return Int32(text[range.upperBound...].prefix { $0.isNumber })
    }

    @Test func aRendererWhoseSocketFileWasDeletedIsSeenAndStopped() throws {
        let started = try plainRun(["renderer", "start"])
        let process = try #require(pid(in: started.stdoutText, after: "started: pid "), "\(started.stdoutText)")
        defer { if !Self.hasEnded(process) { kill(process, SIGKILL) } }
        let deadline = Date().addingTimeInterval(30)
        while !(try plainRun(["renderer", "status"]).stdoutText.hasPrefix("running: pid")), Date() < deadline { usleep(50_000) }
        let socket = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".sock") })
        #expect(unlink(folder + "/" + socket) == 0)
        let status = try plainRun(["renderer", "status"])
        #expect(status.stdoutText.contains("not answering: pid \(process)") && status.stdoutText.contains("socket file is gone"),
                "\(status.stdoutText)")
        // Something else at its socket file's name (here a plain file) is not it.
        #expect(FileManager.default.createFile(atPath: folder + "/" + socket, contents: Data()))
        let squatted = try plainRun(["renderer", "status"])
        #expect(squatted.stdoutText.contains("not answering: pid \(process)")
                && squatted.stdoutText.contains("what is at its socket file is not it"), "\(squatted.stdoutText)")
        #expect(unlink(folder + "/" + socket) == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: try plainRun(["renderer", "status", "--json"]).stdout) as? [String: Any])
        let renderers = json["renderers"] as? [[String: Any]] ?? []
        #expect(renderers.count == 1 && renderers.first?["listening"] as? Bool == false && json["running"] as? Bool == true, "\(json)")
        let again = try plainRun(["renderer", "start"])
        #expect(again.stdoutText.hasPrefix("already running: pid \(process)"), "\(again.stdoutText)")
        let stopped = try plainRun(["renderer", "stop"])
        #expect(stopped.status == 0 && stopped.stdoutText.contains("stopped: pid \(process)"), "\(stopped.stdoutText)")
        #expect(Self.waitForEnd(of: process, seconds: 5))
        #expect(try plainRun(["renderer", "status"]).stdoutText.hasPrefix("not running"))
    }

    @Test func aRendererAtASocketNamedOtherwiseIsSeenAndStoppedByPlainCommands() throws {
        let started = try plainRun(["renderer", "start"], ["IMGFETCH_RENDERER_SOCKET": "my.sock"])
        let process = try #require(pid(in: started.stdoutText, after: "started: pid "), "\(started.stdoutText)")
        defer { if !Self.hasEnded(process) { kill(process, SIGKILL) } }
        let deadline = Date().addingTimeInterval(30)
        while !(try plainRun(["renderer", "status"]).stdoutText.contains("pid \(process)")), Date() < deadline { usleep(50_000) }
        #expect(try plainRun(["renderer", "status"]).stdoutText.contains("at \(folder)/my.sock"))
        let stopped = try plainRun(["renderer", "stop"])
        #expect(stopped.stdoutText.contains("stopped: pid \(process)"), "\(stopped.stdoutText)")
        #expect(Self.waitForEnd(of: process, seconds: 5))
    }

    @Test func ofSeveralStartsAtOnceOneStartsAndTheOthersNameIt() throws {
        let outputs = (0..<4).map { work.file("start-\($0).txt") }
        let processes = try outputs.map { try Imgfetch.launch(["renderer", "start"], environment: plain, output: $0) }
        for process in processes { process.waitUntilExit() }
        let lines = outputs.map { (try? String(contentsOfFile: $0, encoding: .utf8)) ?? "" }
        let winners = lines.compactMap { pid(in: $0, after: "started: pid ") }
        #expect(winners.count == 1, "\(lines)")
        let winner = try #require(winners.first)
        defer { _ = try? plainRun(["renderer", "stop"]); if !Self.hasEnded(winner) { kill(winner, SIGKILL) } }
        #expect(lines.filter { $0.hasPrefix("already running: pid \(winner)") }.count == 3, "\(lines)")
        #expect(!Self.hasEnded(winner))
    }
}
