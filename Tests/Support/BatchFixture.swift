import Foundation
@testable import ImgCore

/// A fixture server over 20 copies of sample.jpg (`img1.jpg` … `img20.jpg`), with an output and a cache directory.
final class BatchFixture: @unchecked Sendable { // test-local paths and a server, used by one test
    let root: TemporaryDirectory
    let server: FixtureServer
    var output: String { root.path + "/out" }
    var cache: String { root.path + "/cache" }
    /// Whether `batch` runs in this process (`Imgfetch.runInProcess`) rather than as the built binary.
    let inProcess: Bool

    /// With `inProcess` (default false), `batch` runs in this process: for tests that check no process-wide fact.
    init(count: Int = 20, inProcess: Bool = false) throws {
        self.inProcess = inProcess
        root = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: root.path + "/www", withIntermediateDirectories: true)
        let sample = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        for index in 1...count { try sample.write(to: URL(fileURLWithPath: root.path + "/www/img\(index).jpg")) }
        try FileManager.default.copyItem(atPath: Paths.images + "/truncated.jpg", toPath: root.path + "/www/truncated.jpg")
        server = try FixtureServer(root: root.path + "/www")
    }

    /// Writes the lines to `list.txt` and returns its path.
    func list(_ lines: [String]) throws -> String {
        let path = root.path + "/list-\(UUID().uuidString).txt"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Writes `text` to the file `name` in the fixture's folder (a list with columns) and returns its path.
    func write(_ text: String, to name: String) throws -> String {
        let path = root.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `imgfetch batch LIST -O out --cache-dir cache ARGUMENTS`.
    func batch(_ lines: [String], _ arguments: [String] = []) throws -> CommandResult {
        let arguments = ["batch", try list(lines), "-O", output, "--cache-dir", cache, "--no-progress"] + arguments
        return inProcess ? try Imgfetch.runInProcess(arguments) : try Imgfetch.run(arguments)
    }

    func outputs() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []).sorted()
    }

    /// Decodes an output file's header with ImgCore.
    func probe(_ name: String) throws -> (format: ImageFormat?, width: Int, height: Int, frames: Int) {
        try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: output + "/" + name)))
    }

    static func records(_ result: CommandResult) throws -> [[String: Any]] {
        try result.stdoutText.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw TestFailure("not a JSON object: \(line)")
            }
            return object
        }
    }
}
