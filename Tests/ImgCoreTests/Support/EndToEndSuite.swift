import Foundation

/// A suite with a fixture server and a temporary directory; `fetch` runs the binary with the cache in that directory.
protocol EndToEndSuite {
    var server: FixtureServer { get }
    var work: TemporaryDirectory { get }
}

extension EndToEndSuite {
    var cache: String { work.file("cache") }

    func fetch(_ arguments: [String]) throws -> CommandResult {
        try Imgfetch.run(arguments + ["--cache-dir", cache])
    }
}
