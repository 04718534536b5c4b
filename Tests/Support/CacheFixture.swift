import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// A fixture server, a private cache directory, and imgfetch (the built binary, or in process) pointed at both.
final class CacheFixture: @unchecked Sendable { // used by one test at a time
    let server: FixtureServer
    let home: TemporaryDirectory
    var cache: String { home.file("cache") }

    /// Whether commands run in this process (`Imgfetch.runInProcess`) rather than as the built binary.
    let inProcess: Bool

    /// With `inProcess` (default false), commands run in this process: for tests that check no process-wide fact.
    init(root: String = Paths.images, inProcess: Bool = false) throws {
        server = try FixtureServer(root: root)
        home = try TemporaryDirectory()
        self.inProcess = inProcess
    }

    /// Runs `imgfetch ARGUMENTS --cache-dir CACHE`.
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        let arguments = arguments + ["--cache-dir", cache]
        return inProcess ? try Imgfetch.runInProcess(arguments, environment: environment)
                         : try Imgfetch.run(arguments, environment: environment)
    }

    /// Fetches `/img/PATH` (or any server path) to a new file, without auto clean unless `extra` says otherwise.
    @discardableResult
    func fetch(_ path: String, _ extra: [String] = [], autoClean: Bool = false) throws -> CommandResult {
        let output = home.file("out-\(UUID().uuidString).png")
        var arguments = ["fetch", server.url(path), "-o", output] + extra
        if !autoClean { arguments.append("--no-auto-clean") }
        let result = try run(arguments)
        #expect(result.status == 0, "fetch \(path): \(result.stderr)")
        return result
    }

    /// Moves the cache directory's clock `seconds` on (default a minute): what waiting does to it (`CacheClock`).
    func passTime(_ seconds: Int = 60) throws { try CacheClock.advance(cache, by: seconds) }

    /// The entry files (path relative to `entries/`) with size, atime and mtime in nanoseconds, from `lstat`.
    func entries() -> [String: FileState] { FileState.listing(cache + "/entries") }

    /// Every file and folder of the cache directory.
    func everything() -> [String: FileState] { FileState.listing(cache) }

    /// How many requests the server counted for `path` (its /_stats, fetched with curl).
    func requests(_ path: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl", "-s", server.url("/_stats")]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONDecoder().decode(FixtureServer.Stats.self, from: data).paths[path] ?? 0
    }

    func inspectJSON(_ extra: [String] = []) throws -> [String: Any] {
        let result = try run(["cache", "inspect", "--json"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
    }
}

/// A file's size and times as `lstat` gives them: atime in nanoseconds; mtime (an expiry, up to year 9999) in
/// whole seconds plus nanoseconds.
struct FileState: Hashable, CustomStringConvertible {
    var size: Int64
    var accessed: Int64
    var modified: Int64
    var modifiedNanoseconds: Int64
    var isFolder: Bool

    var description: String { "size \(size) atime \(accessed) mtime \(modified).\(modifiedNanoseconds)\(isFolder ? " dir" : "")" }
    /// Seconds from last access to expiry.
    var span: Double { Double(modified) + Double(modifiedNanoseconds) / 1e9 - Double(accessed) / 1e9 }

    static func nanoseconds(_ time: timespec) -> Int64 { Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec) }

    static func listing(_ root: String) -> [String: FileState] {
        var result: [String: FileState] = [:]
        for relative in (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? [] {
            var info = stat()
            guard lstat(root + "/" + relative, &info) == 0 else { continue }
            let isFolder = info.st_mode & S_IFMT == S_IFDIR
            result[relative] = FileState(size: isFolder ? 0 : Int64(info.st_size), accessed: isFolder ? 0 : nanoseconds(info.st_atim),
                                         modified: isFolder ? 0 : Int64(info.st_mtim.tv_sec),
                                         modifiedNanoseconds: isFolder ? 0 : Int64(info.st_mtim.tv_nsec), isFolder: isFolder)
        }
        return result
    }
}

extension CacheRoot {
    /// The cache directory at `path` opened (made, with its own folders, when missing), as the commands open it.
    static func at(_ path: String) throws -> CacheRoot {
        try #require(try CacheRoot.open(path, create: true))
    }
}
