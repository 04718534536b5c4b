import Foundation

/// Where the package, its fixtures and the built binary are.
enum Paths {
    /// The folder above this file that holds `Package.swift` (this file is compiled into each test target through
    /// a link to `Tests/Support`, so its depth is not fixed).
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        repeat { url.deleteLastPathComponent() }
        while url.path != "/" && !FileManager.default.fileExists(atPath: url.path + "/Package.swift")
        return url.path
    }()
    static let fixtures = packageRoot + "/Tests/Fixtures"
    static let images = fixtures + "/images"
    /// The binary the end-to-end tests run: `IMGFETCH_TEST_BINARY` when set (e.g. a release or static build), else
    /// the debug binary that `swift build` (and `swift test`) leaves.
    static let binary: String = {
        if let given = ProcessInfo.processInfo.environment["IMGFETCH_TEST_BINARY"], !given.isEmpty { return given }
        let candidates = [".build/debug/imgfetch", ".build/x86_64-unknown-linux-gnu/debug/imgfetch"]
        return candidates.map { packageRoot + "/" + $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? packageRoot + "/.build/debug/imgfetch"
    }()

    /// The environment every imgfetch the tests start runs with: no cache settings from the developer's shell, the
    /// default cache under `.build/test-cache-home` (a command given no cache folder never writes the developer's
    /// `~/.cache/imgfetch`), and no warm renderer even if the shell opted in (the renderer suites opt in for
    /// themselves, under folders and names of their own), so that no test leaves a renderer running or is served by
    /// one.
    static var childEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = packageRoot + "/.build/test-cache-home"
        for key in ["IMGFETCH_CACHE_DIR", "IMGFETCH_TTL", "IMGFETCH_SIZE_LIMIT", "IMGFETCH_FAIL_ON", "IMGFETCH_RENDERER_SOCKET", "IMGFETCH_RENDERER_IDLE"] {
            environment[key] = nil
        }
        environment["IMGFETCH_RENDERER"] = "off"
        return environment
    }
}

/// A fresh directory under /tmp, removed on deinit.
final class TemporaryDirectory: @unchecked Sendable { // only a path; removed once
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "imgfetch-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }
}
