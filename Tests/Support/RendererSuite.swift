import Foundation
import Testing
@testable import ImgRenderer

/// A suite that opts in to the warm renderer under a folder and a socket name of its own (`XDG_RUNTIME_DIR` in its
/// work directory), so that no other test's or user's renderer is involved.
protocol RendererSuite: EndToEndSuite {}

extension RendererSuite {
    /// The socket file's name (`IMGFETCH_RENDERER_SOCKET`): the test's own, from its work directory's unique name.
    var name: String { "imgfetch-test-\(work.path.suffix(8)).sock" }
    /// `XDG_RUNTIME_DIR` of the suite's commands (made 0700 here, as the system makes it).
    var runtime: String {
        let path = work.file("run")
        mkdir(path, 0o700)
        return path
    }
    /// The renderer's folder, and its socket file.
    var folder: String { runtime + "/imgfetch" }
    var socketPath: String { folder + "/" + name }

    var environment: [String: String] {
        ["IMGFETCH_RENDERER": "auto", "IMGFETCH_RENDERER_SOCKET": name, "IMGFETCH_RENDERER_IDLE": "30", "XDG_RUNTIME_DIR": runtime]
    }

    func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> CommandResult {
        try Imgfetch.run(arguments, environment: environment.merging(extra) { $1 })
    }

    /// The same fetch with `--renderer off`: the bytes and the failure the renderer must match.
    func inProcess(_ arguments: [String]) throws -> CommandResult {
        try Imgfetch.run(arguments + ["--renderer", "off"], environment: environment)
    }

    /// `renderer status --json`, parsed; nil when this build's renderer is not running.
    func status(environment extra: [String: String] = [:]) throws -> [String: Any]? {
        let result = try run(["renderer", "status", "--json"], environment: extra)
        let object = try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        return object?["running"] as? Bool == true ? object : nil
    }

    /// Polls `renderer status` until it says `running`, for at most `seconds` (a bound for a loaded machine: it
    /// returns as soon as the state is reached).
    func waitUntil(running: Bool, seconds: Double = 30) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try (status() != nil) == running { return true }
            usleep(50_000)
        }
        return false
    }

    func startRenderer() throws {
        #expect(try run(["renderer", "start"]).status == 0)
        #expect(try waitUntil(running: true))
    }

    func stopRenderer() {
        _ = try? run(["renderer", "stop"])
        _ = try? waitUntil(running: false)
    }

    /// `shared` in the work directory, a folder every user may write to (0777 whatever the umask): where another
    /// user's fake renderer can listen.
    func folderOpenToAll() -> String {
        let path = work.file("shared")
        mkdir(path, 0o777)
        chmod(path, 0o777)
        return path
    }

    func renderings() throws -> Int { try status()?["renderings"] as? Int ?? -1 }

    /// Starts the fake renderer (Tests/Fixtures/server/fake_renderer.py) in `mode` at `path` (default this
    /// suite's socket; its folder is made 0700 first), as `user` when given, with `options` of the script's
    /// (`--got-request FILE`), and waits until it listens.
    func fake(_ mode: String, user: Int? = nil, at path: String? = nil, options: [String] = []) throws -> Process {
        mkdir(folder, 0o700)
        let ready = work.file("fake-ready-\(mode)-\(UUID().uuidString.prefix(6))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Paths.fixtures + "/server/fake_renderer.py", path ?? socketPath, mode, "--ready-file", ready]
            + (user.map { ["--user", String($0)] } ?? []) + options
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while (try? String(contentsOfFile: ready, encoding: .utf8))?.isEmpty ?? true, Date() < deadline { usleep(20_000) }
        #expect(!((try? String(contentsOfFile: ready, encoding: .utf8))?.isEmpty ?? true), "the fake renderer did not start")
        return process
    }

    /// Ends a process this test started, and reaps it.
    func end(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Whether process `pid` is gone or a zombie (it ended, whoever reaps it).
    static func hasEnded(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
        let state = stat.split(separator: ")").last?.split(separator: " ").first
        return state == "Z" || state == "X"
    }

    /// Waits up to `seconds` for process `pid` to end.
    static func waitForEnd(of pid: Int32, seconds: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !hasEnded(pid), Date() < deadline { usleep(50_000) }
        return hasEnded(pid)
    }
}
