import Foundation

/// A suite with a fixture server and a temporary directory, both made fresh for each test by the default `init()`;
/// `fetch` runs the binary with the cache in that directory.
protocol EndToEndSuite {
    var server: FixtureServer { get }
    var work: TemporaryDirectory { get }
    /// The suite's memberwise initializer serves.
    init(server: FixtureServer, work: TemporaryDirectory)
}

extension EndToEndSuite {
    init() throws {
        let server = try FixtureServer()
        self.init(server: server, work: try TemporaryDirectory())
    }

    var cache: String { work.file("cache") }

    func fetch(_ arguments: [String]) throws -> CommandResult {
        try Imgfetch.run(arguments + ["--cache-dir", cache])
    }
}
