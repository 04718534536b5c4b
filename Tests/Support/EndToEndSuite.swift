import Foundation

/// A suite with a fixture server and a temporary directory, both made fresh for each test by the default `init()`;
/// `fetch` runs imgfetch with the cache in that directory: the binary, or in this process for a suite whose
/// `runsInProcess` says so (default false).
protocol EndToEndSuite {
    /// Whether `fetch` runs the command in this process (`Imgfetch.runInProcess`).
    static var runsInProcess: Bool { get }
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

    static var runsInProcess: Bool { false }

    var cache: String { work.file("cache") }

    func fetch(_ arguments: [String]) throws -> CommandResult {
        let arguments = arguments + ["--cache-dir", cache]
        return Self.runsInProcess ? try Imgfetch.runInProcess(arguments) : try Imgfetch.run(arguments)
    }
}
