import Foundation
import Testing

/// An environment variable is judged only by a command that uses it: a bad `IMGFETCH_RENDERER` stopped batch,
/// prefetch and info (which render in their own process), a bad `IMGFETCH_TTL` or `IMGFETCH_FAIL_ON` stopped a
/// `cache prune` (which needs only the size limit) and a `fetch --no-cache` (which writes no entry). An empty variable
/// is unset, the renderer's as the cache's.
@Suite("Environment variables: judged by the commands that use them", .serialized)
struct VariableUseTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

    func run(_ arguments: [String], _ environment: [String: String]) throws -> CommandResult {
        try Imgfetch.runInProcess(arguments + ["--cache-dir", cache, "--no-progress"], environment: environment)
    }

    @Test func theRenderersVariablesAreFetchsAlone() throws {
        let url = server.url("/img/sample.jpg"), local = Paths.images + "/sample.jpg"
        let list = work.file("list.txt")
        try Data("\(url)\n".utf8).write(to: URL(fileURLWithPath: list))
        for environment in [["IMGFETCH_RENDERER": "bogus"], ["IMGFETCH_RENDERER_IDLE": "bogus"]] {
            for arguments in [["batch", list, "-O", work.file("out")], ["prefetch", url], ["info", url]] {
                let result = try run(arguments, environment)
                #expect(result.status == 0, "\(arguments) \(environment): \(result.stderr)")
            }
            let fetch = try run([local, "-o", work.file("a.jpg")], environment)
            let variable = try #require(environment.keys.first)
            #expect(fetch.status == 2 && fetch.stderr.contains(variable), "\(environment): \(fetch.stderr)")
        }
        for variable in ["IMGFETCH_RENDERER", "IMGFETCH_RENDERER_IDLE"] {
            let empty = try run([local, "-o", work.file("b.jpg")], [variable: ""])
            #expect(empty.status == 0, "an empty \(variable) is unset: \(empty.stderr)")
        }
    }

    @Test func theCachesVariablesAreJudgedWhereUsed() throws {
        let local = Paths.images + "/sample.jpg"
        #expect(try run([local, "-o", work.file("a.jpg")], [:]).status == 0)
        for environment in [["IMGFETCH_TTL": "bogus"], ["IMGFETCH_FAIL_ON": "bogus"]] {
            let prune = try run(["-q", "cache", "prune", "--size-limit", "1G"], environment)
            #expect(prune.status == 0, "\(environment): \(prune.stderr)")
        }
        for environment in [["IMGFETCH_TTL": "bogus"], ["IMGFETCH_SIZE_LIMIT": "bogus"]] {
            let uncached = try run([local, "-o", work.file("b.jpg"), "--no-cache"], environment)
            #expect(uncached.status == 0, "\(environment): \(uncached.stderr)")
            let cached = try run([local, "-o", work.file("c.jpg")], environment)
            #expect(cached.status == 2 && cached.stderr.contains("bogus"), "\(environment): \(cached.stderr)")
        }
        let decoded = try run([local, "-o", work.file("d.png"), "--no-cache"], ["IMGFETCH_FAIL_ON": "bogus"])
        #expect(decoded.status == 2 && decoded.stderr.contains("IMGFETCH_FAIL_ON"), "\(decoded.stderr)")
        let removed = try run(["cache", "remove", server.url("/img/sample.jpg")], ["IMGFETCH_SIZE_LIMIT": "bogus"])
        #expect(removed.status == 0, "\(removed.stderr)")
    }
}
