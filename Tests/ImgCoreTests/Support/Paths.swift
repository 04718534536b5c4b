import Foundation

/// Where the package, its fixtures and the built binary are.
enum Paths {
    static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()
    static let fixtures = packageRoot + "/Tests/Fixtures"
    static let images = fixtures + "/images"
    /// The debug binary that `swift build` (and `swift test`) leaves.
    static let binary: String = {
        let candidates = [".build/debug/imgfetch", ".build/x86_64-unknown-linux-gnu/debug/imgfetch"]
        return candidates.map { packageRoot + "/" + $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
            ?? packageRoot + "/.build/debug/imgfetch"
    }()
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
